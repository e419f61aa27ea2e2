"""The filesystem broker writes each message whole before a worker can see it (issue 24,
finding 1: a worker read a message file still being written and died with JSONDecodeError)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from kombu import Connection
from kombu.transport import filesystem as stock

from core.tasks import filesystem_broker

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def channel(tmp_path):
    options = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path), "store_processed": False}
    with Connection(
        "filesystem://", transport=filesystem_broker.Transport, transport_options=options
    ) as conn:
        yield conn.default_channel


def test_a_message_is_invisible_to_the_reader_until_it_is_whole(channel, monkeypatch):
    seen_while_writing = []
    real_replace = os.replace

    def replace(src, dst):
        # the bytes are on disk, the message has not its final name yet: a reader now
        # must find nothing (kombu's own transport would hand it a file being written)
        try:
            seen_while_writing.append(channel._get("teamllm"))
        except stock.Empty:
            seen_while_writing.append(None)
        real_replace(src, dst)

    monkeypatch.setattr(filesystem_broker.os, "replace", replace)
    channel._put("teamllm", {"body": "a task"})
    assert seen_while_writing == [None]
    assert channel._get("teamllm") == {"body": "a task"}
    with pytest.raises(stock.Empty):
        channel._get("teamllm")


def test_messages_keep_their_order_and_queue(channel):
    for n in range(5):
        channel._put("teamllm", {"n": n})
        channel._put("other", {"n": -n})
    assert [channel._get("teamllm")["n"] for _ in range(5)] == [0, 1, 2, 3, 4]
    assert [channel._get("other")["n"] for _ in range(5)] == [0, -1, -2, -3, -4]


def test_the_settings_choose_it_for_a_filesystem_broker_url(tmp_path):
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")},
        "CELERY_BROKER_URL": "filesystem://",
        "TEAMLLM_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "teamllm_web.settings.local",
    }
    code = (
        "import django; django.setup(); from teamllm_web.celery import app; "
        "c = app.connection_for_write(); print(type(c.transport).__module__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip().splitlines()[-1] == "core.tasks.filesystem_broker", out.stderr[-2000:]
