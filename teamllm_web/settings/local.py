"""Developer and demo settings: the embedded defaults (SQLite, filesystem broker)."""

from urllib.parse import urlsplit

from .base import *  # noqa: F403
from .base import LLM_STUB_URL, env

DEBUG = env.bool("DEBUG", default=True)
DEMO_MODE = env.bool("DEMO_MODE", default=True)

# Serve static files straight from static/ (no collectstatic needed).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# The bundled LLM stub (LLM_STUB_URL, no key, on loopback as `make run` starts it) may be
# called; other keyless hosts as LLM_KEYLESS_HOSTS says.
LLM_KEYLESS_HOSTS = [*env.list("LLM_KEYLESS_HOSTS", default=[]), urlsplit(LLM_STUB_URL).netloc]
