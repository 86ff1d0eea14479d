// Runs every AG-UI Dojo feature route of `examples/dojo` through the official HttpAgent of four
// @ag-ui/client releases: 0.0.42, 0.0.52 and 0.0.59 (pre-1.0, no protocolVersion: the server
// downgrades their stream; 0.0.59 is what @copilotkit/runtime 1.75 uses) and 1.0.0, for
// `examples/dojo/tests/official_clients.rs`.
//
// Usage: node interop/client/dojo_routes.mjs BASE_URL
// Prints { "<route> <message>": { "<version>": { error, eventTypes, messages, state } } }.
// A case marked `answer` runs twice, as the Dojo page does: the first run calls a frontend
// tool, the page sends the tool's result, and the second run answers it.
import { HttpAgent as Agent100 } from "@ag-ui/client";
import { HttpAgent as Agent0042 } from "ag-ui-client-0042";
import { HttpAgent as Agent0052 } from "ag-ui-client-0052";
import { HttpAgent as Agent0059 } from "ag-ui-client-0059";

const [base] = process.argv.slice(2);
if (!base) {
  console.error("usage: node dojo_routes.mjs BASE_URL");
  process.exit(2);
}

// The old clients log every failure and warning; the result below says what matters.
console.error = () => {};
console.warn = () => {};

const cases = [
  { route: "/", message: "hi" },
  { route: "/agentic_chat", message: "hello" },
  { route: "/agentic_chat", message: "tool", answer: true },
  { route: "/agentic_chat", message: "backend_tool" },
  { route: "/backend_tool_rendering", message: "weather in SF?", answer: true },
  { route: "/human_in_the_loop", message: "plan a trip", answer: true },
  { route: "/agentic_generative_ui", message: "go" },
  { route: "/tool_based_generative_ui", message: "a haiku" },
  { route: "/tool_based_generative_ui", message: "thanks" },
  { route: "/shared_state", message: "a recipe" },
  { route: "/predictive_state_updates", message: "a story", answer: true },
];

const clients = {
  "0.0.42": Agent0042,
  "0.0.52": Agent0052,
  "0.0.59": Agent0059,
  "1.0.0": Agent100,
};

async function runCase(Agent, { route, message, answer }) {
  const agent = new Agent({
    url: `${base}${route}`,
    threadId: "dojo-thread",
    initialMessages: [{ id: "u1", role: "user", content: message }],
  });
  const eventTypes = [];
  const onEvent = ({ event }) => void eventTypes.push(event.type);
  let error = null;
  try {
    await agent.runAgent({ runId: "run-1" }, { onEvent });
    if (answer) {
      const calls = agent.messages.flatMap((m) => m.toolCalls ?? []);
      const last = calls[calls.length - 1];
      agent.addMessage({ id: "answer-1", role: "tool", toolCallId: last.id, content: "done" });
      await agent.runAgent({ runId: "run-2" }, { onEvent });
    }
  } catch (e) {
    error = String(e && e.message ? e.message : e);
  }
  return { error, eventTypes, messages: agent.messages, state: agent.state };
}

const out = {};
for (const c of cases) {
  const key = `${c.route} ${c.message}`;
  out[key] = {};
  for (const [version, Agent] of Object.entries(clients)) {
    out[key][version] = await runCase(Agent, c);
  }
}
console.log(JSON.stringify(out));
