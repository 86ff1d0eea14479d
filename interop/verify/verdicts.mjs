// Runs the reference verifier (@ag-ui/client 1.0.0 `verifyEvents`) over every stream of a
// corpus and prints one verdict per stream as JSON:
//   {"accepted": true}  or  {"kind": "text.already-open", "index": 3}
// `index` is the 0-based position of the event the reference rejected (= the number of events
// it let through); `kind` is the rules.md kind, recovered from the error message by the
// pattern table below. A message no pattern knows becomes kind "unknown: <message>", so a
// differential test fails loudly instead of guessing.
//
// Usage: node interop/verify/verdicts.mjs <corpus.json>      (corpus: {"streams":[{"events":[...]}]})
//        import { verdict } from "./verdicts.mjs"             (used by gen.mjs)

import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { verifyEvents } from "@ag-ui/client";
import { from } from "rxjs";

// Most specific first.
const PATTERNS = [
  [/The run has already errored/, "run.after-error"],
  [/The run has already finished/, "run.after-finished"],
  [/^First event must be/, "run.first-event"],
  [/RUN_STARTED' while a run is still active/, "run.already-active"],
  [/'RUN_FINISHED' while steps are still active/, "run.unclosed-steps"],
  [/'RUN_FINISHED' while text messages are still active/, "run.unclosed-text-messages"],
  [/'RUN_FINISHED' while reasoning messages are still active/, "run.unclosed-reasoning-messages"],
  [/'RUN_FINISHED' while reasoning spans are still active/, "run.unclosed-reasoning-spans"],
  [/'RUN_FINISHED' while tool calls are still active/, "run.unclosed-tool-calls"],
  [/'RUN_FINISHED' while subagents are still active/, "run.unclosed-subagents"],
  [/subagentRunId: null/, "attribution.null"],
  [/without a '(subagentRunId|name|message)'/, "subagent.missing-field"],
  [/with outcome type|outcome\.interruptIds: null|non-string entry in 'outcome\.interruptIds'/, "subagent.bad-outcome"],
  [/with '\w+: null'/, "subagent.null-field"],
  [/A text message with ID .* is already in progress/, "text.already-open"],
  [/No active text message found/, "text.not-open"],
  [/A tool call with ID .* is already in progress/, "tool.already-open"],
  [/No active tool call found/, "tool.not-open"],
  [/A reasoning span with ID .* is already in progress/, "reasoning.span-already-open"],
  [/A reasoning message with ID .* is already in progress/, "reasoning.message-already-open"],
  [/No active reasoning span found/, "reasoning.span-not-open"],
  [/No active reasoning message found/, "reasoning.message-not-open"],
  [/does not match its parent message|but its parent message .* is owned by/, "owner.parent-message-mismatch"],
  [/does not match the .* opener's subagent/, "owner.mismatch"],
  [/^Step ".*" is already active/, "step.already-open"],
  [/A step must be finished by whoever started it/, "step.owner-mismatch"],
  [/that was not started$/, "step.not-open"],
  [/is already active\. Finish it/, "subagent.already-active"],
  [/has already finished in this run/, "subagent.id-reused"],
  [/parentSubagentRunId .* has not been started/, "subagent.unknown-parent"],
  [/no active subagent found/, "subagent.not-active"],
];

export function kindOf(message) {
  for (const [pattern, kind] of PATTERNS) if (pattern.test(message)) return kind;
  return `unknown: ${message}`;
}

// The reference's verdict on one stream (an array of plain event objects).
export function verdict(events) {
  let passed = 0;
  let error;
  let completed = false;
  // `from` over an array is synchronous, so the subscription has settled when it returns.
  from(structuredClone(events))
    .pipe(verifyEvents())
    .subscribe({
      next: () => {
        passed += 1;
      },
      error: (e) => {
        error = e;
      },
      complete: () => {
        completed = true;
      },
    });
  if (error !== undefined) return { kind: kindOf(String(error.message ?? error)), index: passed };
  if (!completed) throw new Error("the reference verifier did not settle synchronously");
  return { accepted: true };
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  const path = process.argv[2];
  if (!path) {
    console.error("usage: node verdicts.mjs <corpus.json>");
    process.exit(2);
  }
  const corpus = JSON.parse(readFileSync(path, "utf8"));
  const out = corpus.streams.map((s) => verdict(s.events));
  process.stdout.write(JSON.stringify(out));
}
