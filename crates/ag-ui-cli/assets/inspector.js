// The AG-UI inspector page. No framework, no build step: the local server runs each turn (or
// reads each recording) through the ag-ui client pipeline and streams to this page, as SSE
// frames, what it saw: events ("ev"), the reducer's changes ("msg", "msgs", "state", "warn")
// and the end ("end", "violation", "error"). The page only draws.
"use strict";

const ROW_H = 22;
const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function pretty(value) {
  try { return JSON.stringify(value, null, 2); } catch (_) { return String(value); }
}

const sessions = new Map();
let current = null;
let counter = 0;
const metrics = { loads: [] };

function newSession(id, label, kind) {
  const session = {
    id, label, kind,
    rows: [],            // {run, i, ms, type, raw} | {run, i, violation, kind, message}
    runs: [],            // {base, label, end, events, ms, failed}
    messages: [],
    msgNodes: [],        // the drawn message elements, by index
    msgDirty: new Set(), // indexes of messages to redraw
    msgAll: true,        // redraw every message
    msgView: null,
    callOwner: new Map(), // tool call id -> index of the message holding it
    results: new Map(),   // tool call id -> its tool message
    state: {},
    stateChanges: [],    // {row, text}
    lanes: new Map(),    // subagentRunId -> lane
    laneOfMessage: new Map(),
    interrupts: [],
    status: null,
    busy: false,
    selected: -1,
  };
  sessions.set(id, session);
  return session;
}

function freshThreadId() {
  counter += 1;
  return "thread-" + Date.now().toString(36) + "-" + counter;
}

// ---- drawing, at most once a frame ------------------------------------------------------

const dirty = { timeline: false, messages: false, state: false, lanes: false, status: false, threads: false };
let frameRequested = false;

function invalidate(...parts) {
  for (const p of parts) dirty[p] = true;
  if (!frameRequested) {
    frameRequested = true;
    requestAnimationFrame(draw);
  }
}

function draw() {
  frameRequested = false;
  if (!current) return;
  if (dirty.timeline) drawTimeline();
  if (dirty.messages) drawMessages();
  if (dirty.state) drawState();
  if (dirty.lanes) drawLanes();
  if (dirty.status) drawStatus();
  if (dirty.threads) drawThreads();
  for (const k of Object.keys(dirty)) dirty[k] = false;
  const load = metrics.pending;
  if (load && load.firstPaintMs === undefined && current.rows.length > 0) {
    // Painted in this frame: the next frame starts after it.
    requestAnimationFrame(() => {
      if (load.firstPaintMs === undefined) load.firstPaintMs = performance.now() - load.started;
    });
  }
}

// The timeline holds only the rows in view (fixed height, a spacer gives the scroll height),
// so a recording of hundreds of thousands of events scrolls like a short one.
function drawTimeline() {
  const box = $("timeline");
  const rows = current.rows;
  $("timeline-spacer").style.height = rows.length * ROW_H + "px";
  $("event-count").textContent = rows.length + " events";
  if ($("follow").checked) box.scrollTop = box.scrollHeight;
  const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - 4);
  const last = Math.min(rows.length, Math.ceil((box.scrollTop + box.clientHeight) / ROW_H) + 4);
  const frag = document.createDocumentFragment();
  for (let n = first; n < last; n++) frag.appendChild(timelineRow(rows[n], n));
  $("timeline-rows").replaceChildren(frag);
}

function summary(event) {
  const parts = [];
  // What the event says first, then what it is about.
  if (typeof event.delta === "string") parts.push(JSON.stringify(event.delta));
  else if (Array.isArray(event.delta)) parts.push(event.delta.map((op) => op.op + " " + op.path).join(", "));
  if (typeof event.content === "string") parts.push(JSON.stringify(event.content));
  for (const key of ["toolCallName", "stepName", "name", "role", "messageId", "toolCallId", "interruptId"]) {
    if (typeof event[key] === "string") parts.push(event[key]);
  }
  if (event.type === "RUN_ERROR" && event.message) parts.push(event.message);
  if (event.outcome && event.outcome.type) parts.push("outcome " + event.outcome.type);
  return parts.join(" · ");
}

