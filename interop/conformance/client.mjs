// Runs the battery of `ag-ui conformance client` with the reference @ag-ui/client 1.0.0
// HttpAgent (its schema enforcement, chunk expansion and verification on, as in any frontend)
// and prints, as one JSON line, each scenario's verdict: {name, tags, pass, why}.
//
// Usage: node interop/conformance/client.mjs BASE   (BASE = http://127.0.0.1:PORT)
// A scenario passes when the run fails where `expected` says {"reject": …} (an error thrown, or
// a RUN_ERROR seen), or, otherwise, when the run succeeds and the agent's messages (its own
// user message aside), state and pending interrupts equal `expected`.
import { HttpAgent } from "@ag-ui/client";

const base = process.argv[2];
const get = async (path) => (await fetch(base + path)).json();

// JSON with object keys sorted, so that key order does not count.
const canonical = (value) => JSON.stringify(value, (_, v) =>
  v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
    : v);

// The reference logs warnings for what it strips or ignores; they are not the verdict.
console.warn = () => {};
console.error = () => {};
console.log = () => {};
const print = (line) => process.stdout.write(line + "\n");

const results = [];
for (const scenario of await get("/scenarios")) {
  const expected = await get(scenario.expected);
  const agent = new HttpAgent({ url: base + scenario.path, threadId: `conformance-${scenario.name}` });
  agent.addMessage({ id: "conformance-user", role: "user", content: "go" });
  let failure = null;
  const subscriber = { onRunErrorEvent: ({ event }) => { failure ??= `RUN_ERROR: ${event.message}`; } };
  try {
    await agent.runAgent({ runId: `${scenario.name}-1` }, subscriber);
    if (scenario.resume && failure === null) {
      await agent.runAgent({ runId: `${scenario.name}-2`, resume: scenario.resume }, subscriber);
    }
  } catch (e) {
    failure ??= String(e?.message ?? e);
  }
  let pass;
  let why = null;
  if (expected.reject !== undefined) {
    pass = failure !== null;
    why = pass ? `failed as expected (${expected.reject}): ${failure}` : `the run did not fail (expected ${expected.reject})`;
  } else if (failure !== null) {
    pass = false;
    why = `the run failed: ${failure}`;
  } else {
    const messages = agent.messages.filter((m) => m.id !== "conformance-user");
    const pending = (agent.pendingInterrupts ?? []).map((i) => i.id);
    const checks = [
      ["messages", canonical(messages), canonical(expected.messages)],
      ["state", canonical(agent.state ?? {}), canonical(expected.state ?? {})],
      ["pendingInterrupts", canonical(pending), canonical(expected.pendingInterrupts ?? [])],
    ];
    const wrong = checks.find(([, got, want]) => got !== want);
    pass = wrong === undefined;
    if (wrong) why = `${wrong[0]}: got ${wrong[1]}, expected ${wrong[2]}`;
  }
  results.push({ name: scenario.name, tags: scenario.tags, pass, why });
}
print(JSON.stringify(results));
