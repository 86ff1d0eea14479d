// The AG-UI Dojo's mock model for the model-driven ag-ui-dojo: @copilotkit/aimock (the mock the
// Dojo's own end-to-end suite runs) loaded with the Dojo's fixtures (fixtures/dojo, copied; see
// fixtures/ORIGIN.md) and, first, the fixtures the Dojo registers in code, restated as data
// (fixtures/ours). Strict: a request no fixture answers gets a 503, so a test never passes on
// a reply nobody wrote. Used by examples/dojo/tests/model (crates/ag-ui/tests/support/aimock.rs).
//
//   node serve.mjs [--port N] [--latency MS] [--chunk-size CHARS] [--exit-with-stdin]
//
// Prints "aimock: http://127.0.0.1:PORT/v1" once it listens (port 0, the default, picks a free
// one). With --exit-with-stdin it exits when its standard input closes, so it never outlives
// the test process that started it.
import { join } from "node:path";
import { parseArgs } from "node:util";

import { LLMock } from "@copilotkit/aimock";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    latency: { type: "string", default: "5" },
    "chunk-size": { type: "string", default: "20" },
    "exit-with-stdin": { type: "boolean", default: false },
  },
});

const fixtures = new URL("./fixtures/", import.meta.url).pathname;
const mock = new LLMock({
  host: "127.0.0.1",
  port: Number(values.port),
  strict: true,
  latency: Number(values.latency),
  chunkSize: Number(values["chunk-size"]),
  journalMaxEntries: 0,
});
// First match wins. As in the Dojo's setup: the tool-result turn and the fixtures it writes in
// code (the A2UI ones scoped by the tools a request declares), then human-in-the-loop.json (it
// shares words with agentic-gen-ui.json), then the rest.
mock.loadFixtureFile(join(fixtures, "ours", "first.json"));
mock.loadFixtureFile(join(fixtures, "ours", "a2ui.json"));
mock.loadFixtureFile(join(fixtures, "dojo", "human-in-the-loop.json"));
mock.loadFixtureDir(join(fixtures, "dojo"));

const url = await mock.start();
console.log(`aimock: ${url}/v1`);

if (values["exit-with-stdin"]) {
  process.stdin.resume();
  process.stdin.on("end", async () => {
    await mock.stop();
    process.exit(0);
  });
}
