// Times the reference chunk expansion (@ag-ui/client 1.0.0 `transformChunks`) on the shared
// chunked workload, for comparison with `cargo bench -p ag-ui --bench chunks`.
//
//   cargo run --release -p ag-ui --example workload -- jsonl chunked > /tmp/chunked.jsonl
//   node interop/bench/chunks.mjs /tmp/chunked.jsonl        (or pipe the workload to stdin)
//
// Parsing is not timed. Each round feeds every event through a fresh `transformChunks()` as an
// rxjs `from(events)` and counts what comes out; the figure is input events per second, best and
// median of the rounds after a warm-up.
import { readFileSync } from 'node:fs';
import { transformChunks } from '@ag-ui/client';
import { from } from 'rxjs';

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = 'true';

const text = readFileSync(process.argv[2] ?? 0, 'utf8');
const events = text.split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line));

function round() {
  let emitted = 0;
  let failure;
  from(events)
    .pipe(transformChunks())
    .subscribe({ next: () => emitted++, error: (e) => (failure = e) });
  if (failure) throw failure;
  return emitted;
}

const WARMUP = 3;
const ROUNDS = 10;
let emitted = 0;
for (let i = 0; i < WARMUP; i++) emitted = round();
const seconds = [];
for (let i = 0; i < ROUNDS; i++) {
  const start = process.hrtime.bigint();
  round();
  seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
}
seconds.sort((a, b) => a - b);
const best = seconds[0];
const median = seconds[Math.floor(seconds.length / 2)];
const rate = (s) => events.length / s;
console.log(
  JSON.stringify({
    bench: 'chunks/transformChunks',
    events: events.length,
    emitted,
    best_ms: +(best * 1e3).toFixed(2),
    median_ms: +(median * 1e3).toFixed(2),
    best_events_per_s: Math.round(rate(best)),
    median_events_per_s: Math.round(rate(median)),
  }),
);
