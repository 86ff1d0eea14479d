// Reference figure for `benches/server.rs`: text deltas pushed through the @ag-ui/client
// verifier (`verifyEvents`) over an rxjs Subject, the TypeScript analogue of emitting through
// the Rust context (verifier + channel, no transport).
//
// Usage: node interop/server/emit_bench.mjs [deltas]   → prints one JSON line.
import { verifyEvents } from "@ag-ui/client";
import { EventType } from "@ag-ui/core";
import { Subject } from "rxjs";

const n = Number(process.argv[2] ?? 1_000_000);

function once() {
  const subject = new Subject();
  let seen = 0;
  verifyEvents(false)(subject).subscribe({
    next: () => {
      seen++;
    },
    error: (e) => {
      throw e;
    },
  });
  const start = process.hrtime.bigint();
  subject.next({ type: EventType.RUN_STARTED, threadId: "thread", runId: "run" });
  subject.next({ type: EventType.TEXT_MESSAGE_START, messageId: "run-msg-1", role: "assistant" });
  for (let i = 0; i < n; i++) {
    subject.next({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "run-msg-1", delta: "token " });
  }
  subject.next({ type: EventType.TEXT_MESSAGE_END, messageId: "run-msg-1" });
  subject.next({ type: EventType.RUN_FINISHED, threadId: "thread", runId: "run" });
  subject.complete();
  const ns = Number(process.hrtime.bigint() - start);
  if (seen !== n + 4) throw new Error(`verifier passed ${seen} of ${n + 4} events`);
  return ns;
}

once(); // warm-up
const samples = [once(), once(), once()].sort((a, b) => a - b);
const ns = samples[1];
console.log(JSON.stringify({ deltas: n, ns, deltas_per_s: (n / ns) * 1e9 }));