function timelineRow(row, n) {
  const div = el("div", "row");
  div.style.top = n * ROW_H + "px";
  div.dataset.row = n;
  div.dataset.index = row.i;
  if (row.i === 0 && n > 0) div.classList.add("run-boundary");
  if (n === current.selected) div.classList.add("selected");
  div.appendChild(el("span", "idx", "#" + row.i));
  if (row.violation) {
    div.classList.add("violation");
    div.dataset.kind = row.kind;
    div.appendChild(el("span", "ms", ""));
    div.appendChild(el("span", "type", "✗ " + row.kind));
    div.appendChild(el("span", "", row.message));
    div.title = "violation at event " + row.i + ": " + row.kind + ": " + row.message;
    return div;
  }
  let event = {};
  try { event = JSON.parse(row.raw); } catch (_) { /* shown raw below */ }
  div.dataset.type = row.type;
  div.appendChild(el("span", "ms", "+" + row.ms.toFixed(1) + "ms"));
  div.appendChild(el("span", "type", row.type));
  if (typeof event.subagentRunId === "string") {
    const lane = current.lanes.get(event.subagentRunId);
    div.appendChild(el("span", "lane", "[" + (lane ? lane.name : event.subagentRunId) + "]"));
  }
  div.appendChild(el("span", "", summary(event)));
  if (row.warning) {
    div.classList.add("warning");
    div.title = row.warning;
  }
  return div;
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.filter((p) => p && p.type === "text").map((p) => p.text).join("");
  return "";
}

// Messages are drawn one by one: only those that changed since the last frame are rebuilt, so a
// conversation of thousands of messages streams as smoothly as a short one.
function drawMessages() {
  const box = $("messages");
  const s = current;
  const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 20;
  if (s.msgView !== box || s.msgAll) {
    s.msgView = box;
    s.msgAll = false;
    s.msgDirty.clear();
    s.msgNodes = s.messages.map((m) => messageNode(s, m));
    box.replaceChildren(...s.msgNodes);
  } else {
    for (const at of [...s.msgDirty].sort((a, b) => a - b)) {
      const node = messageNode(s, s.messages[at]);
      if (s.msgNodes[at]) s.msgNodes[at].replaceWith(node);
      else box.appendChild(node);
      s.msgNodes[at] = node;
    }
    s.msgDirty.clear();
  }
  if (atBottom) box.scrollTop = box.scrollHeight;
}

function messageNode(s, m) {
  if (!m) return el("div", "message missing");
  // A tool result is drawn under its call (when the call is in the conversation).
  if (m.role === "tool" && s.callOwner.has(m.toolCallId)) {
    const hidden = el("div", "message tool-shown");
    hidden.hidden = true;
    return hidden;
  }
  const div = el("div", "message " + m.role);
  div.dataset.id = m.id;
  div.dataset.role = m.role;
  div.appendChild(el("span", "role", m.role + (m.subagentRunId ? " · " + laneName(m.subagentRunId) : "")));
  const text = m.role === "tool" ? (m.error ? "error: " + m.error : textOf(m.content)) : textOf(m.content);
  if (text) div.appendChild(el("span", "text", text));
  for (const call of m.toolCalls || []) {
    const box = el("div", "tool-call");
    box.dataset.toolCallId = call.id;
    box.appendChild(el("span", "name", call.function.name + "()"));
    let args = call.function.arguments;
    try { args = pretty(JSON.parse(args)); } catch (_) { /* partial arguments stay as text */ }
    box.appendChild(el("pre", "args", args));
    const result = s.results.get(call.id);
    if (result) {
      box.appendChild(el("pre", "result", "→ " + (result.error ? "error: " + result.error : textOf(result.content))));
    } else {
      box.appendChild(el("pre", "result muted", "… no result yet"));
    }
    div.appendChild(box);
  }
  return div;
}

// Keeps what drawing needs to find quickly: which message holds each tool call, each result.
function indexMessages(s) {
  s.callOwner = new Map();
  s.results = new Map();
  s.messages.forEach((m, at) => noteMessage(s, m, at));
}

function noteMessage(s, m, at) {
  if (!m) return;
  for (const call of m.toolCalls || []) s.callOwner.set(call.id, at);
  if (m.role === "tool") {
    s.results.set(m.toolCallId, m);
    const owner = s.callOwner.get(m.toolCallId);
    if (owner !== undefined) s.msgDirty.add(owner);
  }
}

