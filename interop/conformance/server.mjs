// An AG-UI server written on the reference @ag-ui/encoder 1.0.0, for the cross-check of
// `ag-ui conformance server`: POST / streams a short run (text, a tool call, a state snapshot)
// in SSE or, when the request's Accept asks for it, protobuf (the encoder negotiates); a body
// that is not a RunAgentInput gets a JSON 4xx (400 not JSON or not an object, 422 wrong types,
// 413 over 1 MiB). Listens on 127.0.0.1 (port 0), prints `port <n>` first; exits when stdin
// closes.
import { createServer } from "node:http";
import { EventEncoder } from "@ag-ui/encoder";

const LIMIT = 1024 * 1024;

function reject(res, status, kind, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { kind, message } }));
}

function events({ threadId, runId }) {
  const id = `${runId}-a`;
  return [
    { type: "RUN_STARTED", threadId, runId },
    { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: "Hello from " },
    { type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: "@ag-ui/encoder" },
    { type: "TEXT_MESSAGE_END", messageId: id },
    { type: "TOOL_CALL_START", toolCallId: `${runId}-call`, toolCallName: "noop", parentMessageId: id },
    { type: "TOOL_CALL_ARGS", toolCallId: `${runId}-call`, delta: "{}" },
    { type: "TOOL_CALL_END", toolCallId: `${runId}-call` },
    { type: "STATE_SNAPSHOT", snapshot: { served: true } },
    { type: "RUN_FINISHED", threadId, runId },
  ];
}

const server = createServer((req, res) => {
  if (req.method !== "POST") return reject(res, 405, "method", "POST a RunAgentInput");
  const chunks = [];
  let size = 0;
  let over = false;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > LIMIT) over = true;
    else chunks.push(chunk);
  });
  req.on("end", async () => {
    if (over) return reject(res, 413, "too-large", "the body is over 1 MiB");
    let input;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return reject(res, 400, "not-json", "the body is not JSON");
    }
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
      return reject(res, 400, "not-object", "the body is not a JSON object");
    }
    if (typeof input.threadId !== "string" || typeof input.runId !== "string" || !Array.isArray(input.messages ?? [])) {
      return reject(res, 422, "invalid", "threadId and runId must be strings, messages an array");
    }
    const encoder = new EventEncoder({ accept: req.headers.accept });
    res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
    for (const event of events(input)) {
      if (res.destroyed) return;
      res.write(encoder.encodeBinary(event));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    res.end();
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`port ${server.address().port}\n`);
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
