// Runs one agent through the official HttpAgent of three @ag-ui/client releases: 0.0.42 and
// 0.0.52 (pre-1.0: they send no protocolVersion, so the server downgrades their stream) and
// 1.0.0 (sends protocolVersion "1.0"), for `crates/ag-ui-cli/tests/serve.rs`.
//
// Usage: node interop/client/old_clients.mjs URL QUESTION
// Prints one JSON object keyed by client version: { sent (the request body's protocolVersion,
// or null), error (a string, or null), eventTypes (as the client's subscriber saw them, after
// its own validation), messages (the agent's messages after the run) }.
import { HttpAgent as Agent100 } from "@ag-ui/client";
import { HttpAgent as Agent0042 } from "ag-ui-client-0042";
import { HttpAgent as Agent0052 } from "ag-ui-client-0052";

const [url, question] = process.argv.slice(2);
if (!url || question === undefined) {
  console.error("usage: node old_clients.mjs URL QUESTION");
  process.exit(2);
}

// Records the protocolVersion each request declares, then sends it on unchanged.
const realFetch = globalThis.fetch;
let sent;
globalThis.fetch = (input, init) => {
  try {
    sent = JSON.parse(init.body).protocolVersion ?? null;
  } catch {
    sent = "unreadable body";
  }
  return realFetch(input, init);
};

// The old clients log every failure and warning; the result below says what matters.
console.error = () => {};
console.warn = () => {};

async function runWith(Agent) {
  sent = undefined;
  const agent = new Agent({
    url,
    threadId: "thread-old",
    initialMessages: [{ id: "u1", role: "user", content: question }],
  });
  const eventTypes = [];
  let error = null;
  try {
    await agent.runAgent({ runId: "run-old" }, { onEvent: ({ event }) => void eventTypes.push(event.type) });
  } catch (e) {
    error = String(e && e.message ? e.message : e);
  }
  return { sent: sent ?? null, error, eventTypes, messages: agent.messages };
}

const out = {};
out["0.0.42"] = await runWith(Agent0042);
out["0.0.52"] = await runWith(Agent0052);
out["1.0.0"] = await runWith(Agent100);
console.log(JSON.stringify(out));
