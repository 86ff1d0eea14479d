// Runs one agent through the official HttpAgent of four @ag-ui/client releases: 0.0.42, 0.0.52
// and 0.0.59 (pre-1.0: they send no protocolVersion, so the server downgrades their stream;
// 0.0.59 is what @copilotkit/runtime 1.75 uses) and 1.0.0 (sends protocolVersion "1.0"), for
// `crates/ag-ui-cli/tests/cli/serve.rs`.
//
// Usage: node interop/client/old_clients.mjs URL QUESTION
// Prints one JSON object keyed by client version: { sent (the request body's protocolVersion,
// or null), error (a string, or null), eventTypes (as the client's subscriber saw them, after
// its own validation), messages (the agent's messages after the run), pendingInterrupts (the
// client's, or null for a client without them), resumed (when the client held interrupts and
// can answer them: { sent, error, resume (what the request carried), messages } of a second
// run answering each with {approved: true}) }.
import { HttpAgent as Agent100 } from "@ag-ui/client";
import { HttpAgent as Agent0042 } from "ag-ui-client-0042";
import { HttpAgent as Agent0052 } from "ag-ui-client-0052";
import { HttpAgent as Agent0059 } from "ag-ui-client-0059";

const [url, question] = process.argv.slice(2);
if (!url || question === undefined) {
  console.error("usage: node old_clients.mjs URL QUESTION");
  process.exit(2);
}

// Records the protocolVersion and resume each request declares, then sends it on unchanged.
const realFetch = globalThis.fetch;
let sent;
let sentResume;
globalThis.fetch = (input, init) => {
  try {
    const body = JSON.parse(init.body);
    sent = body.protocolVersion ?? null;
    sentResume = body.resume ?? null;
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
  const out = {
    sent: sent ?? null,
    error,
    eventTypes,
    messages: agent.messages,
    pendingInterrupts: agent.pendingInterrupts ?? null,
  };
  if (Array.isArray(agent.pendingInterrupts) && agent.pendingInterrupts.length > 0) {
    const resume = agent.pendingInterrupts.map((i) => ({
      interruptId: i.id,
      status: "resolved",
      payload: { approved: true },
    }));
    sent = undefined;
    sentResume = undefined;
    let resumeError = null;
    try {
      await agent.runAgent({ runId: "run-old-2", resume });
    } catch (e) {
      resumeError = String(e && e.message ? e.message : e);
    }
    out.resumed = {
      sent: sent ?? null,
      error: resumeError,
      resume: sentResume ?? null,
      messages: agent.messages,
      pendingInterrupts: agent.pendingInterrupts,
    };
  }
  return out;
}

const out = {};
out["0.0.42"] = await runWith(Agent0042);
out["0.0.52"] = await runWith(Agent0052);
out["0.0.59"] = await runWith(Agent0059);
out["1.0.0"] = await runWith(Agent100);
console.log(JSON.stringify(out));
