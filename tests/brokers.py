"""A private Redis server a test can kill and restart, and pointing this process's
Celery app at another broker.

Other sessions share the machine's Redis (6379): tests never stop it. Outage tests
start their own ``redis-server`` on a free port instead."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from django.conf import settings


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """``redis-server`` without persistence on its own port: started, killed (SIGKILL,
    as a crash would) and started again on the same port."""

    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self.log_path = Path(settings.VAR_DIR) / f"test-redis-{os.getpid()}-{self.port}.log"

    @staticmethod
    def available() -> bool:
        return shutil.which("redis-server") is not None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20) -> RedisServer:
        cmd = [
            "redis-server",
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
        ]
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited early; see {self.log_path}")
            if self.answers():
                return self
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer within {timeout}s; see {self.log_path}")

    def answers(self) -> bool:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock,
        ):
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
        return False

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        assert not self.answers()


@contextlib.contextmanager
def celery_broker(url: str):
    """This process's Celery app publishes to (and pings workers through) ``url``."""
    from teamllm_web.celery import app

    def reset_pools() -> None:
        app._pool = None
        with contextlib.suppress(AttributeError, KeyError):
            app.__dict__["amqp"]._producer_pool = None

    # Celery 5.6 reads a namespaced app's settings under their CELERY_ names first: set both
    names = ("broker_url", "broker_transport", "broker_transport_options")
    keys = [key for name in names for key in (name, f"CELERY_{name.upper()}")]
    saved = {key: app.conf[key] for key in keys if key in app.conf}
    overrides = {
        "broker_url": url,  # the read and write URLs follow it
        "broker_transport": None,  # the URL's own (a session on the filesystem broker names one)
        "broker_transport_options": {
            "visibility_timeout": 3600,
            "socket_connect_timeout": settings.REDIS_TIMEOUT_SECONDS,
            "socket_timeout": settings.REDIS_TIMEOUT_SECONDS,
        },
    }
    for name, value in overrides.items():
        app.conf[name] = app.conf[f"CELERY_{name.upper()}"] = value
    reset_pools()
    try:
        yield app
    finally:
        for key in keys:
            if key in saved:
                app.conf[key] = saved[key]
            else:
                app.conf.pop(key, None)
        reset_pools()


@contextlib.contextmanager
def silent_server():
    """A TCP server that accepts connections and never answers: a Redis that hangs
    (or a host behind a firewall that swallows the replies). Yields its redis:// URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()
