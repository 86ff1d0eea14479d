// Drives a model-backed AG-UI agent with the official @ag-ui/client 1.0.0 HttpAgent (its own
// verification on) across two runs: the first offers a frontend tool and ends with that call
// pending; the script answers it as a frontend would, and the second run continues.
//
// Usage: node interop/llm/run_model_agent.mjs URL MESSAGE
// Prints JSON: the messages and state the client rebuilt, and every event it saw.
import { HttpAgent } from "@ag-ui/client";

const [url, message] = process.argv.slice(2);
const agent = new HttpAgent({ url, threadId: "model-thread" });
agent.addMessage({ id: "u1", role: "user", content: message });
const tools = [
  {
    name: "show_map",
    description: "Shows a city on the user's map",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];

const events = [];
const subscriber = { onEvent: ({ event }) => void events.push(event) };
const first = await agent.runAgent({ runId: "model-run-1", tools }, subscriber);

// Answer every frontend tool call the run left pending.
const finished = events.filter((e) => e.type === "RUN_FINISHED").at(-1);
const pending = finished?.outcome?.pendingToolCallIds ?? [];
for (const [i, id] of pending.entries()) {
  agent.addMessage({ id: `frontend-result-${i + 1}`, role: "tool", toolCallId: id, content: "the map shows it" });
}
const runs = [{ newMessageIds: first.newMessages.map((m) => m.id), pending }];
if (pending.length > 0) {
  const second = await agent.runAgent({ runId: "model-run-2", tools }, subscriber);
  runs.push({ newMessageIds: second.newMessages.map((m) => m.id) });
}
console.log(JSON.stringify({ runs, messages: agent.messages, state: agent.state, events }));
