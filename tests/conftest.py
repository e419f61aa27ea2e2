"""Fixtures shared by the whole suite.

The suite uses whatever DATABASE_URL / REDIS_URL point at (CI: PostgreSQL and
Redis) and says which in its header. Tests marked ``worker`` run tasks in a
real Celery worker process; tests marked ``postgres`` are skipped on SQLite.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from django.conf import settings

from tests.workers import WorkerProcess, session_worker_register

REFERENCE = Path(__file__).resolve().parent.parent / "studies" / "data"


def pytest_collection_modifyitems(config, items):
    """Tests with a live worker run last: once started, the session's worker stays, and one that
    works on what another test left in the outbox deadlocked that test's own writes (a study set up
    while the worker ran its assignments). Tests marked ``postgres`` exercise what SQLite does not
    have; on SQLite they are skipped, saying why."""
    items.sort(key=lambda item: "celery_worker" in getattr(item, "fixturenames", ()))  # stable
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL; the suite runs on SQLite (DATABASE_URL unset)")
    for item in items:
        if item.get_closest_marker("postgres"):
            item.add_marker(skip)


def pytest_report_header(config):
    db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    broker = settings.CELERY_BROKER_URL.split("://", 1)[0]
    return [
        f"teamllm-web backends: database={db} broker={broker} "
        f"queue={settings.CELERY_TASK_DEFAULT_QUEUE} (worker tests run a real Celery worker process)"
    ]


@pytest.fixture(scope="session")
def data_a() -> list:
    return json.loads((REFERENCE / "data_A.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def _session_worker(django_db_setup, django_db_blocker):
    worker = WorkerProcess()
    session_worker_register(worker)
    with django_db_blocker.unblock():
        worker.start()
    yield worker
    worker.stop()


@pytest.fixture
def celery_worker(_session_worker, transactional_db):
    """A live worker process that sees this test's committed data. After the test it is
    given time to finish what the test's work recorded in the outbox (a response's
    assignment and diversity after its run, the done marks): a worker still writing
    while the test's tables are emptied deadlocks the TRUNCATE."""
    if not _session_worker.alive:
        _session_worker.start()
    yield _session_worker
    _worker_settle(since=_session_worker.started_at, seconds=20)


def _worker_settle(*, since, seconds: float) -> None:
    """Wait for what the running worker owes; tasks sent before a test killed and restarted it
    are owed by a process that is gone (the sweeper's resumed runs were waited for by the test)."""
    from core.models import TaskOutbox  # models load after Django is set up

    owed = TaskOutbox.objects.filter(sent_at__gte=since, done_at__isnull=True)
    deadline = time.monotonic() + seconds
    while owed.exists() and time.monotonic() < deadline:
        time.sleep(0.2)


@pytest.fixture
def demo(db, settings):
    """The demo data (study, FS10, A05_FS10, demo users) in the test database."""
    from demo.services import demo_seed
    from studies.models import AuditEvent

    settings.DEMO_MODE = True
    seeded = demo_seed()
    # the seed's own events (its response import, its judge): tests count the events they cause
    AuditEvent.objects.all().delete()
    return seeded


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium through Playwright, started by a test process's first browser test and
    kept to its end (each test opens its own contexts; a launch costs about a second of CPU).

    Playwright's sync API keeps an event loop in the test thread, so Django's async guard is
    relaxed from then on in this process (the processes the tests start do not inherit that:
    tests.workers.child_env)."""
    from playwright.sync_api import sync_playwright

    from tests.browser import launch

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = launch(playwright)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def fresh_rate_counts(settings):
    """django-ratelimit's counts (the autosave ceiling, the invitation links' failures) start
    from nothing: this test's own key prefix, so no count of an earlier test with the same
    ids in the same window is seen, and nothing else in the cache is touched."""
    settings.RATELIMIT_CACHE_PREFIX = f"rl-{time.time_ns()}:"


@pytest.fixture(autouse=True)
def _downloads_fresh():
    """Each test starts with the download guard of a fresh process (no storage failure seen)."""
    from research.services.downloads import downloads_reset_for_tests

    downloads_reset_for_tests()


@pytest.fixture(autouse=True)
def _default_language():
    """Requests activate the user's language in the test thread; start every test in English."""
    from django.utils import translation

    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(scope="session")
def _llm_stub_server():
    from devtools.llm_stub import stub_serve

    server = stub_serve("127.0.0.1", 0).start_in_thread()
    yield server
    server.stop()


@pytest.fixture
def llm_stub(_llm_stub_server):
    """The bundled OpenAI-compatible stub, over real HTTP on a free port; healthy,
    without latency and with fresh statistics at the start of every test."""
    _llm_stub_server.reset()
    yield _llm_stub_server
    _llm_stub_server.reset()


@pytest.fixture(scope="session")
def _litellm_gateway(_llm_stub_server, tmp_path_factory):
    from tests.gateway import gateway_start

    gateway = gateway_start(
        stub_base_url=_llm_stub_server.base_url, workdir=tmp_path_factory.mktemp("litellm")
    )
    yield gateway
    gateway.stop()


@pytest.fixture
def litellm_gateway(_litellm_gateway, llm_stub):
    """LiteLLM's proxy (a real gateway, with a master key) in front of the stub; ``llm_stub`` is
    reset as for every test. Its models: ``stub-cgpst``, ``stub-rpm`` (rpm limit), ``mock-429``,
    ``mock-500``."""
    yield _litellm_gateway


@pytest.fixture
def scored(db):
    """Three systems (models) on two scenarios, every response scored by the same pair."""
    from calibration.services.calibration import study_agreement_recompute
    from tests.factories import reference_changes, scoring_group, sheet_submitted, varied_changes

    group, responses = scoring_group(n_responses=3)
    other, more = scoring_group(
        n_responses=3,
        study=group.study,
        condition=group.condition,
        rater_a=group.rater_a,
        rater_b=group.rater_b,
    )
    for response, twin in zip(responses, more, strict=True):  # the same model on the second scenario
        twin.model = response.model
        twin.research_id = f"{response.research_id.split('_')[0]}_{twin.scenario.code}"
        twin.save(update_fields=["model", "research_id"])
    units = [(group, r) for r in responses] + [(other, r) for r in more]
    for shift, (unit, response) in zip((-3, -1, 1, -2, 0, 2), units, strict=True):
        sheet_submitted(unit.rater_a, response, varied_changes(reference_changes(3), shift), group=unit)
        sheet_submitted(unit.rater_b, response, varied_changes(reference_changes(4), shift - 1), group=unit)
    study_agreement_recompute(study_id=group.study_id)
    return group, responses + more


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After a browser test its pages are closed (the browser serves the process's next tests).
    Before a live-server test's database is emptied: its pages closed, and the requests they
    sent on closing (a sheet's time report on leaving) finished. A request still in a transaction
    beside the flush's TRUNCATE deadlocked it, and the next test found the last one's rows."""
    browser = getattr(item, "funcargs", {}).get("browser")
    for context in list(getattr(browser, "contexts", [])):  # a failed test's pages too: the browser stays
        context.close()
    if "live_server" in item.fixturenames and item.get_closest_marker("django_db"):
        _other_sessions_settle()
    return (yield)


def _other_sessions_settle(timeout: float = 3.0) -> None:
    """Wait (at most ``timeout``) until no other session of this test database is in a query or
    a transaction (PostgreSQL's pg_stat_activity; nothing to wait for on SQLite)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    time.sleep(0.1)  # a request sent on closing a page reaches the server
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
            )
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.05)
