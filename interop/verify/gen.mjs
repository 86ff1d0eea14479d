// Generates the differential corpus for the ordering verifier and records the reference's
// verdict on every stream. Deterministic (fixed seed, own PRNG), so regenerating gives the
// same file byte for byte:
//
//   node interop/verify/gen.mjs > crates/ag-ui/tests/data/verify_corpus.json
//
// The corpus holds hand-written edge cases (every rule, accepted and rejected, and the
// "must be accepted" cases of rules.md) and generated streams: random interleavings of runs,
// text messages, tool calls, reasoning spans and messages, steps, subagents, results,
// snapshots, activities, encrypted values and chunks, mostly valid with occasional random
// (often invalid) events. Every event is schema-valid, so the Rust side can decode it.

import { verdict } from "./verdicts.mjs";

const SEED = 0x5eed_a601;
const GENERATED = 700;

// ---------- event builders ----------
const tagged = (e, tag) => (tag === undefined ? e : { ...e, subagentRunId: tag });
const RS = (messages) => ({
  type: "RUN_STARTED",
  threadId: "t",
  runId: "r",
  ...(messages ? { input: { threadId: "t", runId: "r", messages, tools: [], context: [] } } : {}),
});
const RF = () => ({ type: "RUN_FINISHED", threadId: "t", runId: "r" });
const RE = () => ({ type: "RUN_ERROR", message: "boom" });
const TMS = (id, tag) => tagged({ type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" }, tag);
const TMC = (id, tag) => tagged({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: "x" }, tag);
const TME = (id, tag) => tagged({ type: "TEXT_MESSAGE_END", messageId: id }, tag);
const TMK = (id, tag) =>
  tagged({ type: "TEXT_MESSAGE_CHUNK", ...(id === undefined ? {} : { messageId: id }), delta: "c" }, tag);
const TCS = (id, tag, parent) =>
  tagged(
    {
      type: "TOOL_CALL_START",
      toolCallId: id,
      toolCallName: "search",
      ...(parent === undefined ? {} : { parentMessageId: parent }),
    },
    tag,
  );
const TCA = (id, tag) => tagged({ type: "TOOL_CALL_ARGS", toolCallId: id, delta: "{}" }, tag);
const TCE = (id, tag) => tagged({ type: "TOOL_CALL_END", toolCallId: id }, tag);
const TCK = (id, tag) =>
  tagged({ type: "TOOL_CALL_CHUNK", toolCallId: id, toolCallName: "search", delta: "{}" }, tag);
const TCR = (msg, call, tag) =>
  tagged({ type: "TOOL_CALL_RESULT", messageId: msg, toolCallId: call, content: "ok" }, tag);
const RST = (id, tag) => tagged({ type: "REASONING_START", messageId: id }, tag);
const RMS = (id, tag) => tagged({ type: "REASONING_MESSAGE_START", messageId: id, role: "reasoning" }, tag);
const RMC = (id, tag) => tagged({ type: "REASONING_MESSAGE_CONTENT", messageId: id, delta: "hm" }, tag);
const RME = (id, tag) => tagged({ type: "REASONING_MESSAGE_END", messageId: id }, tag);
const REND = (id, tag) => tagged({ type: "REASONING_END", messageId: id }, tag);
const RMK = (id, tag) => tagged({ type: "REASONING_MESSAGE_CHUNK", messageId: id, delta: "hm" }, tag);
const REV = (subtype, id, tag) =>
  tagged({ type: "REASONING_ENCRYPTED_VALUE", subtype, entityId: id, encryptedValue: "enc" }, tag);
const STS = (name, tag) => tagged({ type: "STEP_STARTED", stepName: name }, tag);
const STF = (name, tag) => tagged({ type: "STEP_FINISHED", stepName: name }, tag);
const SAS = (id, parent) => ({
  type: "SUBAGENT_STARTED",
  subagentRunId: id,
  name: "helper",
  ...(parent === undefined ? {} : { parentSubagentRunId: parent }),
});
const SAF = (id) => ({ type: "SUBAGENT_FINISHED", subagentRunId: id });
const SAE = (id) => ({ type: "SUBAGENT_ERROR", subagentRunId: id, message: "failed" });
const SS = (tag) => tagged({ type: "STATE_SNAPSHOT", snapshot: { n: 1 } }, tag);
const SD = (tag) => tagged({ type: "STATE_DELTA", delta: [{ op: "add", path: "/n", value: 2 }] }, tag);
const CU = (tag) => tagged({ type: "CUSTOM", name: "ping", value: 1 }, tag);
const RAW = (tag) => tagged({ type: "RAW", event: { any: true } }, tag);
const AS = (id, tag, replace) =>
  tagged(
    {
      type: "ACTIVITY_SNAPSHOT",
      messageId: id,
      activityType: "PLAN",
      content: { step: 1 },
      ...(replace === undefined ? {} : { replace }),
    },
    tag,
  );
const AD = (id, tag) =>
  tagged({ type: "ACTIVITY_DELTA", messageId: id, activityType: "PLAN", patch: [] }, tag);
const msg = (role, id, tag, extra = {}) => {
  const base = { id, role, ...extra };
  if (role === "activity") Object.assign(base, { activityType: "PLAN", content: {} });
  else if (role === "tool") Object.assign(base, { content: "ok", toolCallId: extra.toolCallId ?? "t1" });
  else if (role !== "assistant") Object.assign(base, { content: "text" });
  return tag === undefined ? base : { ...base, subagentRunId: tag };
};
const MS = (messages) => ({ type: "MESSAGES_SNAPSHOT", messages });

// ---------- hand-written cases ----------
const S = RS();
const handwritten = {
  // R13: a stream may end anywhere.
  empty: [],
  only_run_started: [S],
  truncated_mid_message: [S, TMS("m1"), TMC("m1")],
  // R1
  first_event_text: [TMS("m1")],
  first_event_chunk: [TMK("m1")],
  first_event_run_error: [RE()],
  run_error_then_new_run: [RE(), S, RF()],
  // R2
  after_error_finish: [S, RE(), RF()],
  after_error_second_error: [S, RE(), RE()],
  after_error_chunk: [S, RE(), TMK("m1")],
  // R3
  after_finished_text: [S, RF(), TMS("m1")],
  after_finished_second_finish: [S, RF(), RF()],
  after_finished_error_then_event: [S, RF(), RE(), CU()],
  after_finished_error_accepted: [S, RF(), RE()],
  // R4, R5
  run_started_twice: [S, RS()],
  two_runs_reuse_ids: [S, TMS("m1"), TME("m1"), RF(), S, TMS("m1"), TME("m1"), RF()],
  new_run_clears_owner: [S, TMS("m1", "s1"), TME("m1", "s1"), RF(), S, TMS("m1", "s2"), TME("m1", "s2"), RF()],
  new_run_clears_open: [S, TMS("m1"), RE(), S, TMC("m1")],
  // D1..D3: the rules of the next specification's draft, which @ag-ui/client 1.0.0 does not
  // enforce and ag_ui::verify does, ahead of it: the differential test allows these verdicts,
  // and only these, to differ (the reference accepts them).
  draft_d1_finish_names_another_run: [S, { type: "RUN_FINISHED", threadId: "t", runId: "other" }],
  draft_d2_finish_names_another_thread: [S, { type: "RUN_FINISHED", threadId: "other", runId: "r" }],
  draft_d2_second_run_on_another_thread: [
    S,
    RF(),
    { type: "RUN_STARTED", threadId: "t2", runId: "r2" },
    { type: "RUN_FINISHED", threadId: "t2", runId: "r2" },
  ],
  draft_d3_duplicate_interrupt_ids: [
    S,
    { ...RF(), outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "x" }, { id: "i", reason: "y" }] } },
  ],
  // R6
  run_error_with_everything_open: [S, STS("a"), TMS("m1"), TCS("t1"), RST("r1"), RMS("r2"), SAS("s1"), RE()],
  // R7..R12 order
  finish_with_step_and_text: [S, TMS("m1"), STS("a"), RF()],
  finish_with_subagent_step: [S, STS("a", "s1"), STS("a"), RF()],
  finish_with_texts: [S, TMS("m1"), TMS("m2"), RF()],
  finish_with_reasoning_message_and_span: [S, RST("r1"), RMS("r2"), RF()],
  finish_with_span: [S, RST("r1"), RMS("r1"), RME("r1"), RF()],
  finish_with_tool_and_subagent: [S, SAS("s1"), TCS("t1"), RF()],
  finish_with_subagent: [S, SAS("s1"), RF()],
  // R14..R17
  text_already_open: [S, TMS("m1"), TMS("m1")],
  text_not_open: [S, TMC("m1")],
  text_end_twice: [S, TMS("m1"), TME("m1"), TME("m1")],
  text_reopen: [S, TMS("m1"), TME("m1"), TMS("m1"), TMC("m1"), TME("m1"), RF()],
  text_tagged_reopen_of_parent: [S, TMS("m1"), TME("m1"), TMS("m1", "s1")],
  text_untagged_reopen_keeps_owner: [S, TMS("m1", "s1"), TME("m1"), TMS("m1"), TMC("m1", "s2")],
  text_content_wrong_owner: [S, TMS("m1", "s1"), TMC("m1", "s2")],
  text_parent_message_tagged_content: [S, TMS("m1"), TMC("m1", "s1")],
  text_empty_tag_differs_from_parent: [S, TMS("m1"), TMC("m1", "")],
  text_empty_id: [S, TMS(""), TMC(""), TME(""), RF()],
  text_reopen_result_owner: [S, TCR("m1", "t1", "s1"), TMS("m1", "s2")],
  text_interleaved: [S, TMS("m1"), TMS("m2", "s1"), TCS("t1"), TMC("m1"), TMC("m2", "s1"), TCE("t1"), TME("m2"), TME("m1"), RF()],
  // R18..R24
  tool_already_open: [S, TCS("t1"), TCS("t1")],
  tool_not_open: [S, TCA("t1")],
  tool_parent_message_mismatch: [S, TMS("m1", "s1"), TCS("t1", "s2", "m1")],
  tool_tagged_under_parent_message: [S, TMS("m1"), TCS("t1", "s1", "m1")],
  tool_inherits_owner: [S, TMS("m1", "s1"), TCS("t1", undefined, "m1"), TCA("t1", "s2")],
  tool_inherits_owner_ok: [S, TMS("m1", "s1"), TCS("t1", undefined, "m1"), TCA("t1", "s1"), TCE("t1"), TME("m1"), RF()],
  tool_reopen_wrong_tag: [S, TCS("t1", "s1"), TCE("t1"), TCS("t1", "s2")],
  tool_untagged_reopen_other_parent: [S, TMS("m1", "s1"), TCS("t1"), TCE("t1"), TCS("t1", undefined, "m1")],
  tool_unknown_parent_message: [S, TCS("t1", "s1", "nope"), TCE("t1"), RF()],
  tool_result_without_call: [S, TCR("m9", "t9"), RF()],
  tool_result_during_call: [S, TCS("t1"), TCR("m9", "t1"), TCE("t1"), RF()],
  tool_result_overwrites_owner: [S, TMS("m1", "s1"), TME("m1"), TCR("m1", "t1", "s2"), TMS("m1", "s2"), TME("m1"), RF()],
  tool_end_wrong_owner: [S, TCS("t1"), TCE("t1", "s1")],
  tool_and_text_same_id: [S, TMS("x"), TCS("x", "s1"), TCE("x", "s1"), TME("x"), RF()],
  // R25..R31
  span_already_open: [S, RST("r1"), RST("r1")],
  reasoning_message_already_open: [S, RMS("r1"), RMS("r1")],
  span_not_open: [S, RMS("r1"), REND("r1")],
  reasoning_message_not_open: [S, RST("r1"), RMC("r1")],
  span_and_message_same_id: [S, RST("r1"), RMS("r1"), RMC("r1"), RME("r1"), REND("r1"), RF()],
  reasoning_owner_mismatch_open: [S, RST("r1", "s1"), RMS("r1", "s2")],
  reasoning_owner_mismatch_close: [S, RMS("r1", "s1"), RME("r1", "s2")],
  reasoning_end_wrong_owner: [S, RST("r1"), REND("r1", "s1")],
  rev_tool_call_after_end: [S, TCS("t1", "s1"), TCE("t1"), REV("tool-call", "t1", "s2")],
  rev_tool_call_ok: [S, TCS("t1", "s1"), TCE("t1"), REV("tool-call", "t1", "s1"), RF()],
  rev_message_falls_back_to_reasoning: [S, RMS("r1", "s1"), RME("r1"), REV("message", "r1", "s2")],
  rev_unknown_entity: [S, REV("message", "zz", "s1"), RF()],
  rev_message_prefers_message_table: [S, TMS("x", "s1"), TME("x"), RMS("x", "s2"), RME("x"), REV("message", "x", "s2")],
  // R32..R34
  step_already_open: [S, STS("a"), STS("a")],
  step_same_name_two_owners: [S, STS("tools"), STS("tools", "s1"), STF("tools", "s1"), STF("tools"), RF()],
  step_subagent_closes_parent: [S, STS("a"), STF("a", "s1")],
  step_parent_closes_subagent: [S, STS("a", "s1"), STF("a")],
  step_empty_owner_differs: [S, STS("a"), STF("a", "")],
  step_not_open: [S, STF("a")],
  step_reopen_any_order: [S, STS("a"), STS("b"), STF("a"), STS("a"), STF("b"), STF("a"), RF()],
  step_subagent_finishes_step_open: [S, SAS("s1"), STS("a", "s1"), SAF("s1"), RF()],
  // R37, R38
  snapshot_seeds_owner: [S, MS([msg("assistant", "m1", "s1")]), TMS("m1", "s2")],
  snapshot_overwrites_owner: [S, TMS("m1", "s1"), MS([msg("assistant", "m1", "s2")]), TMC("m1", "s2"), TME("m1"), RF()],
  snapshot_keeps_open: [S, TMS("m1"), MS([msg("assistant", "m1")]), RF()],
  snapshot_tool_calls: [
    S,
    MS([msg("assistant", "m1", "s1", { toolCalls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }] })]),
    TCS("t1", "s2"),
  ],
  snapshot_reasoning_role: [S, MS([msg("reasoning", "r1", "s1")]), RST("r1", "s2")],
  snapshot_activity_role: [S, MS([msg("activity", "a1", "s1")]), AD("a1", "s2")],
  input_seeds_owner: [RS([msg("user", "m1", "s1")]), TMS("m1", "s2")],
  input_first_duplicate_wins: [RS([msg("user", "m1", "s1"), msg("user", "m1", "s2")]), TMS("m1", "s1"), TME("m1"), RF()],
  input_first_duplicate_wins_reject: [RS([msg("user", "m1", "s1"), msg("user", "m1", "s2")]), TMS("m1", "s2")],
  snapshot_last_duplicate_wins: [S, MS([msg("user", "m1", "s1"), msg("user", "m1", "s2")]), TMS("m1", "s2"), TME("m1"), RF()],
  // R41..R44, §6.4
  subagent_already_active: [S, SAS("s1"), SAS("s1")],
  subagent_id_reused: [S, SAS("s1"), SAF("s1"), SAS("s1")],
  subagent_unknown_parent: [S, SAS("s2", "s1")],
  subagent_parent_finished_ok: [S, SAS("s1"), SAF("s1"), SAS("s2", "s1"), SAF("s2"), RF()],
  subagent_not_active: [S, SAF("s1")],
  subagent_second_terminal: [S, SAS("s1"), SAE("s1"), SAF("s1")],
  subagent_child_outlives_parent: [S, SAS("s1"), SAS("s2", "s1"), SAF("s1"), RF()],
  subagent_never_announced_tag: [S, TMS("m1", "ghost"), TME("m1", "ghost"), RF()],
  subagent_finished_tag: [S, SAS("s1"), SAF("s1"), TMS("m1", "s1"), TME("m1", "s1"), RF()],
  subagent_open_at_error: [S, SAS("s1"), RE()],
  subagent_attributed_state: [S, SS("s1"), SD("s2"), CU("s1"), RAW("s3"), STS("x", "s4"), STF("x", "s4"), RF()],
  subagent_reuse_next_run: [S, SAS("s1"), SAF("s1"), RF(), S, SAS("s1"), SAF("s1"), RF()],
  subagent_empty_id: [S, SAS(""), TMS("m1", ""), TME("m1", ""), SAF(""), RF()],
  // R48, R49
  activity_owner_mismatch: [S, AS("a1", "s1"), AD("a1", "s2")],
  activity_replace_false_keeps_owner: [S, AS("a1", "s1"), AS("a1", "s2", false), AD("a1", "s2")],
  activity_replace_true_reowns: [S, AS("a1", "s1"), AS("a1", "s2", true), AD("a1", "s2"), RF()],
  activity_delta_unknown: [S, AD("a9", "s1"), RF()],
  // R50, R51, §8 interleaving
  unordered_inside_open_message: [S, TMS("m1"), SS(), SD(), MS([]), AS("a1"), AD("a1"), CU(), RAW(), STS("s"), STF("s"), SAS("s1"), SAF("s1"), REV("message", "m1"), TCR("m2", "t9"), TME("m1"), RF()],
  chunks_pass_through: [S, TMK("m1"), TCK("t1"), RMK("r1"), TMK(undefined), RF()],
};