function laneName(id) {
  const lane = current.lanes.get(id);
  return lane ? lane.name : id;
}

function drawState() {
  $("state").textContent = pretty(current.state);
  const list = $("state-changes");
  const frag = document.createDocumentFragment();
  for (const change of current.stateChanges.slice(-200)) {
    const li = el("li", "", "#" + change.i + " " + change.text);
    li.dataset.row = change.row;
    frag.appendChild(li);
  }
  list.replaceChildren(frag);
}

function drawLanes() {
  const box = $("lanes");
  if (current.lanes.size === 0) {
    box.replaceChildren(el("p", "muted", "No subagent yet."));
    return;
  }
  const frag = document.createDocumentFragment();
  for (const lane of current.lanes.values()) {
    const div = el("div", "lane-box");
    div.dataset.lane = lane.id;
    div.dataset.name = lane.name;
    div.appendChild(el("span", "lane-status " + lane.status, lane.status));
    div.appendChild(el("div", "lane-name", lane.name));
    if (lane.description) div.appendChild(el("div", "muted", lane.description));
    div.appendChild(el("div", "muted", lane.events + " events"));
    if (lane.reasoning) div.appendChild(el("div", "lane-reasoning", lane.reasoning));
    if (lane.text) div.appendChild(el("div", "lane-text", lane.text));
    if (lane.result !== undefined) div.appendChild(el("pre", "lane-result", pretty(lane.result)));
    frag.appendChild(div);
  }
  box.replaceChildren(frag);
}

function drawStatus() {
  const box = $("status");
  const s = current.status;
  box.replaceChildren();
  if (!s) {
    box.className = "status idle";
    box.textContent = current.busy ? "Running…" : "No run yet.";
  } else {
    box.className = "status " + s.cls;
    box.dataset.outcome = s.outcome;
    box.appendChild(el("span", "outcome", s.text));
    if (s.usage) box.appendChild(el("span", "usage", s.usage));
    if (s.slowMs) box.appendChild(el("span", "muted", " · this page was slow: the run waited " + s.slowMs + " ms for it"));
  }
  drawInterrupts();
  $("send").disabled = current.busy || current.kind !== "thread" || current.interrupts.length > 0;
}

function drawInterrupts() {
  const box = $("interrupts");
  box.replaceChildren();
  if (current.kind !== "thread" || current.interrupts.length === 0 || current.busy) return;
  const form = el("form", "interrupt-form");
  form.appendChild(el("strong", "", "The run is waiting for an answer"));
  const fields = [];
  for (const interrupt of current.interrupts) {
    const div = el("div", "interrupt");
    div.dataset.id = interrupt.id;
    div.appendChild(el("div", "", interrupt.id + " (" + interrupt.reason + ")" + (interrupt.message ? ": " + interrupt.message : "")));
    if (interrupt.responseSchema) div.appendChild(el("pre", "muted", "schema: " + JSON.stringify(interrupt.responseSchema)));
    const status = el("select");
    status.appendChild(new Option("resolve", "resolved"));
    status.appendChild(new Option("cancel", "cancelled"));
    const payload = el("textarea");
    payload.rows = 2;
    payload.value = '{"approved": true}';
    div.append(status, payload);
    form.appendChild(div);
    fields.push({ interrupt, status, payload });
  }
  const submit = el("button", "primary", "Resume the run");
  submit.type = "submit";
  submit.id = "resume-run";
  form.appendChild(submit);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const resume = [];
    for (const f of fields) {
      const entry = { interruptId: f.interrupt.id, status: f.status.value };
      if (f.status.value === "resolved" && f.payload.value.trim()) {
        try { entry.payload = JSON.parse(f.payload.value); } catch (err) {
          alert("The payload of " + f.interrupt.id + " is not JSON: " + err.message);
          return;
        }
      }
      resume.push(entry);
    }
    startRun(current, { resume });
  });
  box.appendChild(form);
}

