// Reference transport throughput: a Node http server streams the workload with
// @ag-ui/encoder's EventEncoder, and the @ag-ui/client transport pipeline (fetch,
// runHttpRequest, transformHttpEventStream, enforceEvents) reads it back as validated events.
//
// Usage: node interop/bench/http.mjs WORKLOAD.jsonl [RUNS]
// Prints one JSON line: {"events": N, "seconds": S, "eventsPerSecond": R}.
import { readFileSync } from "node:fs";
import http from "node:http";
import { EventEncoder } from "@ag-ui/encoder";
import { runHttpRequest, transformHttpEventStream, enforceEvents } from "@ag-ui/client";

const [file, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 3);
const events = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const encoder = new EventEncoder();
    res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
    let i = 0;
    const pump = () => {
      while (i < events.length) {
        const ok = res.write(encoder.encodeSSE(events[i++]));
        if (!ok) return res.once("drain", pump);
      }
      res.end();
    };
    pump();
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;

const quiet = { warn() {}, log() {}, error() {}, debug() {}, info() {} };
const origWarn = console.warn;

async function once() {
  let count = 0;
  await new Promise((resolve, reject) => {
    const source$ = runHttpRequest(() =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ threadId: "t", runId: "r", protocolVersion: "1.0", messages: [] }),
      }),
    );
    enforceEvents()(transformHttpEventStream(source$)).subscribe({
      next: () => count++,
      error: reject,
      complete: resolve,
    });
  });
  if (count !== events.length) throw new Error(`received ${count} of ${events.length} events`);
}

console.warn = quiet.warn;
await once(); // warm-up
const start = process.hrtime.bigint();
for (let r = 0; r < runs; r++) await once();
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.warn = origWarn;
server.close();
console.log(JSON.stringify({ events: events.length, seconds: seconds / runs, eventsPerSecond: (events.length * runs) / seconds }));
