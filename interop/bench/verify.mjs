// Times the reference verifier (`verifyEvents` of @ag-ui/client 1.0.0) on a JSONL workload,
// for comparison with `cargo bench -p ag-ui --bench verify` on the same events:
//
//   cargo run --release -p ag-ui --example workload -- jsonl explicit > /tmp/workload.jsonl
//   node interop/bench/verify.mjs /tmp/workload.jsonl
//
// Parsing is outside the timed region (the Rust bench starts from decoded events too). Prints
// the best and median time of the iterations and the throughput in events per second.

import { readFileSync } from "node:fs";
import { verifyEvents } from "@ag-ui/client";
import { from } from "rxjs";

const path = process.argv[2];
const iterations = Number(process.argv[3] ?? 10);
if (!path) {
  console.error("usage: node verify.mjs <workload.jsonl> [iterations]");
  process.exit(2);
}
const events = readFileSync(path, "utf8")
  .split("\n")
  .filter((line) => line.length > 0)
  .map((line) => JSON.parse(line));

function once() {
  let n = 0;
  let failure;
  const start = process.hrtime.bigint();
  from(events)
    .pipe(verifyEvents())
    .subscribe({ next: () => (n += 1), error: (e) => (failure = e) });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (failure) throw failure;
  if (n !== events.length) throw new Error(`verified ${n} of ${events.length} events`);
  return seconds;
}

once(); // warm-up
const times = [];
for (let i = 0; i < iterations; i++) times.push(once());
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
console.log(
  JSON.stringify({
    benchmark: "reference verifyEvents",
    events: events.length,
    iterations,
    best_seconds: times[0],
    median_seconds: median,
    events_per_second: Math.round(events.length / median),
  }),
);
