"""Keys bound to their hosts in tests, as an operator binds them (core.llm.egress), and a
local OpenAI-compatible server that records what reaches it: the host that must never see a
key, a redirecting provider, a server that echoes the key or answers with an internal page."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


def bind_key(monkeypatch, variable: str, key: str, *, to: str) -> None:
    """Set the key ``variable`` to ``key`` and bind it to the host and port of the URL ``to``
    (``<variable>_HOSTS``), in this process's environment."""
    monkeypatch.setenv(variable, key)
    monkeypatch.setenv(f"{variable}_HOSTS", urlsplit(to).netloc)


def spaced(text: str) -> str:
    """``s k - l i v e ...``: a key echoed with spaces between its characters."""
    return " ".join(text)


class Recorder(ThreadingHTTPServer):
    """Records the path and headers of every request, then answers as told: a chat
    completion whose text is ``answer`` (``{auth}`` and ``{spaced}`` stand for the request's
    Authorization header as sent and spelled out with spaces), or ``status`` with ``body``
    as the error text, or a 307 to ``location``, after ``delay`` seconds; with ``drip``, the
    answer's body a byte every ``drip`` seconds (each read well within any read timeout)."""

    daemon_threads = True

    def __init__(
        self,
        host: str = "127.0.0.1",
        *,
        answer: str = "Hello.",
        status: int = 200,
        body: str = "",
        location: str = "",
        delay: float = 0.0,
        drip: float = 0.0,
        port: int = 0,
    ):
        super().__init__((host, port), _Handler)
        self.answer, self.status, self.body, self.location, self.delay = answer, status, body, location, delay
        self.drip = drip
        self.seen: list[dict[str, str]] = []

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> Recorder:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: Recorder

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        sent = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.seen.append(
            {
                "path": self.path,
                "body": sent.decode("utf-8", "replace"),
                **{k.lower(): v for k, v in self.headers.items()},
            }
        )
        time.sleep(self.server.delay)
        auth = self.headers.get("Authorization", "")
        if self.server.location:
            self.send_response(307)
            self.send_header("Location", self.server.location)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.server.status != 200:
            body: dict = {"error": {"message": self.server.body.replace("{auth}", auth), "type": "x"}}
        else:
            text = self.server.answer.replace("{auth}", auth).replace("{spaced}", spaced(auth))
            body = {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        data = json.dumps(body).encode()
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not self.server.drip:
            self.wfile.write(data)
            return
        for byte in data:
            try:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            except OSError:  # the client gave up
                return
            time.sleep(self.server.drip)


class Closer:
    """A port that accepts every connection and closes it at once, unanswered (a server that
    is not HTTP, as Redis or PostgreSQL look to an HTTP client that sends a POST)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.accepted = 0
        self.stopped = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def stop(self) -> None:
        self.stopped.set()
        self.sock.close()


def closed_port_url() -> str:
    """The URL of a port nothing listens on (a connection there is refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
