// Checks SSE bytes written by the Rust writer against the reference packages 1.0.0.
//
// Usage: node writer-check.mjs <frames.sse>
// For every `data: <json>\n\n` frame of the file: the JSON must validate against the
// @ag-ui/core 1.0 event schemas, and @ag-ui/encoder's encodeSSE of the parsed event must give
// back exactly the same bytes. Prints a JSON report on stdout: {frames, types, invalid, mismatched}.
import { readFileSync } from "node:fs";
import { EventSchemas } from "@ag-ui/core/schemas";
import { EventEncoder } from "@ag-ui/encoder";

const path = process.argv[2];
if (!path) {
  console.error("usage: node writer-check.mjs <frames.sse>");
  process.exit(2);
}
const text = readFileSync(path, "utf8");
const encoder = new EventEncoder();
const report = { frames: 0, types: {}, invalid: [], mismatched: [] };

const pieces = text.split("\n\n");
if (pieces.pop() !== "") {
  report.invalid.push({ index: pieces.length, error: "the stream does not end with a blank line" });
}
pieces.forEach((piece, index) => {
  const frame = piece + "\n\n";
  report.frames += 1;
  if (!piece.startsWith("data: ") || piece.includes("\n")) {
    report.invalid.push({ index, error: "not a single `data: ` line", frame });
    return;
  }
  const event = JSON.parse(piece.slice("data: ".length));
  report.types[event.type] = (report.types[event.type] ?? 0) + 1;
  const checked = EventSchemas.safeParse(event);
  if (!checked.success) {
    report.invalid.push({ index, type: event.type, issues: checked.error.issues, frame });
  }
  const reference = encoder.encodeSSE(event);
  if (reference !== frame) {
    report.mismatched.push({ index, type: event.type, ours: frame, reference });
  }
});
console.log(JSON.stringify(report));
