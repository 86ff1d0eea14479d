// Times the reference compaction (@ag-ui/client 1.0.0 `compactEvents`) on the shared workload,
// for comparison with `cargo bench -p ag-ui --bench compact`.
//
//   cargo run --release -p ag-ui --example workload -- jsonl > /tmp/workload.jsonl
//   node interop/bench/compact.mjs /tmp/workload.jsonl        (or pipe the workload to stdin)
//
// Parsing is not timed. Each round compacts the whole event array (and a quarter of it, to see
// whether the time per event grows with the input); the figure is input events per second, best
// and median of the rounds after a warm-up.
import { readFileSync } from 'node:fs';
import { compactEvents } from '@ag-ui/client';

console.warn = () => {};

const text = readFileSync(process.argv[2] ?? 0, 'utf8');
const all = text.split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line));

function time(events) {
  const WARMUP = 3;
  const ROUNDS = 10;
  for (let i = 0; i < WARMUP; i++) compactEvents(events);
  const seconds = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = process.hrtime.bigint();
    compactEvents(events);
    seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  seconds.sort((a, b) => a - b);
  const best = seconds[0];
  const median = (seconds[4] + seconds[5]) / 2;
  const rate = (s) => `${(events.length / s / 1e6).toFixed(2)} M events/s`;
  return `${events.length} events: best ${(best * 1e3).toFixed(1)} ms (${rate(best)}), median ${(median * 1e3).toFixed(1)} ms (${rate(median)})`;
}

// A quarter of the messages: the workload's first quarter, closed with its RUN_FINISHED.
const quarterEnd = all.findIndex((e) => e.type === 'TEXT_MESSAGE_START' && e.messageId === 'msg-500');
const quarter = [...all.slice(0, quarterEnd), all[all.length - 1]];
console.log(`compactEvents quarter: ${time(quarter)}`);
console.log(`compactEvents full:    ${time(all)}`);
