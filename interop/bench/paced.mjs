// The paced agent of `bench/load.sh` on the reference stack: node:http and @ag-ui/encoder 1.0.0
// stream every run as examples/paced-agent does (RUN_STARTED, TEXT_MESSAGE_START, K text
// deltas one every P ms, the first after P, TEXT_MESSAGE_END, RUN_FINISHED), for the side by
// side with the Rust endpoint under `ag-ui load`.
//
// Usage: node interop/bench/paced.mjs [ADDR] [K] [P]   (defaults 127.0.0.1:8003, 20, 500)
// Prints `paced agent on http://HOST:PORT/`, then serves until killed. A request body over
// 1 MiB, or one that is not JSON, is answered 400.
import { createServer } from "node:http";
import { EventEncoder } from "@ag-ui/encoder";

const [addr = "127.0.0.1:8003", k = "20", p = "500"] = process.argv.slice(2);
const [host, port] = [addr.slice(0, addr.lastIndexOf(":")), Number(addr.slice(addr.lastIndexOf(":") + 1))];
const deltas = Number(k);
const every = Number(p);
const LIMIT = 1024 * 1024;
const WORDS = ["Streaming ", "one ", "delta ", "at ", "a ", "steady ", "pace. ", "\n"];

const server = createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size <= LIMIT) chunks.push(chunk);
  });
  req.on("end", () => {
    let input;
    try {
      if (size > LIMIT) throw new Error("too large");
      input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "text/plain" });
      return res.end("not a RunAgentInput");
    }
    const { threadId, runId } = input;
    const encoder = new EventEncoder({ accept: req.headers.accept });
    res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
    const id = `${runId}-m`;
    res.write(encoder.encodeSSE({ type: "RUN_STARTED", threadId, runId }));
    res.write(encoder.encodeSSE({ type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" }));
    let sent = 0;
    const end = () => {
      res.write(encoder.encodeSSE({ type: "TEXT_MESSAGE_END", messageId: id }));
      res.end(encoder.encodeSSE({ type: "RUN_FINISHED", threadId, runId }));
    };
    if (deltas === 0) return end();
    const timer = setInterval(() => {
      res.write(encoder.encodeSSE({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: WORDS[sent % WORDS.length] }));
      sent += 1;
      if (sent === deltas) {
        clearInterval(timer);
        end();
      }
    }, every);
    res.on("close", () => clearInterval(timer));
  });
});
server.listen({ port, host, backlog: 65535 }, () => {
  const { address, port: bound } = server.address();
  console.log(`paced agent on http://${address.includes(":") ? `[${address}]` : address}:${bound}/`);
});
