// Times the reference binary transport (@ag-ui/encoder, @ag-ui/proto and @ag-ui/client 1.0.0)
// on the shared workload, for comparison with `cargo bench -p ag-ui --features proto --bench proto`
// run on the same machine.
//
//   cargo run --release -p ag-ui --example workload -- jsonl explicit > /tmp/workload.jsonl
//   node interop/bench/proto.mjs /tmp/workload.jsonl [rounds]
//
// * encode: EventEncoder.encodeBinary (a framed message, what a server writes) of every event,
//   parsed beforehand.
// * decode: the framed stream, fed in 64 KiB chunks, to events the way the client reads a
//   protobuf response: transformHttpEventStream (frame reassembly and @ag-ui/proto decode).
// * decode_messages: @ag-ui/proto decode of every message alone (no framing, no rxjs).
// Prints the best of `rounds` (default 5) for each in events per second, and bytes per event of
// the framed stream.
import { readFileSync } from "node:fs";
import { EventEncoder } from "@ag-ui/encoder";
import { AGUI_MEDIA_TYPE, decode } from "@ag-ui/proto";
import { transformHttpEventStream } from "@ag-ui/client";
import { Subject } from "rxjs";

const path = process.argv[2];
if (!path) {
  console.error("usage: node proto.mjs <workload.jsonl> [rounds]");
  process.exit(2);
}
const rounds = Number(process.argv[3] ?? 5);
const events = readFileSync(path, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const encoder = new EventEncoder({ accept: AGUI_MEDIA_TYPE });
const frames = events.map((e) => encoder.encodeBinary(e));
const stream = Buffer.concat(frames);
const messages = frames.map((f) => f.subarray(4));
const CHUNK = 64 * 1024;

function encodeOnce() {
  let total = 0;
  for (const event of events) total += encoder.encodeBinary(event).length;
  return total;
}

function decodeOnce() {
  return new Promise((resolve, reject) => {
    const source = new Subject();
    let count = 0;
    transformHttpEventStream(source).subscribe({ next: () => (count += 1), error: reject, complete: () => resolve(count) });
    source.next({ type: "headers", status: 200, headers: new Headers({ "content-type": AGUI_MEDIA_TYPE }) });
    for (let at = 0; at < stream.length; at += CHUNK) {
      source.next({ type: "data", data: new Uint8Array(stream.buffer, stream.byteOffset + at, Math.min(CHUNK, stream.length - at)) });
    }
    source.complete();
  });
}

function decodeMessagesOnce() {
  let count = 0;
  for (const m of messages) if (decode(m)) count += 1;
  return count;
}

async function best(name, run) {
  let bestMs = Infinity;
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    const result = await run();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (name !== "encode" && result !== events.length) throw new Error(`${name}: ${result} events, expected ${events.length}`);
    bestMs = Math.min(bestMs, ms);
  }
  return { name, events: events.length, best_ms: Number(bestMs.toFixed(1)), events_per_sec: Math.round(events.length / (bestMs / 1000)) };
}

const results = [await best("encode", encodeOnce), await best("decode", decodeOnce), await best("decode_messages", decodeMessagesOnce)];
for (const r of results) {
  console.log(`reference ${r.name}: ${r.events} events, best ${r.best_ms} ms, ${(r.events_per_sec / 1e6).toFixed(3)} M events/s`);
}
console.log(`reference framed stream: ${stream.length} bytes, ${(stream.length / events.length).toFixed(2)} bytes/event`);
console.log(JSON.stringify({ results, bytes: stream.length }));
