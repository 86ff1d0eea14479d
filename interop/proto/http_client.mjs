// Runs one request against an AG-UI endpoint through the official client's HTTP path
// (@ag-ui/client 1.0.0: runHttpRequest + transformHttpEventStream, which picks the protobuf or
// the SSE parser by the response's Content-Type), for `crates/ag-ui/tests/axum_proto.rs`.
//
// Usage: node interop/proto/http_client.mjs URL ACCEPT
// Prints one JSON object: { status, contentType, events (as the client emitted them), error }.
import { runHttpRequest, transformHttpEventStream } from "@ag-ui/client";

const [url, accept] = process.argv.slice(2);
if (!url || accept === undefined) {
  console.error("usage: node http_client.mjs URL ACCEPT");
  process.exit(2);
}
const body = JSON.stringify({
  threadId: "t1",
  runId: "r1",
  protocolVersion: "1.0",
  messages: [{ id: "u1", role: "user", content: "hi" }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
});
let status = null;
let contentType = null;
const request = () =>
  fetch(url, { method: "POST", headers: { "Content-Type": "application/json", Accept: accept }, body }).then((r) => {
    status = r.status;
    contentType = r.headers.get("content-type");
    return r;
  });
const out = await new Promise((resolve) => {
  const events = [];
  transformHttpEventStream(runHttpRequest(request)).subscribe({
    next: (e) => events.push(e),
    error: (e) => resolve({ events, error: String(e) }),
    complete: () => resolve({ events }),
  });
});
console.log(JSON.stringify({ status, contentType, ...out }));
