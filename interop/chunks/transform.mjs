// Runs the reference chunk expansion (@ag-ui/client 1.0.0 `transformChunks`) over a corpus of
// event streams and prints one JSON line per stream:
//
//   {"events":[...]}                                         the stream expanded completely
//   {"events":[...],"error":{"kind":"chunk.…","index":N,"message":"…"}}
//                                                            expansion failed at input event N;
//                                                            `events` is what came out before it
//
//   node interop/chunks/transform.mjs interop/chunks/corpus.jsonl
//
// Each stream is fed to its own `transformChunks()` as an rxjs `from(events)`. The reference
// throws plain `Error`s; the kind is recovered from the message (see chunks.md / rules.md R52–R56).
import { readFileSync } from 'node:fs';
import { transformChunks } from '@ag-ui/client';
import { from, tap } from 'rxjs';

process.env.SUPPRESS_TRANSFORMATION_WARNINGS = 'true';

export function kindOf(message) {
  if (/^First \w+ must have a (messageId|toolCallId)$/.test(message)) return 'chunk.missing-id';
  if (/^First TOOL_CALL_CHUNK must have a toolCallName$/.test(message)) return 'chunk.missing-name';
  if (/^Ambiguous /.test(message)) return 'chunk.ambiguous';
  if (/^Cannot continue .*: chunk subagentRunId /.test(message)) return 'chunk.owner-mismatch';
  if (/^Cannot continue .*: chunk (role|name|toolCallName|parentMessageId) /.test(message)) return 'chunk.field-mismatch';
  return `unknown: ${message}`;
}

export function expand(events) {
  const out = [];
  let index = -1;
  let result;
  from(events)
    .pipe(
      tap(() => index++),
      transformChunks(),
    )
    .subscribe({
      next: (event) => out.push(event),
      error: (error) => {
        result = { events: out, error: { kind: kindOf(error.message), index, message: error.message } };
      },
      complete: () => {
        result = { events: out };
      },
    });
  // `from(array)` and the expansion are synchronous.
  if (result === undefined) throw new Error('the reference did not finish synchronously');
  return result;
}

const path = process.argv[2];
if (!path) {
  console.error('usage: node transform.mjs CORPUS.jsonl');
  process.exit(2);
}
const lines = readFileSync(path, 'utf8').split('\n').filter((line) => line.length > 0);
const output = lines.map((line) => JSON.stringify(expand(JSON.parse(line))));
process.stdout.write(output.join('\n') + '\n');
