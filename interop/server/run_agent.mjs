// Drives an AG-UI endpoint with the official @ag-ui/client 1.0.0 HttpAgent (its own schema
// enforcement, chunk expansion and verification on, as in any frontend) and prints what the
// client rebuilt, as JSON.
//
// Usage: node interop/server/run_agent.mjs URL MESSAGE [--resume]
// With --resume, a second run answers every pending interrupt with {approved: true}.
import { HttpAgent } from "@ag-ui/client";

const [url, message, ...flags] = process.argv.slice(2);
const agent = new HttpAgent({ url, threadId: "interop-thread" });
agent.addMessage({ id: "u1", role: "user", content: message });

const seen = [];
const subscriber = { onEvent: ({ event }) => void seen.push(event.type) };
const first = await agent.runAgent({ runId: "interop-run-1" }, subscriber);
const out = {
  runs: [{ result: first.result ?? null, newMessageIds: first.newMessages.map((m) => m.id) }],
  pendingInterrupts: agent.pendingInterrupts ?? [],
};
if (flags.includes("--resume")) {
  const resume = (agent.pendingInterrupts ?? []).map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } }));
  const second = await agent.runAgent({ runId: "interop-run-2", resume }, subscriber);
  out.runs.push({ result: second.result ?? null, newMessageIds: second.newMessages.map((m) => m.id) });
  out.pendingInterruptsAfterResume = agent.pendingInterrupts ?? [];
}
out.messages = agent.messages;
out.state = agent.state;
out.eventTypes = seen;
console.log(JSON.stringify(out));
