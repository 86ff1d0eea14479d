// Feeds a recorded AG-UI run (the events one of this crate's agents emitted) through the real
// @ag-ui/a2ui-middleware, in front of an agent that replays it, and prints what the client then
// receives: every event after the middleware (its a2ui-surface activity among them), and the
// messages the client's reducer holds at the end (@ag-ui/client 1.0.0, verification on).
//
// Usage: node interop/a2ui/middleware.mjs < run.json
//   run.json: {"events": [...], "config": {...A2UIMiddlewareConfig}, "input": {"messages": [...],
//              "context": [...], "forwardedProps": {...}}}
// Prints JSON: {"events": [...], "messages": [...], "received": the RunAgentInput the agent got
// from the middleware (a user action in forwardedProps becomes a log_a2ui_event call there)}.
import { AbstractAgent } from "@ag-ui/client";
import { A2UIMiddleware } from "@ag-ui/a2ui-middleware";
import { Observable } from "rxjs";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { events, config = {}, input = {} } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const started = events.find((e) => e.type === "RUN_STARTED");

let received;
class Replay extends AbstractAgent {
  run(input) {
    received = input;
    return new Observable((subscriber) => {
      for (const event of events) subscriber.next(event);
      subscriber.complete();
    });
  }
}

const agent = new Replay({ threadId: started.threadId, initialMessages: input.messages ?? [] });
agent.use(new A2UIMiddleware(config));
const seen = [];
await agent.runAgent(
  { runId: started.runId, context: input.context ?? [], forwardedProps: input.forwardedProps ?? {} },
  { onEvent: ({ event }) => void seen.push(event) },
);
console.log(JSON.stringify({ events: seen, messages: agent.messages, received }));