// ---------- generator ----------
function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(SEED);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const chance = (p) => rand() < p;

const MSG_IDS = ["m1", "m2", "m3", ""];
const TOOL_IDS = ["t1", "t2", "t3"];
const REASON_IDS = ["r1", "r2", "m1"];
const STEPS = ["plan", "tools"];
const SUBS = ["s1", "s2", ""];
const ACTS = ["a1", "a2"];
const TAGS = [undefined, undefined, undefined, undefined, undefined, "s1", "s1", "s2", ""];

// A random event with random ids: often invalid.
function noise() {
  const tag = pick(TAGS);
  return pick([
    () => TMS(pick(MSG_IDS), tag),
    () => TMC(pick(MSG_IDS), tag),
    () => TME(pick(MSG_IDS), tag),
    () => TCS(pick(TOOL_IDS), tag, chance(0.5) ? pick(MSG_IDS) : undefined),
    () => TCA(pick(TOOL_IDS), tag),
    () => TCE(pick(TOOL_IDS), tag),
    () => RST(pick(REASON_IDS), tag),
    () => RMS(pick(REASON_IDS), tag),
    () => RMC(pick(REASON_IDS), tag),
    () => RME(pick(REASON_IDS), tag),
    () => REND(pick(REASON_IDS), tag),
    () => REV(pick(["message", "tool-call"]), pick([...MSG_IDS, ...TOOL_IDS, ...REASON_IDS]), tag),
    () => STS(pick(STEPS), tag),
    () => STF(pick(STEPS), tag),
    () => SAS(pick(SUBS), chance(0.3) ? pick(SUBS) : undefined),
    () => SAF(pick(SUBS)),
    () => SAE(pick(SUBS)),
    () => AD(pick(ACTS), tag),
    () => RS(),
    () => RF(),
    () => RE(),
  ])();
}

