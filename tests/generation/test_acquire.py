"""Cross-process semaphores (endpoint limits, run locks): the limit holds across
processes, and a killed holder's slot frees itself (Redis: lease TTL; files: flock)."""

import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest
from django.conf import settings as django_settings

from core.llm import leases
from tests.workers import ROOT, child_env

HOLDER = """
import django, sys, time
django.setup()
from core.llm import leases
lease = leases.acquire(sys.argv[1], int(sys.argv[2]), wait=5)
print("held" if lease else "refused", flush=True)
time.sleep(120)
"""


@pytest.fixture(params=["redis", "file"])
def backend(request, settings, tmp_path):
    if request.param == "redis":
        if not django_settings.REDIS_URL:
            pytest.skip("REDIS_URL is not set: the Redis backend is not in use")
        settings.REDIS_KEY_PREFIX = f"test-leases-{uuid.uuid4().hex[:8]}"
    else:
        settings.REDIS_URL = ""
        settings.VAR_DIR = tmp_path
    leases.reset_for_tests()
    yield request.param
    leases.reset_for_tests()


def holder_process(key, limit, settings):
    env = child_env(REDIS_URL=settings.REDIS_URL, REDIS_KEY_PREFIX=settings.REDIS_KEY_PREFIX,
                    TEAMLLM_VAR_DIR=str(settings.VAR_DIR),
                    GENERATION_HEARTBEAT_SECONDS=str(settings.GENERATION_HEARTBEAT_SECONDS))  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, key, str(limit)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    assert proc.stdout.readline().strip() == b"held"
    return proc


def test_the_limit_holds_and_release_frees_a_slot(backend):
    key = f"endpoint:{uuid.uuid4().hex[:6]}"
    first, second = leases.acquire(key, 2, wait=0), leases.acquire(key, 2, wait=0)
    assert first and second
    assert leases.acquire(key, 2, wait=0.1) is None
    assert leases.semaphores().holders(key) == 2
    leases.release(first)
    third = leases.acquire(key, 2, wait=0)
    assert third is not None
    leases.release(second)
    leases.release(third)
    assert leases.semaphores().holders(key) == 0


def test_the_limit_holds_across_processes_and_a_killed_holder_frees_its_slot(backend, settings):
    # a heartbeat of 1 s (a lease of 3 s) in both processes: the holder's keeper still renews in time
    # when a loaded machine (the suite's other processes) starves it for a second or two
    settings.GENERATION_HEARTBEAT_SECONDS = 1.0
    key = f"endpoint:{uuid.uuid4().hex[:6]}"
    proc = holder_process(key, 1, settings)
    try:
        # the other process holds the only slot, beyond the lease TTL (its keeper renews it)
        time.sleep(leases.lease_ttl() + 0.5)
        assert leases.acquire(key, 1, wait=0.2) is None
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    started = time.monotonic()
    lease = leases.acquire(key, 1, wait=leases.lease_ttl() + 2)
    assert lease is not None
    if backend == "file":
        assert time.monotonic() - started < 0.5  # the kernel dropped the flock at once
    leases.release(lease)


def test_a_waiting_acquire_gets_the_slot_when_it_frees(backend):
    key = f"run:{uuid.uuid4().hex[:6]}"
    held = leases.acquire(key, 1, wait=0)
    threading.Timer(0.3, leases.release, args=[held]).start()
    started = time.monotonic()
    lease = leases.acquire(key, 1, wait=3)
    assert lease is not None
    assert 0.25 < time.monotonic() - started < 2
    leases.release(lease)
