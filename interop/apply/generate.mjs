// Writes the differential corpus for the reducer: deterministic streams of AG-UI events that
// exercise text, tool calls and results, reasoning, encrypted values, state, activities,
// message snapshots, run inputs, outcomes and subagents.
//
//   node interop/apply/generate.mjs > interop/apply/corpus.jsonl
//
// One JSON object per line: {name, messages, state, events}. `messages`/`state` are the agent's
// messages and the run input's state before the stream.

const STREAMS = Number(process.argv[2] ?? 300);

function mulberry32(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(seed) {
    this.rand = mulberry32(seed);
    this.counter = 0;
    this.messages = new Map(); // id -> role (approximate: what the generator believes)
    this.toolCalls = [];
    this.unanswered = [];
    this.activities = [];
    this.stateKeys = [];
    this.stateIsObject = true;
    this.tag = undefined; // the open subagent, if any
    this.events = [];
  }
  chance(p) { return this.rand() < p; }
  int(lo, hi) { return lo + Math.floor(this.rand() * (hi - lo + 1)); }
  pick(a) { return a[Math.floor(this.rand() * a.length)]; }
  id(prefix) { return `${prefix}-${this.counter++}`; }
  text() {
    return this.pick(['Hello', ' world', '!', ' é', ' 日本', ' 🙂', '\n', ' "q"', ' \\ ', '', ' lorem', ' ipsum']);
  }
  metadata() {
    if (!this.chance(0.2)) return undefined;
    return this.pick([{ a: 1 }, { b: 'x', nested: { deep: true } }, { a: 2, n: null }, {}, { list: [1, 2] }]);
  }
  push(event) {
    const meta = event.metadata === undefined && !['MESSAGES_SNAPSHOT'].includes(event.type) ? this.metadata() : undefined;
    if (meta !== undefined) event.metadata = meta;
    this.events.push(event);
  }
  tagged(event) {
    if (this.tag !== undefined && this.chance(0.8)) event.subagentRunId = this.tag;
    return event;
  }
  existing(role) {
    const ids = [...this.messages].filter(([, r]) => role === undefined || r === role).map(([id]) => id);
    return ids.length ? this.pick(ids) : undefined;
  }

  initial() {
    const messages = [];
    const n = this.int(0, 3);
    for (let i = 0; i < n; i++) {
      const kind = this.pick(['user', 'assistant', 'tools', 'activity', 'reasoning', 'parts']);
      const id = this.id('init');
      if (kind === 'user') messages.push({ id, role: 'user', content: 'hi' });
      if (kind === 'parts') messages.push({ id, role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'url', value: 'https://x.invalid/a.png' } }] });
      if (kind === 'assistant') messages.push({ id, role: 'assistant', content: 'earlier', subagentRunId: 'sub-old' });
      if (kind === 'tools') {
        const call = this.id('icall');
        this.toolCalls.push(call);
        messages.push({ id, role: 'assistant', toolCalls: [{ id: call, type: 'function', function: { name: 'f', arguments: '{}' } }] });
      }
      if (kind === 'activity') { this.activities.push(id); messages.push({ id, role: 'activity', activityType: this.pick(['PLAN', 'SEARCH']), content: { step: 1 } }); }
      if (kind === 'reasoning') messages.push({ id, role: 'reasoning', content: 'thought' });
      this.messages.set(id, messages[messages.length - 1].role);
    }
    const state = this.pick([{}, { count: 0 }, { items: [1, 2], name: 'x' }]);
    this.stateKeys = Object.keys(state);
    return { messages, state };
  }

  textBlock() {
    const reuse = this.chance(0.1) ? this.existing() : undefined;
    const id = reuse ?? this.id('msg');
    const start = this.tagged({ type: 'TEXT_MESSAGE_START', messageId: id });
    if (this.chance(0.3)) start.role = this.pick(['assistant', 'user', 'system', 'developer']);
    if (this.chance(0.15)) start.name = 'bot';
    this.push(start);
    if (!this.messages.has(id)) this.messages.set(id, start.role ?? 'assistant');
    const n = this.int(0, 5);
    for (let i = 0; i < n; i++) this.push(this.tagged({ type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: this.text() || 'x' }));
    this.push(this.tagged({ type: 'TEXT_MESSAGE_END', messageId: id }));
    return id;
  }

  toolBlock(parentOverride) {
    const call = this.id('call');
    const start = this.tagged({ type: 'TOOL_CALL_START', toolCallId: call, toolCallName: this.pick(['search', 'lookup', 'approve']) });
    const parent = parentOverride ?? this.pick(['assistant', 'user', 'new', 'none', 'assistant']);
    if (parent === 'assistant') { const p = this.existing('assistant'); if (p) start.parentMessageId = p; }
    else if (parent === 'user') { const p = this.existing('user'); if (p) start.parentMessageId = p; }
    else if (parent === 'new') start.parentMessageId = this.id('parent');
    else if (parent !== 'none') start.parentMessageId = parent;
    this.push(start);
    const holder = start.parentMessageId && this.messages.get(start.parentMessageId) === 'assistant' ? start.parentMessageId
      : start.parentMessageId && !this.messages.has(start.parentMessageId) ? start.parentMessageId : call;
    if (!this.messages.has(holder)) this.messages.set(holder, 'assistant');
    this.toolCalls.push(call);
    // Split by code point: a lone surrogate is not a string in Rust (nor valid UTF-8 on the wire).
    const args = Array.from(JSON.stringify({ query: this.text(), n: this.int(0, 9), flags: [true, null] }));
    let at = 0;
    while (at < args.length) {
      const len = this.int(1, 12);
      this.push(this.tagged({ type: 'TOOL_CALL_ARGS', toolCallId: call, delta: args.slice(at, at + len).join('') }));
      at += len;
    }
    this.push(this.tagged({ type: 'TOOL_CALL_END', toolCallId: call }));
    if (this.chance(0.6)) this.result(call); else this.unanswered.push(call);
    return { call, holder };
  }

  result(call) {
    const id = this.id('result');
    const content = this.chance(0.8) ? this.pick(['ok', 'sunny, 21°C', '']) : [{ type: 'text', text: 'part' }];
    const event = this.tagged({ type: 'TOOL_CALL_RESULT', messageId: id, toolCallId: call, content });
    if (this.chance(0.3)) event.role = 'tool';
    this.push(event);
    this.messages.set(id, 'tool');
  }

  parallelTools() {
    const parent = this.id('par');
    this.push(this.tagged({ type: 'TEXT_MESSAGE_START', messageId: parent }));
    this.push(this.tagged({ type: 'TEXT_MESSAGE_CONTENT', messageId: parent, delta: 'Calling tools' }));
    this.push(this.tagged({ type: 'TEXT_MESSAGE_END', messageId: parent }));
    this.messages.set(parent, 'assistant');
    const a = this.toolBlockNoResult(parent);
    const b = this.toolBlockNoResult(parent);
    const order = this.chance(0.5) ? [b, a] : [a, b];
    if (this.chance(0.5)) this.textBlock();
    for (const c of order) this.result(c);
  }

  toolBlockNoResult(parent) {
    const call = this.id('call');
    this.push(this.tagged({ type: 'TOOL_CALL_START', toolCallId: call, toolCallName: 'f', parentMessageId: parent }));
    this.push(this.tagged({ type: 'TOOL_CALL_ARGS', toolCallId: call, delta: '{"x":' }));
    this.push(this.tagged({ type: 'TOOL_CALL_ARGS', toolCallId: call, delta: '1}' }));
    this.push(this.tagged({ type: 'TOOL_CALL_END', toolCallId: call }));
    this.toolCalls.push(call);
    return call;
  }

  reasoningBlock() {
    const id = this.id('reason');
    this.push(this.tagged({ type: 'REASONING_START', messageId: id }));
    this.push(this.tagged({ type: 'REASONING_MESSAGE_START', messageId: id, role: 'reasoning' }));
    const n = this.int(1, 4);
    for (let i = 0; i < n; i++) this.push(this.tagged({ type: 'REASONING_MESSAGE_CONTENT', messageId: id, delta: this.text() || 'r' }));
    this.push(this.tagged({ type: 'REASONING_MESSAGE_END', messageId: id }));
    this.push(this.tagged({ type: 'REASONING_END', messageId: id }));
    this.messages.set(id, 'reasoning');
    if (this.chance(0.4)) this.push(this.tagged({ type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: id, encryptedValue: this.id('enc') }));
  }

  encryptedBlock() {
    const toolCall = this.chance(0.5);
    const target = toolCall ? (this.toolCalls.length && this.chance(0.8) ? this.pick(this.toolCalls) : 'nope')
      : (this.existing() ?? 'nope');
    this.push(this.tagged({ type: 'REASONING_ENCRYPTED_VALUE', subtype: toolCall ? 'tool-call' : 'message', entityId: target, encryptedValue: this.id('enc') }));
  }

  stateBlock() {
    if (this.chance(0.25)) {
      const snapshot = this.pick([{ a: 1 }, { list: [], nested: { x: 1 } }, 0, false, null, '', [1, 2], { count: 5 }]);
      this.push(this.tagged({ type: 'STATE_SNAPSHOT', snapshot }));
      this.stateIsObject = snapshot !== null && typeof snapshot === 'object' && !Array.isArray(snapshot);
      this.stateKeys = this.stateIsObject ? Object.keys(snapshot) : [];
      return;
    }
    let delta;
    if (!this.stateIsObject) {
      delta = [{ op: 'replace', path: '', value: { fresh: true } }];
      this.stateIsObject = true;
      this.stateKeys = ['fresh'];
    } else {
      const kind = this.pick(['add', 'add', 'replace', 'remove-missing', 'test-fail', 'multi', 'remove']);
      const key = this.id('k');
      if (kind === 'add') { delta = [{ op: 'add', path: `/${key}`, value: this.pick([1, 'v', [1], { o: null }]) }]; this.stateKeys.push(key); }
      if (kind === 'replace' || kind === 'remove') {
        if (this.stateKeys.length) {
          const k = this.pick(this.stateKeys);
          delta = kind === 'replace' ? [{ op: 'replace', path: `/${k}`, value: 42 }] : [{ op: 'remove', path: `/${k}` }];
          if (kind === 'remove') this.stateKeys = this.stateKeys.filter((x) => x !== k);
        } else { delta = [{ op: 'add', path: `/${key}`, value: 0 }]; this.stateKeys.push(key); }
      }
      if (kind === 'remove-missing') delta = [{ op: 'add', path: `/${key}`, value: 1 }, { op: 'remove', path: '/definitely-missing' }];
      if (kind === 'test-fail') delta = [{ op: 'test', path: '/definitely-missing', value: 1 }];
      if (kind === 'multi') { delta = [{ op: 'add', path: `/${key}`, value: { list: [1] } }, { op: 'add', path: `/${key}/list/-`, value: 2 }, { op: 'copy', from: `/${key}`, path: `/${key}c` }, { op: 'move', from: `/${key}c`, path: `/${key}m` }]; this.stateKeys.push(key, `${key}m`); }
    }
    this.push(this.tagged({ type: 'STATE_DELTA', delta }));
  }

  activityBlock() {
    const kind = this.pick(['new', 'new', 'again', 'delta', 'delta-fail', 'delta-unknown', 'onto-text']);
    const activityType = this.pick(['PLAN', 'SEARCH', 'PROGRESS']);
    if (kind === 'new' || (this.activities.length === 0 && kind !== 'delta-unknown' && kind !== 'onto-text')) {
      const id = this.id('act');
      this.push(this.tagged({ type: 'ACTIVITY_SNAPSHOT', messageId: id, activityType, content: { step: 1, items: ['a'] } }));
      this.activities.push(id);
      this.messages.set(id, 'activity');
      return;
    }
    if (kind === 'again') {
      const e = this.tagged({ type: 'ACTIVITY_SNAPSHOT', messageId: this.pick(this.activities), activityType, content: { step: this.int(2, 9) } });
      if (this.chance(0.6)) e.replace = this.chance(0.5);
      this.push(e);
    }
    if (kind === 'delta') this.push(this.tagged({ type: 'ACTIVITY_DELTA', messageId: this.pick(this.activities), activityType, patch: [{ op: 'add', path: `/${this.id('f')}`, value: this.int(0, 5) }] }));
    if (kind === 'delta-fail') this.push(this.tagged({ type: 'ACTIVITY_DELTA', messageId: this.pick(this.activities), activityType, patch: [{ op: 'remove', path: '/missing' }] }));
    if (kind === 'delta-unknown') this.push(this.tagged({ type: 'ACTIVITY_DELTA', messageId: this.pick(['nope', this.existing() ?? 'nope']), activityType, patch: [] }));
    if (kind === 'onto-text') {
      const target = this.existing('assistant') ?? this.existing();
      if (!target) return;
      const e = this.tagged({ type: 'ACTIVITY_SNAPSHOT', messageId: target, activityType, content: { took: 'over' } });
      if (this.chance(0.6)) e.replace = this.chance(0.5);
      this.push(e);
      if (e.replace !== false) { this.messages.set(target, 'activity'); this.activities.push(target); }
    }
  }

  snapshotBlock() {
    const messages = [];
    for (const [id, role] of this.messages) {
      if (!this.chance(0.6)) continue;
      if (role === 'activity') { if (this.chance(0.5)) messages.push({ id, role: 'activity', activityType: 'PLAN', content: { from: 'snapshot' } }); }
      else if (role === 'reasoning') { if (this.chance(0.5)) messages.push({ id, role: 'reasoning', content: 'snap' }); }
      else if (role === 'tool') messages.push({ id, role: 'tool', content: 'snap', toolCallId: 'x' });
      else messages.push({ id, role: 'assistant', content: 'snap' });
    }
    const extra = this.int(0, 2);
    for (let i = 0; i < extra; i++) {
      const id = this.id('snap');
      const kind = this.pick(['user', 'reasoning', 'activity', 'assistant']);
      if (kind === 'user') messages.push({ id, role: 'user', content: 'u', subagentRunId: 'sub-snap' });
      if (kind === 'reasoning') messages.push({ id, role: 'reasoning', content: 'r' });
      if (kind === 'activity') messages.push({ id, role: 'activity', activityType: this.pick(['PLAN', 'SEARCH']), content: {} });
      if (kind === 'assistant') messages.push({ id, role: 'assistant', toolCalls: [{ id: this.id('scall'), type: 'function', function: { name: 'g', arguments: '{' } }] });
    }
    // Shuffle so the snapshot's order differs from ours.
    for (let i = messages.length - 1; i > 0; i--) { const j = this.int(0, i); [messages[i], messages[j]] = [messages[j], messages[i]]; }
    const event = { type: 'MESSAGES_SNAPSHOT', messages };
    const authority = this.pick([undefined, undefined, { '@ag-ui/client': {} }, { '@ag-ui/client': { authoritativeActivityTypes: null } },
      { '@ag-ui/client': { authoritativeActivityTypes: ['PLAN'] } }, { '@ag-ui/client': { authoritativeActivityTypes: ['SEARCH', 'PROGRESS'] } },
      { '@ag-ui/client': 5 }, { '@ag-ui/client': { authoritativeActivityTypes: ['PLAN', 1] } }, { other: true }]);
    if (authority !== undefined) event.metadata = authority;
    this.events.push(event);
    const next = new Map();
    for (const m of messages) next.set(m.id, m.role);
    for (const [id, role] of this.messages) if (!next.has(id) && (role === 'activity' || role === 'reasoning')) next.set(id, role);
    this.messages = next;
    this.activities = [...next].filter(([, r]) => r === 'activity').map(([id]) => id);
  }

  subagentBlock() {
    const sub = this.id('sub');
    const started = { type: 'SUBAGENT_STARTED', subagentRunId: sub, name: 'helper' };
    if (this.chance(0.3) && this.toolCalls.length) started.parentToolCallId = this.pick(this.toolCalls);
    this.push(started);
    const outer = this.tag;
    this.tag = sub;
    const n = this.int(1, 3);
    for (let i = 0; i < n; i++) this.pick([() => this.textBlock(), () => this.toolBlock('none'), () => this.reasoningBlock(), () => this.activityBlock(), () => this.stateBlock()])();
    this.tag = outer;
    if (this.chance(0.8)) {
      const fin = { type: 'SUBAGENT_FINISHED', subagentRunId: sub };
      if (this.chance(0.3)) fin.result = { done: true };
      this.push(fin);
    } else this.push({ type: 'SUBAGENT_ERROR', subagentRunId: sub, message: 'failed' });
  }

  miscBlock() {
    const step = this.id('step');
    this.push(this.tagged({ type: 'STEP_STARTED', stepName: step }));
    if (this.chance(0.5)) this.push(this.tagged({ type: 'CUSTOM', name: 'c', value: { v: 1 } }));
    if (this.chance(0.5)) this.push(this.tagged({ type: 'RAW', event: { anything: [1] }, source: 'x' }));
    this.push(this.tagged({ type: 'STEP_FINISHED', stepName: step }));
  }

  run(threadId, runIndex) {
    const runId = `run-${runIndex}`;
    const started = { type: 'RUN_STARTED', threadId, runId };
    if (this.chance(0.3)) {
      const messages = [];
      const old = this.existing();
      if (old && this.chance(0.5)) messages.push({ id: old, role: 'user', content: 'already there' });
      const fresh = this.id('input');
      messages.push({ id: fresh, role: 'user', content: 'question', ...(this.chance(0.3) ? { subagentRunId: 'sub-in' } : {}) });
      if (this.chance(0.3)) messages.push({ id: fresh, role: 'user', content: 'duplicate id' });
      started.input = { threadId, runId, state: {}, messages, tools: [], context: [], forwardedProps: {} };
      for (const m of messages) if (!this.messages.has(m.id)) this.messages.set(m.id, 'user');
    }
    this.push(started);
    this.unanswered = [];
    const blocks = this.int(2, 9);
    const kinds = [
      () => this.textBlock(), () => this.textBlock(), () => this.toolBlock(), () => this.toolBlock(),
      () => this.parallelTools(), () => this.reasoningBlock(), () => this.encryptedBlock(), () => this.stateBlock(),
      () => this.stateBlock(), () => this.activityBlock(), () => this.activityBlock(), () => this.snapshotBlock(),
      () => this.subagentBlock(), () => this.miscBlock(),
    ];
    for (let i = 0; i < blocks; i++) this.pick(kinds)();
    // Some deferred results.
    for (const call of this.unanswered.splice(0)) if (this.chance(0.3)) this.result(call);
    const end = this.pick(['plain', 'result', 'pending', 'interrupt', 'cancelled', 'error']);
    const finished = { type: 'RUN_FINISHED', threadId, runId };
    if (end === 'error') { this.push({ type: 'RUN_ERROR', message: 'boom', code: 'E' }); return false; }
    if (end === 'result') { finished.result = this.pick([{ answer: 42 }, 'text', 0, [1]]); if (this.chance(0.5)) finished.outcome = { type: 'success' }; }
    if (end === 'pending') finished.outcome = this.chance(0.5) ? { type: 'success', pendingToolCallIds: [this.id('ext')] } : { type: 'success', pendingToolCallIds: [] };
    if (end === 'interrupt') finished.outcome = { type: 'interrupt', interrupts: [{ id: this.id('int'), reason: 'approval', ...(this.chance(0.5) ? { subagentRunId: 'sub-x', toolCallId: 'c' } : {}) }] };
    if (end === 'cancelled') finished.outcome = { type: 'cancelled' };
    this.push(finished);
    return true;
  }
}

for (let s = 0; s < STREAMS; s++) {
  const g = new Gen(1000 + s);
  const { messages, state } = g.initial();
  const runs = g.int(1, 3);
  for (let r = 0; r < runs; r++) g.run(`thread-${s}`, r);
  process.stdout.write(JSON.stringify({ name: `stream-${s}`, messages, state, events: g.events }) + '\n');
}
