// Runs the reference compaction (@ag-ui/client 1.0.0 `compactEvents`) over every stream of a
// JSON Lines file ({"events": [...]} per line, e.g. interop/apply/corpus.jsonl) and prints,
// per stream, one JSON line: the compacted events.
//
//   node interop/compact/compact.mjs FILE
import { readFileSync } from 'node:fs';
import { compactEvents } from '@ag-ui/client';

// A delta that does not apply is reported with a warning; the output says what matters.
console.warn = () => {};

const file = process.argv[2];
if (!file) {
  console.error('usage: node compact.mjs FILE');
  process.exit(2);
}
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
const out = [];
for (const line of lines) {
  const stream = JSON.parse(line);
  out.push(JSON.stringify(compactEvents(stream.events)));
}
process.stdout.write(out.join('\n') + '\n');
