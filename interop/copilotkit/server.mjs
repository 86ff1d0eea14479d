// The CopilotKit app: the runtime (runtime.mjs) under /api/copilotkit and the bundled page
// (build.mjs) at /, on one node:http server.
//
//   node server.mjs --agent http://127.0.0.1:8000 [--page DIR] [--port N]
//
// Prints "copilotkit app: http://127.0.0.1:PORT" once it listens (port 0 picks a free one).
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { copilotListener } from "./runtime.mjs";

const { values } = parseArgs({
  options: {
    agent: { type: "string", default: "http://127.0.0.1:8000" },
    page: { type: "string", default: new URL("./dist", import.meta.url).pathname },
    port: { type: "string", default: "3000" },
  },
});

const runtime = copilotListener(values.agent.replace(/\/$/, ""));
const files = {
  "/": ["index.html", "text/html; charset=utf-8"],
  "/app.js": ["app.js", "text/javascript; charset=utf-8"],
  "/app.css": ["app.css", "text/css; charset=utf-8"],
};

const server = createServer(async (req, res) => {
  const path = new URL(req.url, "http://localhost").pathname;
  if (path === "/api/copilotkit" || path.startsWith("/api/copilotkit/")) {
    try {
      await runtime(req, res);
    } catch (error) {
      console.error("the runtime failed:", error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    }
    return;
  }
  const file = files[path];
  if (req.method !== "GET" || !file) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    return;
  }
  try {
    const body = await readFile(join(values.page, file[0]));
    res.writeHead(200, { "content-type": file[1], "cache-control": "no-store" }).end(body);
  } catch (error) {
    res.writeHead(500, { "content-type": "text/plain" }).end(`build the page first: ${error}`);
  }
});

server.listen(Number(values.port), "127.0.0.1", () => {
  console.log(`copilotkit app: http://127.0.0.1:${server.address().port}`);
});
