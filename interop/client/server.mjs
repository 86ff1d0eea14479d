// An AG-UI agent server for the Rust client's end-to-end tests, streaming with the official
// @ag-ui/encoder 1.0.0. Listens on 127.0.0.1 (port 0) and prints `port <n>` first; then prints
// `aborted <path>` whenever a client drops a run mid-stream. Exits when stdin closes.
//
// Paths: /chat (echoes the last user message, counts turns in state), /interrupt (asks for
// approval, then answers the resume), /tool (calls the frontend tool get_weather, then reports
// its result), /slow (streams text until the client goes away), /error (401 with a JSON body),
// /auth (echoes the Authorization and x-test headers), /chunks (text as TEXT_MESSAGE_CHUNKs).
import { createServer } from 'node:http';
import { EventEncoder } from '@ag-ui/encoder';

const encoder = new EventEncoder();

function lastOf(messages, role) {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === role) return messages[i];
  return undefined;
}

function text(id, delta) {
  return [
    { type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta },
    { type: 'TEXT_MESSAGE_END', messageId: id },
  ];
}

function events(path, input, headers) {
  const { threadId, runId } = input;
  const started = { type: 'RUN_STARTED', threadId, runId };
  const finished = { type: 'RUN_FINISHED', threadId, runId };
  switch (path) {
    case '/chat': {
      const user = lastOf(input.messages, 'user');
      const turns = input.messages.filter((m) => m.role === 'user').length;
      return [started, ...text(`${runId}-a`, `echo: ${user?.content ?? ''}`), { type: 'STATE_SNAPSHOT', snapshot: { turns } }, finished];
    }
    case '/interrupt': {
      const answer = input.resume?.find((r) => r.interruptId === 'approve-1');
      if (!answer) {
        return [started, { ...finished, outcome: { type: 'interrupt', interrupts: [{ id: 'approve-1', reason: 'confirm', message: 'Send the email?' }] } }];
      }
      return [started, ...text(`${runId}-a`, `resumed: ${answer.status} ${JSON.stringify(answer.payload ?? null)}`), { ...finished, result: { sent: answer.status === 'resolved' } }];
    }
    case '/tool': {
      const last = input.messages[input.messages.length - 1];
      if (last?.role === 'tool') {
        return [started, ...text(`${runId}-a`, `The weather: ${last.content}`), finished];
      }
      const offered = input.tools.map((t) => t.name).join(',');
      return [
        started,
        ...text(`${runId}-a`, `tools offered: ${offered}`),
        { type: 'TOOL_CALL_START', toolCallId: `${runId}-call`, toolCallName: 'get_weather', parentMessageId: `${runId}-a` },
        { type: 'TOOL_CALL_ARGS', toolCallId: `${runId}-call`, delta: '{"city":' },
        { type: 'TOOL_CALL_ARGS', toolCallId: `${runId}-call`, delta: '"Paris"}' },
        { type: 'TOOL_CALL_END', toolCallId: `${runId}-call` },
        finished,
      ];
    }
    case '/auth':
      return [started, ...text(`${runId}-a`, `${headers.authorization} ${headers['x-test']} ${headers.accept}`), finished];
    case '/chunks':
      return [
        started,
        { type: 'TEXT_MESSAGE_CHUNK', messageId: `${runId}-a`, delta: 'Hel' },
        { type: 'TEXT_MESSAGE_CHUNK', delta: 'lo' },
        { type: 'THINKING_START' },
        { type: 'THINKING_TEXT_MESSAGE_START' },
        { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'mm' },
        { type: 'THINKING_TEXT_MESSAGE_END' },
        { type: 'THINKING_END' },
        finished,
      ];
    default:
      return undefined;
  }
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => { body += d; });
  req.on('end', () => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/error') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'no token' }));
      return;
    }
    let input;
    try { input = JSON.parse(body); } catch { res.writeHead(400); res.end('bad json'); return; }
    res.writeHead(200, { 'content-type': encoder.getContentType() });
    if (path === '/slow') {
      const id = `${input.runId}-a`;
      res.write(encoder.encode({ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId }));
      res.write(encoder.encode({ type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant' }));
      let n = 0;
      const timer = setInterval(() => res.write(encoder.encode({ type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: `${n++} ` })), 10);
      res.on('close', () => { clearInterval(timer); process.stdout.write(`aborted ${path}\n`); });
      // A bound, so that a client that never aborts cannot keep this going: 30 s.
      setTimeout(() => { clearInterval(timer); res.end(); }, 30000).unref();
      return;
    }
    const out = events(path, input, req.headers);
    if (!out) { res.end(); return; }
    for (const e of out) res.write(encoder.encode(e));
    res.end();
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`port ${server.address().port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
