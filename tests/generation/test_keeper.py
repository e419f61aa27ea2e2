"""The lease keeper reaches domain code only through the callbacks it is given, and
``generation.tasks`` gives them: the heartbeat on import; a ready worker registers the
engine's sweep as a periodic job."""

import logging
import threading
import time
import uuid

import pytest

from core.llm import leases
from generation import tasks
from generation.services.runs import runs_heartbeat


@pytest.fixture
def keeper(monkeypatch):
    """A fresh keeper in place of the process's, ticked by hand (no thread)."""
    monkeypatch.setattr(leases.Keeper, "ensure_started", lambda self: None)
    fresh = leases.Keeper()
    monkeypatch.setattr(leases, "_keeper", fresh)
    return fresh


def test_a_tick_beats_the_held_runs_and_sweeps_through_the_callbacks(keeper, settings, caplog):
    settings.GENERATION_STALE_SECONDS = 60
    beats, sweeps = [], []
    keeper.beat(7)
    with caplog.at_level(logging.WARNING, logger="core.llm.leases"):
        keeper.tick()  # no heartbeat registered: a wiring bug, said out loud
    assert "no heartbeat callback registered" in caplog.text

    keeper.on_heartbeat(heartbeat=lambda *, run_ids: beats.append(sorted(run_ids)))
    keeper.beat(7)
    keeper.beat(9)
    keeper.tick()
    assert beats == [[7, 9]]
    keeper.unbeat(7)  # 7 was beaten twice: still held
    keeper.unbeat(9)
    keeper.tick()
    assert beats == [[7, 9], [7]]

    keeper.start_sweeping(sweep=lambda: sweeps.append(True))
    keeper.tick()
    keeper.tick()  # within half a stale period: no second sweep
    assert sweeps == [True]


def test_the_tasks_module_wires_the_heartbeat():
    assert leases.keeper().heartbeat is runs_heartbeat


def test_a_ready_worker_sweeps_at_once_then_periodically(monkeypatch):
    sent, registered = [], []
    monkeypatch.setattr(tasks, "jobs_recover", lambda *, enqueue: sent.append(enqueue) or [])
    monkeypatch.setattr(
        tasks.periodic(), "every", lambda seconds, *, name, run: registered.append((name, run)) or run()
    )
    tasks._sweep_dead_runs_in_this_worker(sender=None)
    assert sent == [tasks.run_advance_send]  # at once (the periodic thread's first run)
    assert registered == [("engine sweep", tasks.runs_resume_dead)]
    registered[0][1]()
    assert sent == [tasks.run_advance_send] * 2


def test_a_beat_stuck_on_the_database_lets_no_held_lease_lapse(settings):
    """The keeper's own threads: while the runs' heartbeat waits (a database away), the lease of
    a call still out is renewed past its time to live, so the endpoint's limit still holds."""
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set: a lease on files needs no renewal")
    settings.REDIS_KEY_PREFIX = f"test-keeper-{uuid.uuid4().hex[:8]}"
    leases.reset_for_tests()
    keeper = leases.Keeper()
    database_back = threading.Event()
    keeper.on_heartbeat(heartbeat=lambda *, run_ids: database_back.wait(30))
    key = f"endpoint:{uuid.uuid4().hex[:6]}"
    lease = leases.semaphores().try_acquire(key, 1)
    assert lease is not None
    keeper.hold(lease)
    keeper.beat(1)  # the beat thread now hangs in the heartbeat
    try:
        time.sleep(leases.lease_ttl() * 2.5)
        assert leases.semaphores().holders(key) == 1  # renewed all along
        assert leases.semaphores().try_acquire(key, 1) is None
    finally:
        keeper.drop(lease)
        keeper.unbeat(1)
        database_back.set()
        leases.semaphores().release(lease)
        leases.reset_for_tests()
