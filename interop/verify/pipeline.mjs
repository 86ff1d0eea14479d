// Runs streams through the reference client's chunk expansion and verifier
// (@ag-ui/client 1.0.0 `transformChunks` then `verifyEvents`) and prints one verdict per
// stream as JSON, like verdicts.mjs: {"accepted": true} or {"error": message, "index": n}
// where n counts the expanded events the verifier let through, and "kind" the rules.md kind of
// the message (as verdicts.mjs names it).
//
// Usage: node interop/verify/pipeline.mjs <streams.json>     (a JSON array of event arrays)

import { readFileSync } from "node:fs";
import { transformChunks, verifyEvents } from "@ag-ui/client";
import { from } from "rxjs";
import { kindOf } from "./verdicts.mjs";

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";

const streams = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = streams.map((events) => {
  let passed = 0;
  let error;
  let completed = false;
  from(structuredClone(events))
    .pipe(transformChunks(), verifyEvents())
    .subscribe({
      next: () => (passed += 1),
      error: (e) => (error = e),
      complete: () => (completed = true),
    });
  if (error !== undefined) {
    const message = String(error.message ?? error);
    return { error: message, kind: kindOf(message), index: passed };
  }
  if (!completed) throw new Error("the reference pipeline did not settle synchronously");
  return { accepted: true };
});
process.stdout.write(JSON.stringify(out));
