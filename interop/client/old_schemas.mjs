// Checks frames against the event schemas of the pre-1.0 clients @ag-ui/client 0.0.42, 0.0.52 and
// 0.0.59 (each re-exports the EventSchemas of the @ag-ui/core it ships with), for
// `crates/ag-ui/tests/endpoint/downgrade_schemas.rs`.
//
// Usage: node interop/client/old_schemas.mjs < frames.jsonl   (one event's JSON per line)
// Prints { "<version>": { checked, rejected: [{ index, type, error }] } }.
import { EventSchemas as Schemas0042 } from "ag-ui-client-0042";
import { EventSchemas as Schemas0052 } from "ag-ui-client-0052";
import { EventSchemas as Schemas0059 } from "ag-ui-client-0059";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const frames = input.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));

const out = {};
for (const [version, schemas] of [
  ["0.0.42", Schemas0042],
  ["0.0.52", Schemas0052],
  ["0.0.59", Schemas0059],
]) {
  const rejected = [];
  frames.forEach((frame, index) => {
    const parsed = schemas.safeParse(frame);
    if (!parsed.success) {
      rejected.push({ index, type: frame.type, error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") });
    }
  });
  out[version] = { checked: frames.length, rejected };
}
console.log(JSON.stringify(out));
