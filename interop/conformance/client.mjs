// Runs every scenario of `ag-ui conformance client` (the official AG-UI corpus and this
// project's) with the reference @ag-ui/client 1.0.0 HttpAgent (its schema enforcement, chunk
// expansion and verification on, as in any frontend), the way the corpus's TypeScript lane
// runs a fixture: the agent on the thread the stream answers about, the fixture's input, the
// events delivered to a subscriber, the last RUN_ERROR, console.warn as the warnings. It posts
// what the client ended with to the scenario's verdict and prints, as one JSON line, each
// scenario's {name, set, tags, verdict}.
//
// Usage: node interop/conformance/client.mjs BASE   (BASE = http://127.0.0.1:PORT)
import { HttpAgent } from "@ag-ui/client";

const base = process.argv[2];
const get = async (path) => (await fetch(base + path)).json();

// What the client says about what it strips is collected as its warnings; nothing is printed.
const warnings = [];
console.warn = (...args) => warnings.push(args.map((a) => String(a)).join(" "));
console.error = () => {};
console.log = () => {};
const print = (line) => process.stdout.write(line + "\n");

const results = [];
for (const scenario of await get("/scenarios")) {
  warnings.length = 0;
  const agent = new HttpAgent({
    url: base + scenario.path,
    ...(scenario.threadId ? { threadId: scenario.threadId } : {}),
  });
  if (scenario.input.messages.length > 0) {
    agent.messages = scenario.input.messages;
  }
  const events = [];
  let runError;
  const subscriber = {
    onEvent: ({ event }) => {
      events.push(event);
    },
    onRunErrorEvent: ({ event }) => {
      runError = event.message ?? "";
    },
  };
  const parameters = {
    ...(scenario.input.tools.length > 0 ? { tools: scenario.input.tools } : {}),
    ...(scenario.input.context.length > 0 ? { context: scenario.input.context } : {}),
    ...(scenario.input.forwardedProps !== undefined
      ? { forwardedProps: scenario.input.forwardedProps }
      : {}),
  };
  let outcome = "completed";
  let error;
  try {
    await agent.runAgent(parameters, subscriber);
    if (scenario.resume) {
      await agent.runAgent({ ...parameters, resume: scenario.resume }, subscriber);
    }
  } catch (e) {
    outcome = "failed";
    error = String(e?.message ?? e);
  }
  const observation = {
    outcome,
    ...(error !== undefined ? { error } : {}),
    ...(runError !== undefined ? { runError } : {}),
    events,
    warnings: [...warnings],
    messages: agent.messages,
    state: agent.state ?? null,
  };
  const response = await fetch(base + scenario.verdict, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(observation),
  });
  const verdict = await response.json();
  results.push({ name: scenario.name, set: scenario.set, tags: scenario.tags, verdict });
}
print(JSON.stringify(results));
