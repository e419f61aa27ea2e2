"""Settings shared by every environment; values come from the environment (12-factor).

Every variable read here is listed in the configuration table of docs/operators.md.
"""

from __future__ import annotations

import secrets
from datetime import date, timedelta
from email.utils import getaddresses
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from teamllm_web.cache import LOGGER as CACHE_LOGGER
from teamllm_web.cache import redis_cache

from .logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

VAR_DIR = Path(env("TEAMLLM_VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _dev_secret_key() -> str:
    """A key generated once into var/ so that sessions survive restarts in dev."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY", default=None) or _dev_secret_key()
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "teamllm_web.apps.TeamAdminConfig",  # django.contrib.admin, Admin role only
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "django_ratelimit",  # its system check: the counts need a cache every web process shares
    "django_zxcvbn_password_validator",  # only for its translations of zxcvbn's advice (zh_Hans too)
    "csp",
    "django_htmx",
    "template_partials",
    "django_prometheus",
    "core",
    "studies",
    "scoring",
    "calibration",
    "research",
    "generation",
    "onboarding",
    "demo",
    "training",
    "judging",
    "ninja",  # django-ninja: its Swagger UI served from our static files (no CDN)
    "api",
]

MIDDLEWARE = [
    # django-prometheus: counts and times every request (first and last)
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    # first: /healthz answers whatever the Host header, without the HTTPS redirect
    "teamllm_web.middleware.LivenessMiddleware",
    # PUT, DELETE, ... on a page: 405 (the API under /api/v1/ routes its own methods)
    "teamllm_web.middleware.PageMethodsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "api.middleware.api_never_cached",  # no cache keeps an answer of the API, its 405s included
    "api.middleware.api_method_not_allowed_as_json",  # the API's 405 as JSON; 401 to the anonymous
    # before any view reads a body (CSRF's check reads the form in process_view, after every
    # middleware's call): 413 for a request larger than REQUEST_MAX_BYTES
    "teamllm_web.middleware.RequestSizeLimitMiddleware",
    # a NUL in the path or query, or too many query fields: 400 before any view reads them
    "teamllm_web.middleware.QueryRefusalMiddleware",
    # a form sent where a JSON body is read: 400, not the RawPostDataException's 500
    "teamllm_web.middleware.FormBodyToJsonEndpointMiddleware",
    # a view that met a locked or unreachable database: 503 with Retry-After, not a 500
    "teamllm_web.middleware.DatabaseBusyMiddleware",
    "teamllm_web.middleware.LoginRequiredEverywhereMiddleware",
    "teamllm_web.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # last, as django-axes asks: turns a locked-out login into the lockout page
    "axes.middleware.AxesMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "teamllm_web.urls"
WSGI_APPLICATION = "teamllm_web.wsgi.application"
ASGI_APPLICATION = "teamllm_web.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "teamllm_web.context_processors.roles",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DATABASES["default"].setdefault("ATOMIC_REQUESTS", False)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL + a busy timeout let the web process and the worker share the file.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            # Writers take the lock when the transaction begins, so concurrent worker
            # threads wait (busy timeout) instead of failing with "database is locked"
            # when a read transaction cannot be upgraded to a write.
            "transaction_mode": "IMMEDIATE",
        }
    )
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # PgBouncer's transaction pooling: no cursor outlives its transaction (docs/operators.md)
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = env.bool(
        "DB_DISABLE_SERVER_SIDE_CURSORS", default=False
    )
# django-prometheus's database backends: the same backends, counting queries and errors
DATABASES["default"]["ENGINE"] = DATABASES["default"]["ENGINE"].replace(
    "django.db.backends.", "django_prometheus.db.backends.", 1
)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Every password an account's owner chooses (invitation link, password change page,
# changepassword, createsuperuser): 12+ characters, not a common one, not like the
# username/name/email, not all digits, not the demo's published password.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": env.int("PASSWORD_MIN_LENGTH", default=12)},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "onboarding.passwords.PublishedPasswordValidator"},
    {"NAME": "onboarding.passwords.UsernameInPasswordValidator"},
    # zxcvbn: "aaaaaaaaaaaa", "abcdefghijkl", "teamllmteamllm" are long enough for Django's own
    {"NAME": "onboarding.passwords.GuessablePasswordValidator"},
]
# zxcvbn's score a password needs (0-4; 4: "very unguessable"; 3 let "Summer2026!!!" and a
# keyboard walk "ZAQ!2wsxCDE#" through: hostile pass 13)
PASSWORD_MINIMAL_STRENGTH = env.int("PASSWORD_MIN_STRENGTH", default=4)
# words a password must not lean on, besides the account's own details
# (zxcvbn knows years up to 2019 only: "teamllm-web-2026" scored 4 without this and the next ones)
PASSWORD_EXTRA_DICTIONARY = [
    *("teamllm", "teamllm-web", "web", "llm", "cgpst", "teamfusion"),
    *("rater", "calibrator", "researcher", "admin", "demo"),
    *(str(year) for year in range(2020, date.today().year + 3)),
]
# --- Accounts: login throttling (django-axes) and demo accounts ---------------------
AUTHENTICATION_BACKENDS = [
    # refuses a locked-out username or address before any password is checked
    "teamllm_web.auth.ThrottledLoginBackend",
    # Django's ModelBackend that refuses demo accounts unless DEMO_MODE is on
    "teamllm_web.auth.AccountBackend",
]
# Failed logins of one username, from any address, before it is locked
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=10)
# Failed logins from one client address, for any usernames, before it is locked (password
# spraying); higher, so that a lab behind one NAT address is not locked by a few typos
AXES_ADDRESS_FAILURE_LIMIT = env.int("AXES_ADDRESS_FAILURE_LIMIT", default=30)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("AXES_COOLOFF_MINUTES", default=15))
# two separate locks: per username (across addresses) and per address (across usernames)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_HANDLER = "teamllm_web.auth.LoginFailuresHandler"  # each lock with its own limit
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no "AXES: BEGIN version..." line before every command's output
AXES_LOCKOUT_CALLABLE = "teamllm_web.auth.lockout_response"  # templates/registration/locked_out.html
AXES_CLIENT_IP_CALLABLE = "teamllm_web.auth.client_ip"
# The reverse proxies whose X-Forwarded-For is believed: comma-separated addresses or networks
# (e.g. 127.0.0.1,::1,172.16.0.0/12). A request from any other peer is counted by its
# connection address (REMOTE_ADDR), whatever X-Forwarded-For it sends.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])
# How many reverse proxies in front of the app append to X-Forwarded-For (0: use
# REMOTE_ADDR); applied only when the connection comes from one of TRUSTED_PROXIES.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The language cookie: no script reads it, no other site sends it (Secure in production).
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = env("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# collectstatic's target; the image collects into /app/staticfiles so an upgrade serves its own
STATIC_ROOT = Path(env("STATIC_ROOT", default=str(VAR_DIR / "staticfiles")))
# Generated files (exports) go to the default storage: MEDIA_ROOT on local disk, or any
# Django storage backend (e.g. django-storages' S3Storage) so that every web host serves them.
# FILE_STORAGE_BACKEND=s3 is django-storages' S3Storage (the `s3` extra: pip install ".[s3]", the
# image's EXTRAS=s3), configured by the S3_* variables below; FILE_STORAGE_OPTIONS adds or
# overrides any other option of the backend.
S3_STORAGE_BACKEND = "storages.backends.s3.S3Storage"
FILE_STORAGE_BACKEND = env("FILE_STORAGE_BACKEND", default="django.core.files.storage.FileSystemStorage")
if FILE_STORAGE_BACKEND == "s3":
    FILE_STORAGE_BACKEND = S3_STORAGE_BACKEND


def _s3_options() -> dict:
    """S3Storage's options from the environment; unset ones keep the backend's default (the
    credentials then come from boto3's own chain: AWS_ACCESS_KEY_ID, a profile, an instance role)."""
    options = {
        "bucket_name": env("S3_BUCKET", default=None),
        "endpoint_url": env("S3_ENDPOINT_URL", default=None),  # a non-AWS store (MinIO, Ceph, ...)
        "region_name": env("S3_REGION", default=None),
        "access_key": env("S3_ACCESS_KEY_ID", default=None),
        "secret_key": env("S3_SECRET_ACCESS_KEY", default=None),
        # a file's url() is signed and valid this many seconds (exports are streamed by the web
        # process, which checks the reader's role, so no unsigned link to an export exists)
        "querystring_auth": env.bool("S3_QUERYSTRING_AUTH", default=True),
        "querystring_expire": env.int("S3_QUERYSTRING_EXPIRE", default=300),
        "file_overwrite": False,  # as on local disk: a name in use gets a suffix, nothing is replaced
    }
    from botocore.config import Config  # the S3 backend's own library (the `s3` extra)

    # a store that hangs holds a web thread no longer than these (botocore waits a minute each)
    options["client_config"] = Config(
        connect_timeout=env.float("S3_CONNECT_TIMEOUT_SECONDS", default=3.0),
        read_timeout=env.float("S3_READ_TIMEOUT_SECONDS", default=10.0),
        retries={"max_attempts": env.int("S3_MAX_ATTEMPTS", default=2), "mode": "standard"},
    )
    return {key: value for key, value in options.items() if value is not None}


STORAGES = {
    "default": {
        "BACKEND": FILE_STORAGE_BACKEND,
        "OPTIONS": {
            **(_s3_options() if FILE_STORAGE_BACKEND == S3_STORAGE_BACKEND else {}),
            **env.json("FILE_STORAGE_OPTIONS", default={}),
        },
    },
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
if FILE_STORAGE_BACKEND == S3_STORAGE_BACKEND and not STORAGES["default"]["OPTIONS"].get("bucket_name"):
    raise ImproperlyConfigured("FILE_STORAGE_BACKEND is S3: set S3_BUCKET (the bucket for exports)")
MEDIA_ROOT = Path(env("MEDIA_ROOT", default=str(VAR_DIR / "media")))
# Downloads of exports one web process lets wait on the storage at once (the others get a 503
# with Retry-After, so pages and health checks keep their threads), and how long it answers 503
# at once after the storage failed (research.services.downloads).
EXPORT_DOWNLOADS_PER_PROCESS = env.int("EXPORT_DOWNLOADS_PER_PROCESS", default=2)
STORAGE_RETRY_SECONDS = env.int("STORAGE_RETRY_SECONDS", default=30)
MEDIA_URL = "media/"
# Exports (and their files) are deleted this many days after they finished; 0 keeps them.
EXPORT_RETENTION_DAYS = env.float("EXPORT_RETENTION_DAYS", default=7)
# exports one person may have waiting or running at once (0: no limit)
EXPORT_JOBS_PER_USER = env.int("EXPORT_JOBS_PER_USER", default=3)
# requests per person (all their tokens and their browser session together) and minute on
# /api/v1/ (django-ninja's throttling, counted in Django's cache); 0: no limit
API_RATE_LIMIT_PER_MINUTE = env.int("API_RATE_LIMIT_PER_MINUTE", default=120)
# live (unrevoked, unexpired) API tokens one person may hold
API_TOKENS_PER_USER = env.int("API_TOKENS_PER_USER", default=5)
# Uploaded workbooks are read from memory up to this size and refused above it.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("UPLOAD_MAX_BYTES", default=20 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
# Any request's whole body, an upload with its form fields and multipart framing (413 above it).
REQUEST_MAX_BYTES = DATA_UPLOAD_MAX_MEMORY_SIZE + 1024 * 1024

SESSION_COOKIE_AGE = 60 * 60 * 12
# Sessions in the database, read through the cache (Redis in production; a session not in
# the cache, or a cache that is down, is read from the database)
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
CSRF_FAILURE_VIEW = "teamllm_web.views.csrf_failure"  # an out-of-date form: the site's own page

# --- Content-Security-Policy (django-csp) -------------------------------------------
# No inline script, no inline handler, no inline style: every script and stylesheet is a
# static file; data for scripts travels in <script type="application/json"> (json_script).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}


# --- Error reports --------------------------------------------------------------------
# Server errors (500s, failed Celery tasks) are mailed to ADMINS ("Name <a@b.org>,c@d.org").
def parse_admins(value: str) -> list[tuple[str, str]]:
    """ "Ada <ada@lab.org>, ops@lab.org" -> [("Ada", "ada@lab.org"), ("ops@lab.org", "ops@lab.org")]"""
    return [(name or addr, addr) for name, addr in getaddresses([value]) if addr]


ADMINS = parse_admins(env("ADMINS", default=""))
MANAGERS = ADMINS
SERVER_EMAIL = env("SERVER_EMAIL", default="teamllm-web@localhost")
DEFAULT_FROM_EMAIL = SERVER_EMAIL
EMAIL_SUBJECT_PREFIX = "[teamllm-web] "
# e.g. smtp+tls://user:password@smtp.example.org:587; the default prints mails to the log
globals().update(env.email_url_config(env("EMAIL_URL", default="") or "consolemail://"))
# Public address of the site, for links made outside a request (invite_raters).
SITE_URL = env("SITE_URL", default="http://127.0.0.1:8000")
# How long an invitation's set-password link works (Django's password-reset token timeout).
PASSWORD_RESET_TIMEOUT = env.int("INVITATION_LINK_DAYS", default=7) * 24 * 3600
# Invitation URLs that cannot be used (unknown, forged, expired, used) answered to one
# client address within the window; past the limit every invitation URL answers 429.
INVITATION_LINK_FAILURE_LIMIT = env.int("INVITATION_LINK_FAILURE_LIMIT", default=20)
INVITATION_LINK_FAILURE_WINDOW = timedelta(minutes=env.float("INVITATION_LINK_FAILURE_MINUTES", default=15))
# Debug pages and error mails mask credentials: settings named like URL/DSN/TOKEN and
# passwords inside any URL (DATABASES, CACHES, CELERY_BROKER_URL, request.META).
DEFAULT_EXCEPTION_REPORTER_FILTER = "teamllm_web.debug.CredentialsMaskingFilter"

# --- Celery and Redis -------------------------------------------------------
REDIS_URL = env("REDIS_URL", default="")
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="") or REDIS_URL or "filesystem://"
# Connect and read timeout for every Redis connection (broker, cache, endpoint leases).
REDIS_TIMEOUT_SECONDS = env.float("REDIS_TIMEOUT_SECONDS", default=2.0)
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_TIMEOUT_SECONDS
BROKER_DIR = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    # kombu's transport with each message written whole before a worker can see it
    CELERY_BROKER_TRANSPORT = "core.tasks.filesystem_broker:Transport"
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # kombu polls the folder once a second by default; a generation run hands each
        # call to the next through the broker, so poll faster.
        "polling_interval": 0.1,
    }
else:
    # Redis re-delivers an unacknowledged task after this many seconds; generation
    # runs are long, so keep it well above the longest task.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
        # A broker host that drops packets or a Redis that hangs must not hold a web
        # request: publishing gives up after these and the outbox sends later.
        "socket_connect_timeout": REDIS_TIMEOUT_SECONDS,
        "socket_timeout": REDIS_TIMEOUT_SECONDS,
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE", default="teamllm")
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Remote control (ping, inspect: /status/'s worker list) is a fanout of control messages; on
# kombu's filesystem broker their concurrent writes race (kombu #1551), so `make run` turns it
# off when it has no Redis to start.
CELERY_WORKER_ENABLE_REMOTE_CONTROL = env.bool("CELERY_WORKER_REMOTE_CONTROL", default=True)
# Every worker writes a heartbeat row this often; /status/ reads it where remote control is off.
WORKER_BEAT_SECONDS = env.float("WORKER_BEAT_SECONDS", default=10.0)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TIMEZONE = TIME_ZONE
# Celery's Django fixup closes the database connections before and after every task
# unless they may be reused; reconnecting would cost a connection per generation task. Tasks that
# need it drop broken or expired connections themselves (close_old_connections).
CELERY_DB_REUSE_MAX = 500
# A worker loads the statistics and spreadsheet libraries before its pool starts (``research.tasks``):
# its first export or recompute does not pay their import (2-3 s). The test suite, which starts
# workers by the hundred, turns it off.
WORKER_LOADS_LIBRARIES = env.bool("WORKER_LOADS_LIBRARIES", default=True)
# Tasks that must run after a commit are recorded in the database (the outbox,
# ``core.tasks.outbox``) and sent after commit; every worker sends what is still
# pending (the broker was away) this often.
OUTBOX_SWEEP_SECONDS = env.float("OUTBOX_SWEEP_SECONDS", default=5.0)
# A task the broker took and no worker received is sent again this long after (once the queue
# is empty); one received and never finished, after OUTBOX_STALLED_SECONDS; at most OUTBOX_MAX_SENDS.
OUTBOX_REDELIVER_SECONDS = env.float("OUTBOX_REDELIVER_SECONDS", default=60.0)
OUTBOX_STALLED_SECONDS = env.float("OUTBOX_STALLED_SECONDS", default=3600.0)
OUTBOX_MAX_SENDS = env.int("OUTBOX_MAX_SENDS", default=10)

# Redis keys used for cross-worker coordination (concurrency limits) are prefixed
# so that several deployments or test sessions can share one Redis server.
REDIS_KEY_PREFIX = env("REDIS_KEY_PREFIX", default="teamllm")

CACHES = {
    # django-redis; a Redis that is down or hangs is a cache miss (logged once a minute), not a
    # 500: the cache only ever holds what can be recomputed (teamllm_web/cache.py)
    "default": (
        redis_cache(url=REDIS_URL, prefix=REDIS_KEY_PREFIX, timeout=REDIS_TIMEOUT_SECONDS)
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
DJANGO_REDIS_LOGGER = CACHE_LOGGER
# django-ratelimit counts in this cache (the autosave ceiling, the invitation links' failures);
# a cache that is away lets requests through: a ceiling guards against floods, never a score
RATELIMIT_FAIL_OPEN = True
# its "ip" key: the address django-axes counts (TRUSTED_PROXIES), an IPv6 one as its /64
RATELIMIT_IP_META_KEY = "teamllm_web.auth.client_ip_for_counts"
# Without Redis (make run's fallback) each process counts in its own memory, as it caches there
SILENCED_SYSTEM_CHECKS = [] if REDIS_URL else ["django_ratelimit.E003", "django_ratelimit.W001"]

# --- Product settings ---------------------------------------------------------
# Base URL of the bundled OpenAI-compatible stub used by the demo's `stub` endpoint.
LLM_STUB_URL = env("LLM_STUB_URL", default="http://127.0.0.1:8765/v1")
LLM_TIMEOUT_SECONDS = env.float("LLM_TIMEOUT_SECONDS", default=120.0)
# 0: retries end with the retry budget (LLM_RETRY_BUDGET_SECONDS), whatever their count
LLM_MAX_ATTEMPTS = env.int("LLM_MAX_ATTEMPTS", default=0)
# A model endpoint reads its API key only from an environment variable whose name starts
# with this prefix (TEAMLLM_LLM_KEY_OPENAI, ...): no endpoint can make a worker send
# SECRET_KEY, DATABASE_URL or any other secret of its environment to a host.
LLM_KEY_ENV_PREFIX = env("LLM_KEY_ENV_PREFIX", default="TEAMLLM_LLM_KEY_")
# Where provider calls may go (core.llm.egress): a key only to the hosts its own variable
# with _HOSTS appended names (TEAMLLM_LLM_KEY_OPENAI_HOSTS=api.openai.com; none: nowhere),
# an endpoint without a key only to these hosts; a host name that resolves to a loopback or
# private address only inside LLM_PRIVATE_NETWORKS (addresses written in a list need not be).
LLM_KEYLESS_HOSTS = env.list("LLM_KEYLESS_HOSTS", default=[])
LLM_PRIVATE_NETWORKS = env.list("LLM_PRIVATE_NETWORKS", default=[])
DEMO_MODE = env.bool("DEMO_MODE", default=False)
# Bearer token that lets monitoring read /status/ without a session (empty: admins only).
STATUS_TOKEN = env("STATUS_TOKEN", default="")
# /metrics (Prometheus) answers only `Authorization: Bearer $METRICS_TOKEN`; unset = 404.
METRICS_TOKEN = env("METRICS_TOKEN", default="")
# Autosave batches one account may send per second, all its sheets together (counted in the
# cache); past it a save answers 429 with Retry-After and the page retries later.
SHEET_SAVES_PER_SECOND = env.int("SHEET_SAVES_PER_SECOND", default=5)

LOGGING = logging_config(level=env("LOG_LEVEL", default="INFO"))

# --- Generation ----------------------------------------------------------------
# Backoff between provider attempts (429, 5xx, timeouts): base * 2^n with jitter, capped.
LLM_BACKOFF_BASE_SECONDS = env.float("LLM_BACKOFF_BASE_SECONDS", default=1.0)
LLM_BACKOFF_MAX_SECONDS = env.float("LLM_BACKOFF_MAX_SECONDS", default=60.0)
# Seconds a provider call may spend waiting to retry (an endpoint may set its own).
LLM_RETRY_BUDGET_SECONDS = env.float("LLM_RETRY_BUDGET_SECONDS", default=600.0)
# Workers renew their leases and beat the heartbeat of the runs they work on this
# often; a run whose heartbeat is older than GENERATION_STALE_SECONDS lost its
# worker and is resumed by the sweeper every worker runs.
GENERATION_HEARTBEAT_SECONDS = env.float("GENERATION_HEARTBEAT_SECONDS", default=10.0)
GENERATION_STALE_SECONDS = env.float("GENERATION_STALE_SECONDS", default=60.0)
# A queued run or judge task that no worker has taken up this long after its task was
# sent lost that task (a broker that lost its data, a worker killed before it started):
# the sweeper sends it again. Generous, as a long queue also makes jobs wait.
ENGINE_START_SECONDS = env.float("ENGINE_START_SECONDS", default=300.0)
# How long a job paused by an outage (Redis or the broker away) waits before it fails with
# that reason (a person's retry, or the sweeper once the outage is over, resumes it).
ENGINE_OUTAGE_WAIT_SECONDS = env.float("ENGINE_OUTAGE_WAIT_SECONDS", default=3600.0)
# How long a stuck job waits for a worker when every worker is gone (no worker beat): then
# the web processes fail it with that reason; the first worker back resumes it.
ENGINE_ORPHAN_SECONDS = env.float("ENGINE_ORPHAN_SECONDS", default=900.0)
# The gate before an LLM judge may count as a study's third rater (judging.services.qualification):
# the alternative annotator test on at least this many double-scored responses the judge scored,
# each human rater compared on at least JUDGE_GATE_MIN_PER_RATER of them, with this epsilon.
JUDGE_GATE_MIN_RESPONSES = env.int("JUDGE_GATE_MIN_RESPONSES", default=50)
JUDGE_GATE_MIN_PER_RATER = env.int("JUDGE_GATE_MIN_PER_RATER", default=30)
JUDGE_GATE_EPSILON = env.float("JUDGE_GATE_EPSILON", default=0.2)
# How long a task keeps trying to store an LLM's answer while the database is busy or away,
# before it gives up (its retry then makes the call again).
GENERATION_STORE_WAIT_SECONDS = env.float("GENERATION_STORE_WAIT_SECONDS", default=60.0)
# How long a task waits for a free slot of its endpoint before re-queueing itself.
GENERATION_SLOT_WAIT_SECONDS = env.float("GENERATION_SLOT_WAIT_SECONDS", default=5.0)
# A task keeps making its run's calls until it has worked this long, then queues the
# run behind the others (fair sharing of workers; fewer hand-offs for fast providers).
GENERATION_TASK_SECONDS = env.float("GENERATION_TASK_SECONDS", default=1.0)
