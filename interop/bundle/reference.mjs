// The job the wasm client does, written with @ag-ui/client 1.0.0, for `size.mjs` to bundle:
// an HttpAgent holding a conversation, one run over SSE or protobuf with a subscriber, the
// messages and state it ends with.
import { HttpAgent } from '@ag-ui/client';

export async function run(url, subscriber) {
  const agent = new HttpAgent({ url, threadId: 'thread-1' });
  agent.addMessage({ id: 'u1', role: 'user', content: 'Hi' });
  const { newMessages, result } = await agent.runAgent({}, subscriber);
  agent.abortRun();
  return { newMessages, result, messages: agent.messages, state: agent.state };
}
