"""Settings for the pytest suite. PostgreSQL and Redis are used when the
environment points at them (CI does); otherwise SQLite and the filesystem broker."""

import os

from .base import *  # noqa: F403
from .base import DATABASES, VAR_DIR, env
from .base import STORAGES as BASE_STORAGES

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Local files, whatever a developer's .env says; a test's child processes (the S3 export test)
# ask for the configured backend with TEST_FILE_STORAGE_FROM_ENV=1.
STORAGES = {
    "default": (
        BASE_STORAGES["default"]
        if env.bool("TEST_FILE_STORAGE_FROM_ENV", default=False)
        else {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    ),
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
LLM_MAX_ATTEMPTS = env.int("LLM_MAX_ATTEMPTS", default=4)
# The suite's stub and its tests' servers listen on 127.0.0.1 (any port) and need no key; a
# test that uses a key binds it to its server's host (TEAMLLM_LLM_KEY_..._HOSTS) as operators do.
LLM_KEYLESS_HOSTS = env.list("LLM_KEYLESS_HOSTS", default=["127.0.0.1"])

# A real worker process reads the test database, so SQLite tests use a file, not memory.
if DATABASES["default"]["ENGINE"].endswith(".sqlite3"):
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test_db.sqlite3")}

# Each test session gets its own queue and Redis key prefix, so that parallel
# sessions sharing one Redis (CI, several checkouts) never take each other's tasks; so do the
# processes of one session run in parallel (pytest-xdist names each: gw0, gw1...).
_SESSION = "-".join(
    filter(None, [env("TEST_SESSION_ID", default=str(os.getpid())), env("PYTEST_XDIST_WORKER", default="")])
)
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE", default=f"teamllm-test-{_SESSION}")
REDIS_KEY_PREFIX = env("REDIS_KEY_PREFIX", default=f"teamllm-test-{_SESSION}")
CACHES["default"]["KEY_PREFIX"] = REDIS_KEY_PREFIX  # noqa: F405

# Serve static files straight from static/ (no collectstatic needed).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# Generation: quick backoff, heartbeats and dead-worker detection, so fault tests are fast.
LLM_BACKOFF_BASE_SECONDS = env.float("LLM_BACKOFF_BASE_SECONDS", default=0.05)
LLM_BACKOFF_MAX_SECONDS = env.float("LLM_BACKOFF_MAX_SECONDS", default=0.5)
GENERATION_HEARTBEAT_SECONDS = env.float("GENERATION_HEARTBEAT_SECONDS", default=0.5)
GENERATION_STALE_SECONDS = env.float("GENERATION_STALE_SECONDS", default=3.0)
GENERATION_SLOT_WAIT_SECONDS = env.float("GENERATION_SLOT_WAIT_SECONDS", default=2.0)
# Workers start without loading the statistics libraries first (tests start many).
WORKER_LOADS_LIBRARIES = env.bool("WORKER_LOADS_LIBRARIES", default=False)
# Workers sweep the task outbox often, so outage tests recover quickly.
OUTBOX_SWEEP_SECONDS = env.float("OUTBOX_SWEEP_SECONDS", default=0.5)

# The ceiling on autosave batches per account per second is off: tests script saves faster
# than any page and reuse sheet ids within a second; its own tests turn it on.
SHEET_SAVES_PER_SECOND = env.int("SHEET_SAVES_PER_SECOND", default=0)