function generate(broken) {
  const events = [];
  const len = 4 + Math.floor(rand() * 60);
  // Model of what is open, to make mostly-valid moves.
  let phase = "start";
  let m;
  const reset = () => {
    m = {
      text: new Map(), // id -> tag
      tools: new Map(),
      spans: new Map(),
      rmsgs: new Map(),
      steps: [], // [tag, name]
      subs: new Set(),
      closedSubs: new Set(),
      owners: new Map(), // message id -> tag
      toolOwners: new Map(),
      reasonOwners: new Map(),
      actOwners: new Map(),
    };
  };
  reset();
  const tagFor = (recorded) => (chance(0.5) ? undefined : recorded);
  const freshTag = () => pick(TAGS);
  // The tag an opener uses: agree with a recorded owner, else a fresh one that is recorded.
  const openTag = (owners, id) => {
    if (owners.has(id)) return tagFor(owners.get(id));
    const tag = freshTag();
    owners.set(id, tag);
    return tag;
  };
  const firstFree = (ids, open) => ids.find((id) => !open.has(id));
  while (events.length < len) {
    if (broken && chance(0.06)) {
      events.push(noise());
      continue;
    }
    if (phase === "start" || phase === "ended") {
      if (phase === "ended" && chance(0.25)) break;
      if (chance(0.9)) {
        events.push(RS());
        reset();
        phase = "active";
      } else {
        events.push(RE());
        phase = "ended";
      }
      continue;
    }
    const r = rand();
    const moves = [];
    // Opening moves.
    const freeMsg = firstFree(MSG_IDS, m.text);
    if (freeMsg !== undefined) {
      moves.push(() => {
        const tag = m.owners.has(freeMsg) ? tagFor(m.owners.get(freeMsg)) : freshTag();
        if (!m.owners.has(freeMsg)) m.owners.set(freeMsg, tag);
        m.text.set(freeMsg, m.owners.get(freeMsg));
        return TMS(freeMsg, tag);
      });
    }
    const freeTool = firstFree(TOOL_IDS, m.tools);
    if (freeTool !== undefined) {
      moves.push(() => {
        const tag = openTag(m.toolOwners, freeTool);
        m.tools.set(freeTool, m.toolOwners.get(freeTool));
        return TCS(freeTool, tag);
      });
    }
    const freeSpan = firstFree(REASON_IDS, m.spans);
    if (freeSpan !== undefined) {
      moves.push(() => {
        const tag = openTag(m.reasonOwners, freeSpan);
        m.spans.set(freeSpan, m.reasonOwners.get(freeSpan));
        return RST(freeSpan, tag);
      });
    }
    const freeRmsg = firstFree(REASON_IDS, m.rmsgs);
    if (freeRmsg !== undefined) {
      moves.push(() => {
        const tag = openTag(m.reasonOwners, freeRmsg);
        m.rmsgs.set(freeRmsg, m.reasonOwners.get(freeRmsg));
        return RMS(freeRmsg, tag);
      });
    }
    {
      const tag = freshTag();
      const name = pick(STEPS);
      if (!m.steps.some(([t, n]) => t === tag && n === name)) {
        moves.push(() => {
          m.steps.push([tag, name]);
          return STS(name, tag);
        });
      }
    }
    const freeSub = SUBS.find((s) => !m.subs.has(s) && !m.closedSubs.has(s));
    if (freeSub !== undefined) {
      moves.push(() => {
        const parent = m.subs.size > 0 && chance(0.4) ? [...m.subs][0] : undefined;
        m.subs.add(freeSub);
        return SAS(freeSub, parent);
      });
    }
    // Continuations and closes (weighted by repetition).
    for (const [id, tag] of m.text) {
      moves.push(() => TMC(id, tagFor(tag)));
      moves.push(() => TMC(id, tagFor(tag)));
      moves.push(() => {
        m.text.delete(id);
        return TME(id, tagFor(tag));
      });
    }
    for (const [id, tag] of m.tools) {
      moves.push(() => TCA(id, tagFor(tag)));
      moves.push(() => {
        m.tools.delete(id);
        return TCE(id, tagFor(tag));
      });
    }
    for (const [id, tag] of m.spans) {
      moves.push(() => {
        m.spans.delete(id);
        return REND(id, tagFor(tag));
      });
    }
    for (const [id, tag] of m.rmsgs) {
      moves.push(() => RMC(id, tagFor(tag)));
      moves.push(() => {
        m.rmsgs.delete(id);
        return RME(id, tagFor(tag));
      });
    }
    if (m.steps.length > 0) {
      moves.push(() => {
        const [tag, name] = m.steps.splice(Math.floor(rand() * m.steps.length), 1)[0];
        return STF(name, tag);
      });
    }
    for (const s of m.subs) {
      moves.push(() => {
        m.subs.delete(s);
        m.closedSubs.add(s);
        return chance(0.7) ? SAF(s) : SAE(s);
      });
    }
    // Unordered and ownership-recording events.
    moves.push(() => pick([SS, SD, CU, RAW])(freshTag()));
    moves.push(() => {
      const id = pick(["m7", "m8", ...MSG_IDS]);
      const tag = freshTag();
      m.owners.set(id, tag);
      return TCR(id, pick(TOOL_IDS), tag);
    });
    moves.push(() => {
      const id = pick(ACTS);
      const replace = chance(0.3) ? false : undefined;
      const tag = chance(0.7) && m.actOwners.has(id) ? m.actOwners.get(id) : freshTag();
      if (!m.actOwners.has(id) || replace !== false) m.actOwners.set(id, tag);
      return AS(id, tag, replace);
    });
    moves.push(() => {
      const id = pick(ACTS);
      return AD(id, chance(0.8) ? m.actOwners.get(id) : freshTag());
    });
    moves.push(() => {
      if (chance(0.5)) {
        const id = pick(TOOL_IDS);
        return REV("tool-call", id, chance(0.8) ? m.toolOwners.get(id) : freshTag());
      }
      const id = pick(MSG_IDS);
      return REV("message", id, chance(0.8) ? m.owners.get(id) : freshTag());
    });
    if (chance(0.05)) moves.push(() => TMK(pick(MSG_IDS), freshTag()));
    if (chance(0.05)) {
      moves.push(() => {
        const list = [msg("assistant", pick(MSG_IDS), freshTag()), msg("reasoning", pick(REASON_IDS), freshTag())];
        for (const x of list) if (x.role === "assistant") m.owners.set(x.id, x.subagentRunId);
        return MS(list);
      });
    }
    // Ending the run.
    const openCount = m.text.size + m.tools.size + m.spans.size + m.rmsgs.size + m.steps.length + m.subs.size;
    if (openCount === 0 && events.length > 3) {
      moves.push(() => {
        phase = "ended";
        return RF();
      });
      moves.push(() => {
        phase = "ended";
        return RF();
      });
    }
    if (chance(0.02)) {
      moves.push(() => {
        phase = "ended";
        return RF();
      });
    }
    if (chance(0.02)) {
      moves.push(() => {
        phase = "ended";
        return RE();
      });
    }
    void r;
    events.push(pick(moves)());
  }
  // Usually close everything and finish, so long valid streams are common.
  if (phase === "active" && chance(0.7)) {
    for (const [id, tag] of m.text) events.push(TME(id, tag));
    for (const [id, tag] of m.tools) events.push(TCE(id, tag));
    for (const [id, tag] of m.rmsgs) events.push(RME(id, tag));
    for (const [id, tag] of m.spans) events.push(REND(id, tag));
    for (const [tag, name] of m.steps) events.push(STF(name, tag));
    for (const s of m.subs) events.push(SAF(s));
    events.push(RF());
  }
  return events;
}

const streams = [];
for (const [name, events] of Object.entries(handwritten)) streams.push({ name, events });
for (let i = 0; i < GENERATED; i++) {
  const broken = i % 2 === 1;
  streams.push({ name: `generated-${i}${broken ? "-noisy" : ""}`, events: generate(broken) });
}
for (const s of streams) s.verdict = verdict(s.events);

const out = {
  description:
    "Differential corpus for ag_ui::verify. Generated by interop/verify/gen.mjs (deterministic); verdicts from @ag-ui/client 1.0.0 verifyEvents via interop/verify/verdicts.mjs.",
  seed: SEED,
  streams,
};
process.stdout.write(JSON.stringify(out, null, 0).replace(/\{"name"/g, '\n{"name"') + "\n");