function drawThreads() {
  const list = $("threads");
  const frag = document.createDocumentFragment();
  for (const s of sessions.values()) {
    const li = el("li", "thread" + (s === current ? " current" : ""));
    li.dataset.id = s.id;
    const name = el("div", "thread-name", s.label);
    name.addEventListener("click", () => select(s));
    li.appendChild(name);
    const runs = el("ol");
    s.runs.forEach((run) => {
      const item = el("li", run.failed ? "failed" : "", run.label + " — " + (run.end || "running") + (run.events !== undefined ? ", " + run.events + " events" : ""));
      item.addEventListener("click", () => { select(s); scrollToRow(run.base); });
      runs.appendChild(item);
    });
    li.appendChild(runs);
    frag.appendChild(li);
  }
  list.replaceChildren(frag);
}

function scrollToRow(n) {
  $("follow").checked = false;
  $("timeline").scrollTop = n * ROW_H;
  invalidate("timeline");
}

function select(session) {
  current = session;
  session.msgAll = true;
  invalidate("timeline", "messages", "state", "lanes", "status", "threads");
}

// ---- what the server sends ---------------------------------------------------------------

function handle(session, frame, data) {
  switch (data.t) {
    case "start": {
      const label = data.source === "recording" ? "recording" :
        data.message ? JSON.stringify(data.message.length > 40 ? data.message.slice(0, 40) + "…" : data.message) :
        data.resume ? "resume" : "run";
      session.runs.push({ base: session.rows.length, label });
      session.status = null;
      session.interrupts = [];
      invalidate("threads", "status");
      break;
    }
    case "ev": {
      // Keep the event's own text (not the parsed object): memory stays near the stream's size.
      const raw = frame.slice(frame.indexOf('"e":') + 4, -1);
      const row = { run: session.runs.length - 1, i: data.i, ms: data.ms, type: data.e.type, raw };
      session.rows.push(row);
      follow(session, data.e, session.rows.length - 1, data.i);
      invalidate("timeline");
      break;
    }
    case "msg": {
      if (data.op === "insert") {
        session.messages.splice(data.at, 0, data.m);
        indexMessages(session);
        session.msgAll = true;
      } else {
        session.messages[data.at] = data.m;
        noteMessage(session, data.m, data.at);
        session.msgDirty.add(data.at);
      }
      invalidate("messages");
      break;
    }
    case "msgs":
      session.messages = data.m;
      indexMessages(session);
      session.msgAll = true;
      invalidate("messages");
      break;
    case "state":
      session.state = data.s;
      invalidate("state");
      break;
    case "warn": {
      const row = rowOf(session, data.i);
      if (row) row.warning = data.kind + ": " + data.message;
      invalidate("timeline");
      break;
    }
    case "violation": {
      session.rows.push({ run: session.runs.length - 1, i: data.i, violation: true, kind: data.kind, message: data.message });
      finish(session, { cls: "failed", outcome: "violation", text: "✗ violation at event " + data.i + ": " + data.kind + ": " + data.message }, data, true);
      invalidate("timeline");
      break;
    }
    case "error": {
      // A run that ended with RUN_ERROR is the agent's failure, told in-band; anything else
      // (unreachable agent, refused request, a stream that stopped inside a run) is "error".
      const outcome = data.kind === "agent.run-error" ? "run-error" : data.kind === "run.incomplete" ? "incomplete" : "error";
      finish(session, { cls: "failed", outcome, text: "✗ " + data.kind + ": " + data.message }, data, true);
      break;
    }
    case "end": {
      if (data.state !== undefined) session.state = data.state;
      const run = session.runs[session.runs.length - 1];
      let outcome = run && run.outcome;
      let text;
      let cls;
      if (run && run.failedWith) {
        cls = "failed"; outcome = "run-error"; text = "RUN_ERROR: " + run.failedWith;
      } else if (data.interrupts && data.interrupts.length) {
        cls = "interrupted"; outcome = "interrupt"; text = "Interrupted: " + data.interrupts.length + " open interrupt(s)";
      } else {
        cls = "finished"; outcome = outcome || data.end; text = "Run " + data.end + (outcome && outcome !== data.end ? " (" + outcome + ")" : "");
      }
      text += " · " + data.events + " events in " + Math.round(data.ms) + " ms";
      finish(session, { cls, outcome, text, slowMs: data.slowMs }, data, false);
      invalidate("state");
      break;
    }
    default:
      break;
  }
}

function rowOf(session, i) {
  const base = session.runs.length ? session.runs[session.runs.length - 1].base : 0;
  const n = base + i;
  return session.rows[n] && !session.rows[n].violation ? session.rows[n] : null;
}

