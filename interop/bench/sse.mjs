// Times the reference packages on the shared SSE workload, for comparison with
// `cargo bench -p ag-ui --bench sse` run on the same machine.
//
// Usage:
//   cargo run --release -p ag-ui --example workload -- sse explicit > /tmp/workload.sse
//   node interop/bench/sse.mjs /tmp/workload.sse [rounds]
//
// * encode: @ag-ui/encoder's EventEncoder.encodeSSE of every event (parsed beforehand).
// * decode: SSE bytes (fed in 64 KiB chunks) to validated events the way the client reads a
//   response: @ag-ui/client's transformHttpEventStream (the SSE parser) piped through
//   enforceEvents (schema validation, unknown material stripped).
// * decode_parse_and_schema: the cheapest equivalent — parseSSEStream, then
//   EventSchemas.parse of every event; a lower bound of the client's decoding cost.
// Prints the best of `rounds` (default 5) for each, in events per second.
import { readFileSync } from "node:fs";
import { EventEncoder } from "@ag-ui/encoder";
import { EventSchemas } from "@ag-ui/core/schemas";
import { enforceEvents, parseSSEStream, transformHttpEventStream } from "@ag-ui/client";
import { Subject } from "rxjs";

const path = process.argv[2];
if (!path) {
  console.error("usage: node sse.mjs <workload.sse> [rounds]");
  process.exit(2);
}
const rounds = Number(process.argv[3] ?? 5);
const bytes = readFileSync(path);
const text = bytes.toString("utf8");
const events = text
  .split("\n\n")
  .filter((frame) => frame.startsWith("data: "))
  .map((frame) => JSON.parse(frame.slice("data: ".length)));
const CHUNK = 64 * 1024;

function encodeOnce() {
  const encoder = new EventEncoder();
  let total = 0;
  for (const event of events) total += encoder.encodeSSE(event).length;
  return total;
}

function feed(source) {
  source.next({ type: "headers", status: 200, headers: new Headers({ "content-type": "text/event-stream" }) });
  for (let at = 0; at < bytes.length; at += CHUNK) {
    source.next({ type: "data", data: new Uint8Array(bytes.buffer, bytes.byteOffset + at, Math.min(CHUNK, bytes.length - at)) });
  }
  source.complete();
}

function decodeOnce() {
  return new Promise((resolve, reject) => {
    const source = new Subject();
    let count = 0;
    transformHttpEventStream(source)
      .pipe(enforceEvents())
      .subscribe({ next: () => (count += 1), error: reject, complete: () => resolve(count) });
    feed(source);
  });
}

function parseAndSchemaOnce() {
  return new Promise((resolve, reject) => {
    const source = new Subject();
    let count = 0;
    parseSSEStream(source).subscribe({
      next: (event) => {
        EventSchemas.parse(event);
        count += 1;
      },
      error: reject,
      complete: () => resolve(count),
    });
    feed(source);
  });
}

async function best(name, run) {
  let bestMs = Infinity;
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    const result = await run();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (name !== "encode" && result !== events.length) {
      throw new Error(`decoded ${result} events, expected ${events.length}`);
    }
    bestMs = Math.min(bestMs, ms);
  }
  const rate = events.length / (bestMs / 1000);
  return { name, events: events.length, best_ms: Number(bestMs.toFixed(1)), events_per_sec: Math.round(rate) };
}

const results = [
  await best("encode", encodeOnce),
  await best("decode", decodeOnce),
  await best("decode_parse_and_schema", parseAndSchemaOnce),
];
for (const r of results) {
  console.log(`reference ${r.name}: ${r.events} events, best ${r.best_ms} ms, ${(r.events_per_sec / 1e6).toFixed(3)} M events/s`);
}
console.log(JSON.stringify(results));
