"""An AG-UI server on the Python SDK (`ag-ui-protocol` 1.0.0, pinned in requirements.txt),
for the cross-check of `ag-ui conformance server`.

It does what the Dojo's server-starter (FastAPI) does with the SDK: the body is validated as a
`RunAgentInput` (pydantic; a body that is not one is answered 422 with the errors, as FastAPI
answers), and the run is streamed with the SDK's `EventEncoder` (always SSE). Like FastAPI
under uvicorn, it sets no limit on the body's size. Standard library HTTP server, so nothing but
the SDK is installed. Listens on 127.0.0.1 (port 0), prints `port <n>` first; exits when stdin
closes.
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ag_ui.core import (
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError


def events(run):
    message = f"{run.run_id}-a"
    call = f"{run.run_id}-call"
    return [
        RunStartedEvent(thread_id=run.thread_id, run_id=run.run_id),
        TextMessageStartEvent(message_id=message, role="assistant"),
        TextMessageContentEvent(message_id=message, delta="Hello from "),
        TextMessageContentEvent(message_id=message, delta="ag-ui-protocol"),
        TextMessageEndEvent(message_id=message),
        ToolCallStartEvent(tool_call_id=call, tool_call_name="noop", parent_message_id=message),
        ToolCallArgsEvent(tool_call_id=call, delta="{}"),
        ToolCallEndEvent(tool_call_id=call),
        StateSnapshotEvent(snapshot={"served": True}),
        RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id),
    ]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reject(self, status, detail):
        body = json.dumps({"detail": detail}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
            run = RunAgentInput.model_validate(body)
        except json.JSONDecodeError as e:
            return self.reject(422, [{"type": "json_invalid", "msg": str(e)}])
        except ValidationError as e:
            return self.reject(422, json.loads(e.json()))
        encoder = EventEncoder(accept=self.headers.get("accept"))
        self.send_response(200)
        self.send_header("content-type", encoder.get_content_type())
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        try:
            for event in events(run):
                self.wfile.write(encoder.encode(event).encode())
                self.wfile.flush()
                time.sleep(0.001)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"port {server.server_address[1]}", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()


if __name__ == "__main__":
    main()
