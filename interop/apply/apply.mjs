// Runs the reference reducer (@ag-ui/client 1.0.0 `defaultApplyEvents`) over every stream of a
// corpus and prints, per stream, one JSON line: the final messages, state and pending
// interrupts, which events changed messages/state, and what each RUN_FINISHED reported.
//
//   node interop/apply/apply.mjs interop/apply/corpus.jsonl
import { readFileSync } from 'node:fs';
import { defaultApplyEvents } from '@ag-ui/client';
import { from } from 'rxjs';

const file = process.argv[2] ?? new URL('./corpus.jsonl', import.meta.url).pathname;
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');

// The reducer warns on every event it cannot apply; the warnings are part of what is compared
// on the Rust side through its own values, not through this process's stderr.
console.warn = () => {};

for (const line of lines) {
  const stream = JSON.parse(line);
  const agent = { messages: structuredClone(stream.messages), state: structuredClone(stream.state), pendingInterrupts: [] };
  const input = { threadId: 't', runId: 'r', state: structuredClone(stream.state), messages: structuredClone(stream.messages), tools: [], context: [], forwardedProps: {} };
  const changes = stream.events.map(() => [false, false]);
  const finished = [];
  let current = -1;
  const subscriber = {
    onEvent: () => { current += 1; },
    onRunFinishedEvent: (p) => {
      finished.push({ outcome: p.outcome, result: p.result, pendingToolCallIds: p.pendingToolCallIds, interrupts: p.interrupts });
    },
  };
  let error;
  await new Promise((resolve) => {
    defaultApplyEvents(input, from(stream.events), agent, [subscriber]).subscribe({
      next: (update) => {
        if (current < 0) return;
        if (update.messages !== undefined) { agent.messages = update.messages; changes[current][0] = true; }
        if (update.state !== undefined) { agent.state = update.state; changes[current][1] = true; }
      },
      error: (e) => { error = String(e?.message ?? e); resolve(); },
      complete: resolve,
    });
  });
  process.stdout.write(JSON.stringify({
    name: stream.name, error, messages: agent.messages, state: agent.state,
    pendingInterrupts: agent.pendingInterrupts, changes, finished,
  }) + '\n');
}
