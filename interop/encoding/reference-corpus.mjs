// Writes a corpus encoded by the reference encoder, for the Rust decoder to read back.
//
// Usage: node reference-corpus.mjs [events.jsonl]
// The corpus is a hand-written set covering all 31 event types (written as a JavaScript
// producer would: its own key order, optional fields absent or explicitly null, which the
// encoder omits) plus, when given, every event of `events.jsonl`. Each event is encoded with
// @ag-ui/encoder's encodeSSE and what it put on the wire is validated with the 1.0 schemas.
// Prints JSON on stdout: {sse: <the concatenated frames>, expected: [<each event as the
// reference put it on the wire, parsed back>]}.
import { readFileSync } from "node:fs";
import { EventSchemas } from "@ag-ui/core/schemas";
import { EventEncoder } from "@ag-ui/encoder";

const meta = { traceId: null, "ag-ui": { n: 1 }, nested: [1, "x", null] };
const input = {
  threadId: "t1",
  runId: "r1",
  protocolVersion: "1.0",
  state: { count: 1, list: [null] },
  messages: [
    { id: "u1", role: "user", content: [{ type: "text", text: "look" }, { type: "image", source: { type: "url", value: "https://x/y.png" } }] },
    { id: "a1", role: "assistant", toolCalls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{\"a\":1}" } }] },
    { id: "t1", role: "tool", toolCallId: "c1", content: "ok", error: "partial" },
  ],
  tools: [{ name: "f", description: "does f", parameters: { type: "object" } }],
  context: [{ description: "d", value: "v" }],
  forwardedProps: {},
  resume: [{ interruptId: "i0", status: "resolved", payload: { approved: true } }],
};
const corpus = [
  { type: "RUN_STARTED", threadId: "t1", runId: "r1", parentRunId: "r0", protocolVersion: "1.0", input, timestamp: 1700000000000 },
  { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant", name: "Bot", metadata: meta },
  { messageId: "m1", type: "TEXT_MESSAGE_CONTENT", delta: "héllo \"world\"\n✓ 🎉" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "" },
  { type: "TEXT_MESSAGE_END", messageId: "m1", rawEvent: { provider: "x", n: 1.5 } },
  { type: "TEXT_MESSAGE_CHUNK", messageId: "m2", role: "user", delta: "d", name: null },
  { type: "TEXT_MESSAGE_CHUNK" },
  { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "search", parentMessageId: "m1", subagentRunId: "s1" },
  { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: "{\"q\":" },
  { type: "TOOL_CALL_END", toolCallId: "c1" },
  { type: "TOOL_CALL_CHUNK", toolCallId: "c2", toolCallName: "f", parentMessageId: null, delta: "{}" },
  { type: "TOOL_CALL_RESULT", messageId: "tm1", toolCallId: "c1", content: "sunny, 21°C", role: "tool" },
  { type: "TOOL_CALL_RESULT", messageId: "tm2", toolCallId: "c2", content: [{ type: "text", text: "t", metadata: { source: "s" } }, { type: "document", source: { type: "file", value: "file-1", provider: "openai" }, id: "p1" }] },
  { type: "STATE_SNAPSHOT", snapshot: null },
  { type: "STATE_SNAPSHOT", snapshot: { a: [1, 2, { b: null }], c: "d" }, subagentRunId: "s1" },
  { type: "STATE_DELTA", delta: [{ op: "add", path: "/a/-", value: null }, { op: "remove", path: "/c" }, { op: "replace", path: "", value: {} }, { op: "move", from: "/x", path: "/y" }, { op: "copy", from: "/y", path: "/z~1w" }, { op: "test", path: "/z", value: 3 }] },
  { type: "MESSAGES_SNAPSHOT", messages: [
    { id: "d1", role: "developer", content: "dev" },
    { id: "s1", role: "system", content: "sys", name: "sys" },
    { id: "a2", role: "assistant", content: "hi", encryptedValue: "enc", subagentRunId: "s1" },
    { id: "u2", role: "user", content: "hey", metadata: { k: null } },
    { id: "tm3", role: "tool", toolCallId: "c1", content: [{ type: "audio", source: { type: "data", value: "AAAA", mimeType: "audio/wav" } }] },
    { id: "act1", role: "activity", activityType: "PLAN", content: { steps: [] } },
    { id: "r1", role: "reasoning", content: "because" },
  ] },
  { type: "ACTIVITY_SNAPSHOT", messageId: "act1", activityType: "PLAN", content: { steps: ["a", null] }, replace: false },
  { type: "ACTIVITY_DELTA", messageId: "act1", activityType: "PLAN", patch: [{ op: "add", path: "/steps/-", value: "b" }] },
  { type: "RAW", event: null, source: "openai" },
  { type: "RAW", event: [1, "two", { three: 3 }] },
  { type: "CUSTOM", name: "ping", value: null },
  { type: "CUSTOM", name: "obj", value: { a: null } },
  { type: "STEP_STARTED", stepName: "plan" },
  { type: "STEP_FINISHED", stepName: "plan" },
  { type: "REASONING_START", messageId: "r1" },
  { type: "REASONING_MESSAGE_START", messageId: "r1", role: "reasoning" },
  { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "think" },
  { type: "REASONING_MESSAGE_END", messageId: "r1" },
  { type: "REASONING_MESSAGE_CHUNK", messageId: "r2", delta: "more" },
  { type: "REASONING_END", messageId: "r1" },
  { type: "REASONING_ENCRYPTED_VALUE", subtype: "tool-call", entityId: "c1", encryptedValue: "opaque" },
  { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "m1", encryptedValue: "opaque" },
  { type: "SUBAGENT_STARTED", subagentRunId: "s1", name: "researcher", description: "finds", parentSubagentRunId: "s0", parentToolCallId: "c1", parentMessageId: "m1" },
  { type: "SUBAGENT_FINISHED", subagentRunId: "s1", result: { found: true }, outcome: { type: "suspended", interruptIds: ["i1"] } },
  { type: "SUBAGENT_FINISHED", subagentRunId: "s2", outcome: { type: "success" } },
  { type: "SUBAGENT_ERROR", subagentRunId: "s3", message: "boom", code: "E1" },
  { type: "RUN_FINISHED", threadId: "t1", runId: "r1", result: "done", outcome: { type: "interrupt", interrupts: [
    { id: "i1", reason: "tool_call", toolCallId: "c1", message: "ok?", responseSchema: { type: "object" }, expiresAt: "2030-01-01T00:00:00Z", metadata: { a: 1 }, subagentRunId: "s1" },
    { id: "i2", reason: "confirmation" },
  ] }, usage: [{ provider: "openai", model: "gpt", inputTokens: 10, outputTokens: 5, totalTokens: 15, reasoningTokens: 1, cachedInputTokens: 2, cacheWriteInputTokens: 3 }, {}] },
  { type: "RUN_FINISHED", threadId: "t1", runId: "r2", outcome: { type: "success", pendingToolCallIds: ["c9"] } },
  { type: "RUN_FINISHED", threadId: "t1", runId: "r3", outcome: { type: "cancelled" } },
  { type: "RUN_ERROR", message: "failed", code: "abort", usage: [{ provider: "anthropic" }] },
];

const file = process.argv[2];
if (file) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() !== "") corpus.push(JSON.parse(line));
  }
}

const encoder = new EventEncoder();
let sse = "";
const expected = [];
corpus.forEach((event, index) => {
  const frame = encoder.encodeSSE(event);
  const wire = JSON.parse(frame.slice("data: ".length));
  const checked = EventSchemas.safeParse(wire);
  if (!checked.success) {
    console.error(`corpus event ${index} (${event.type}) is invalid: ${JSON.stringify(checked.error.issues)}`);
    process.exit(1);
  }
  sse += frame;
  expected.push(wire);
});
const types = new Set(expected.map((e) => e.type));
console.log(JSON.stringify({ sse, expected, types: types.size }));
