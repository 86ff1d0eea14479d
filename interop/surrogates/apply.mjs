// Runs raw event streams through the reference client (@ag-ui/client 1.0.0: `JSON.parse` of
// each line, then `transformChunks`, `verifyEvents` and `defaultApplyEvents`) and prints, per
// stream, one JSON line: the final messages, with every string made well formed (a lone UTF-16
// surrogate becomes U+FFFD, as encoding the text as UTF-8 renders it), or the error.
//
// The input holds streams separated by blank lines, one raw event JSON per line, so that
// escapes such as "\ud83d" reach JSON.parse exactly as a producer wrote them.
//
//   node interop/surrogates/apply.mjs <streams.txt>
import { readFileSync } from 'node:fs';
import { defaultApplyEvents, transformChunks, verifyEvents } from '@ag-ui/client';
import { from } from 'rxjs';

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = 'true';
console.warn = () => {};

const wellFormed = (value) => {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wellFormed(v)]));
  }
  return value;
};

const text = readFileSync(process.argv[2], 'utf8');
const streams = text.split(/\n\s*\n/).map((s) => s.split('\n').filter((l) => l.trim() !== '')).filter((s) => s.length > 0);
for (const lines of streams) {
  const events = lines.map((l) => JSON.parse(l));
  const agent = { messages: [], state: {}, pendingInterrupts: [] };
  const input = { threadId: 't', runId: 'r', state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
  let error;
  await new Promise((resolve) => {
    defaultApplyEvents(input, from(events).pipe(transformChunks(), verifyEvents()), agent, []).subscribe({
      next: (update) => { if (update.messages !== undefined) agent.messages = update.messages; },
      error: (e) => { error = String(e?.message ?? e); resolve(); },
      complete: resolve,
    });
  });
  process.stdout.write(JSON.stringify({ error, messages: wellFormed(agent.messages) }) + '\n');
}