function finish(session, status, data, failed) {
  const run = session.runs[session.runs.length - 1];
  if (run) {
    run.end = status.outcome;
    run.events = data.events !== undefined ? data.events : session.rows.length - run.base;
    run.failed = failed;
    if (run.usage) status.usage = run.usage;
  }
  session.status = status;
  session.interrupts = data.interrupts || [];
  invalidate("status", "threads");
}

// What the page derives from the events themselves: subagent lanes, state changes, outcome and
// token usage.
function follow(session, e, row, i) {
  const lanes = session.lanes;
  switch (e.type) {
    case "SUBAGENT_STARTED": {
      const existing = lanes.get(e.subagentRunId);
      if (existing) existing.status = "running";
      else lanes.set(e.subagentRunId, { id: e.subagentRunId, name: e.name, description: e.description, status: "running", events: 0, text: "", reasoning: "" });
      invalidate("lanes");
      break;
    }
    case "SUBAGENT_FINISHED": {
      const lane = lanes.get(e.subagentRunId);
      if (lane) { lane.status = "finished"; if (e.result !== undefined) lane.result = e.result; }
      invalidate("lanes");
      break;
    }
    case "SUBAGENT_ERROR": {
      const lane = lanes.get(e.subagentRunId);
      if (lane) { lane.status = "error"; lane.text += (lane.text ? "\n" : "") + "error: " + (e.message || ""); }
      invalidate("lanes");
      break;
    }
    case "STATE_DELTA":
      session.stateChanges.push({ row, i, text: (e.delta || []).map((op) => op.op + " " + op.path + ("value" in op ? " = " + JSON.stringify(op.value) : "")).join("; ") });
      invalidate("state");
      break;
    case "STATE_SNAPSHOT":
      session.stateChanges.push({ row, i, text: "snapshot " + JSON.stringify(e.snapshot) });
      invalidate("state");
      break;
    case "RUN_FINISHED": {
      const run = session.runs[session.runs.length - 1];
      if (run) {
        run.outcome = e.outcome && e.outcome.type ? e.outcome.type : "success";
        if (Array.isArray(e.usage) && e.usage.length) run.usage = usageText(e.usage);
      }
      break;
    }
    case "RUN_ERROR": {
      const run = session.runs[session.runs.length - 1];
      if (run) {
        run.failedWith = e.message || "(no message)";
        if (Array.isArray(e.usage) && e.usage.length) run.usage = usageText(e.usage);
      }
      break;
    }
    default:
      break;
  }
  let owner = e.subagentRunId;
  if (owner === undefined && typeof e.messageId === "string") owner = session.laneOfMessage.get(e.messageId);
  if (owner === undefined) return;
  const lane = lanes.get(owner);
  if (!lane) return;
  lane.events += 1;
  if (typeof e.messageId === "string" && /_START$/.test(e.type)) session.laneOfMessage.set(e.messageId, owner);
  if (e.type === "TEXT_MESSAGE_CONTENT") lane.text += e.delta;
  if (e.type === "REASONING_MESSAGE_CONTENT") lane.reasoning += e.delta;
  invalidate("lanes");
}

function usageText(entries) {
  return "tokens: " + entries.map((u) => {
    const who = [u.provider, u.model].filter(Boolean).join("/") || "model";
    const counts = ["inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens"]
      .filter((k) => typeof u[k] === "number").map((k) => k.replace("Tokens", "") + " " + u[k]);
    return who + ": " + counts.join(", ");
  }).join("; ");
}

// Reads an SSE response of the local server, frame by frame, as it arrives.
async function read(response, session) {
  if (!response.ok) {
    let message = "HTTP " + response.status;
    try {
      const body = await response.json();
      if (body && body.error) message = body.error.kind + ": " + body.error.message;
    } catch (_) { /* not JSON */ }
    if (!session.runs.length) session.runs.push({ base: session.rows.length, label: "request" });
    finish(session, { cls: "failed", outcome: "refused", text: "✗ " + message }, {}, true);
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const frames = (rest + decoder.decode(value, { stream: true })).split("\n\n");
    rest = frames.pop();
    for (const frame of frames) {
      if (!frame.startsWith("data: ")) continue;
      const text = frame.slice(6);
      handle(session, text, JSON.parse(text));
    }
  }
}

