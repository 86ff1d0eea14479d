// Times the reference client (@ag-ui/client 1.0.0) on the shared benchmark workload, for the
// ratios reported against `cargo bench --bench client`.
//
//   cargo run --release -p ag-ui --example workload -- jsonl explicit 97   > /tmp/wl-97.jsonl
//   (likewise 485 and 2000 messages: about 10k, 50k and 206k events)
//   node interop/bench/client.mjs /tmp/wl-97.jsonl /tmp/wl-485.jsonl /tmp/wl-2000.jsonl
//
// For each file: (1) `defaultApplyEvents` alone over the parsed events (the reducer);
// (2) `HttpAgent.runAgent` against a local Node HTTP server streaming the same events as SSE
// (decode, chunk expansion, verification, reduction: the full client pipeline). A measurement
// whose previous size took longer than BUDGET seconds is skipped (the reference is quadratic).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { defaultApplyEvents, HttpAgent } from '@ag-ui/client';
import { from } from 'rxjs';

const BUDGET = Number(process.env.BUDGET ?? 90);
console.warn = () => {};
console.debug = () => {};

async function timeReducer(events) {
  const input = { threadId: 't', runId: 'r', state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
  const agent = { messages: [], state: {}, pendingInterrupts: [] };
  const t0 = process.hrtime.bigint();
  // Keep only the latest update, as an agent does (collecting them all would hold a deep copy of
  // the whole conversation per event).
  await new Promise((resolve, reject) => {
    defaultApplyEvents(input, from(events), agent, []).subscribe({
      next: (update) => {
        if (update.messages) agent.messages = update.messages;
        if (update.state) agent.state = update.state;
      },
      error: reject,
      complete: resolve,
    });
  });
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

async function timeRunAgent(sse) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Stream in 64 KiB pieces, as a socket would deliver them.
      for (let i = 0; i < sse.length; i += 65536) res.write(sse.subarray(i, i + 65536));
      res.end();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  const agent = new HttpAgent({ url: `http://127.0.0.1:${port}/`, threadId: 'thread-bench' });
  const t0 = process.hrtime.bigint();
  const { newMessages } = await agent.runAgent({ runId: 'run-bench' });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  server.close();
  return { seconds, messages: newMessages.length };
}

const results = [];
let reducerOver = false;
let runOver = false;
for (const file of process.argv.slice(2)) {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
  const events = lines.map((l) => JSON.parse(l));
  const sse = Buffer.from(lines.map((l) => `data: ${l}\n\n`).join(''));
  const row = { file, events: events.length };
  if (!reducerOver) {
    const s = await timeReducer(events);
    row.reducer_s = s;
    row.reducer_events_per_s = Math.round(events.length / s);
    reducerOver = s > BUDGET;
  }
  if (!runOver) {
    const { seconds, messages } = await timeRunAgent(sse);
    row.run_agent_s = seconds;
    row.run_agent_events_per_s = Math.round(events.length / seconds);
    row.run_agent_messages = messages;
    runOver = seconds > BUDGET;
  }
  results.push(row);
  console.log(JSON.stringify(row));
}
