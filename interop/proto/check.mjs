// Runs @ag-ui/proto 1.0.0 (and the framing of @ag-ui/encoder and @ag-ui/client 1.0.0) on
// events and bytes written by the Rust crate, for `crates/ag-ui/tests/proto_interop.rs`.
//
// Usage: node interop/proto/check.mjs <cases.jsonl> <stream.bin>
//   cases.jsonl: one {"name", "event" (the event's JSON), "ours" (hex of our message)} a line.
//   stream.bin:  our framed stream of the same events, in order.
// Prints one JSON object:
//   results[i]: { name, theirs (hex of the reference's message for the event), warnings
//                 (what the reference encoder warned), decoded (the reference's decode of
//                 our bytes) or error }
//   stream:     { events (our stream read by transformHttpEventStream, fed in odd-sized
//                 chunks), error }
//   framed:     hex of the reference's framed stream (EventEncoder.encodeProtobuf) of the events.
import { readFileSync } from "node:fs";
import * as proto from "@ag-ui/proto";
import { EventEncoder } from "@ag-ui/encoder";
import { transformHttpEventStream } from "@ag-ui/client";
import { Subject } from "rxjs";

const [casesPath, streamPath] = process.argv.slice(2);
if (!casesPath || !streamPath) {
  console.error("usage: node check.mjs <cases.jsonl> <stream.bin>");
  process.exit(2);
}
const cases = readFileSync(casesPath, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const hex = (bytes) => Buffer.from(bytes).toString("hex");

const quietly = (run) => {
  const warnings = [];
  const orig = console.warn;
  console.warn = (...args) => warnings.push(args.join(" "));
  try {
    return { value: run(), warnings };
  } finally {
    console.warn = orig;
  }
};

const results = cases.map(({ name, event, ours }) => {
  const { value: theirs, warnings } = quietly(() => proto.encode(structuredClone(event)));
  const out = { name, theirs: hex(theirs), warnings };
  try {
    out.decoded = quietly(() => proto.decode(Buffer.from(ours, "hex"))).value;
  } catch (err) {
    out.error = `${err.name}: ${err.message}`;
  }
  return out;
});

const encoder = new EventEncoder({ accept: proto.AGUI_MEDIA_TYPE });
const framed = Buffer.concat(cases.map(({ event }) => quietly(() => Buffer.from(encoder.encodeBinary(structuredClone(event)))).value));

const stream = readFileSync(streamPath);
const read = await new Promise((resolve) => {
  const source = new Subject();
  const events = [];
  transformHttpEventStream(source).subscribe({
    next: (e) => events.push(e),
    error: (e) => resolve({ events, error: String(e) }),
    complete: () => resolve({ events }),
  });
  source.next({ type: "headers", status: 200, headers: new Headers({ "content-type": proto.AGUI_MEDIA_TYPE }) });
  let seed = 11;
  for (let at = 0; at < stream.length; ) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const n = 1 + (seed % 97);
    source.next({ type: "data", data: new Uint8Array(stream.subarray(at, at + n)) });
    at += n;
  }
  source.complete();
});

process.stdout.write(JSON.stringify({ results, stream: read, framed: hex(framed) }));