// The session token the inspector embedded in this page; every POST carries it (the server
// refuses a POST without it, so no other page can drive the inspector).
const TOKEN_HEADER = "x-ag-ui-inspector-token";
const TOKEN = document.querySelector('meta[name="ag-ui-inspector-token"]').content;

async function startRun(session, body) {
  if (session.busy) return;
  session.busy = true;
  session.interrupts = [];
  invalidate("status");
  try {
    const response = await fetch("/api/run", {
      method: "POST",
      headers: { "content-type": "application/json", [TOKEN_HEADER]: TOKEN },
      body: JSON.stringify(Object.assign({ thread: session.id }, body)),
    });
    await read(response, session);
  } catch (err) {
    finish(session, { cls: "failed", outcome: "error", text: "✗ the inspector server did not answer: " + err.message }, {}, true);
  } finally {
    session.busy = false;
    invalidate("status", "timeline", "messages", "lanes", "state");
  }
}

async function loadRecording(file) {
  const session = newSession("recording-" + (++counter), "recording: " + file.name, "recording");
  const load = { file: file.name, bytes: file.size, started: performance.now() };
  metrics.pending = load;
  metrics.loads.push(load);
  select(session);
  session.busy = true;
  try {
    const response = await fetch("/api/load", { method: "POST", headers: { [TOKEN_HEADER]: TOKEN }, body: file });
    await read(response, session);
  } catch (err) {
    finish(session, { cls: "failed", outcome: "error", text: "✗ the recording could not be sent: " + err.message }, {}, true);
  } finally {
    session.busy = false;
    load.loadedMs = performance.now() - load.started;
    load.events = session.rows.length;
    if (performance.memory) load.heapBytes = performance.memory.usedJSHeapSize;
    load.done = true;
    invalidate("status", "timeline", "messages", "lanes", "state");
  }
}

// The session as JSON Lines: the events of every run on the current thread, in order.
function sessionJsonl(session) {
  const lines = [];
  for (const row of session.rows) if (!row.violation) lines.push(row.raw);
  return lines.length ? lines.join("\n") + "\n" : "";
}

// ---- wiring ------------------------------------------------------------------------------

$("composer").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("message").value.trim();
  if (!text || !current || current.kind !== "thread") return;
  $("message").value = "";
  startRun(current, { message: text });
});
$("message").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("composer").requestSubmit();
});
$("new-thread").addEventListener("click", () => {
  const id = freshThreadId();
  select(newSession(id, id, "thread"));
});
$("load-file").addEventListener("change", (e) => {
  const file = e.target.files[0];
  if (file) loadRecording(file);
  e.target.value = "";
});
$("download").addEventListener("click", () => {
  if (!current) return;
  const blob = new Blob([sessionJsonl(current)], { type: "application/jsonl" });
  const a = el("a");
  a.href = URL.createObjectURL(blob);
  a.download = current.id + ".jsonl";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
});
$("timeline").addEventListener("scroll", () => {
  const box = $("timeline");
  if (box.scrollTop + box.clientHeight < box.scrollHeight - ROW_H * 2) $("follow").checked = false;
  invalidate("timeline");
});
$("follow").addEventListener("change", () => invalidate("timeline"));
$("timeline-rows").addEventListener("click", (e) => {
  const div = e.target.closest(".row");
  if (!div) return;
  const n = Number(div.dataset.row);
  const row = current.rows[n];
  current.selected = n;
  let text;
  if (row.violation) text = "violation at event " + row.i + "\nrule: " + row.kind + "\n" + row.message;
  else {
    try { text = pretty(JSON.parse(row.raw)); } catch (_) { text = row.raw; }
    if (row.warning) text += "\n\nreducer warning: " + row.warning;
  }
  $("event-detail").textContent = text;
  $("event-detail").classList.remove("muted");
  invalidate("timeline");
});
window.addEventListener("resize", () => invalidate("timeline"));

fetch("/api/info").then((r) => r.json()).then((info) => {
  $("target").textContent = info.target;
}).catch(() => { $("target").textContent = "(the inspector server did not answer)"; });

{
  const id = freshThreadId();
  select(newSession(id, id, "thread"));
}

// For tests and the console.
window.inspector = {
  metrics,
  sessions,
  current: () => current,
  sessionJsonl: () => (current ? sessionJsonl(current) : ""),
};
