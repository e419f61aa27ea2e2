"""Developer and demo settings: the embedded defaults (SQLite, filesystem broker)."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)
DEMO_MODE = env.bool("DEMO_MODE", default=True)

# Serve static files straight from static/ (no collectstatic needed).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
