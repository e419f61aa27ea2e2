"""Production settings: refuse to start without a secret key, secure cookies, HSTS."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import SILENCED_SYSTEM_CHECKS, env

DEBUG = env.bool("DEBUG", default=False)
if DEBUG:
    raise ImproperlyConfigured("DEBUG must be off in production.")
SECRET_KEY = env("SECRET_KEY", default="")
# Words that mark a placeholder copied from documentation, not a generated key.
_PLACEHOLDER_WORDS = ("change-me", "changeme", "example", "your-secret", "secret-key", "insecure")
if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5:
    raise ImproperlyConfigured("Set SECRET_KEY (50+ random characters) to run in production.")
if any(word in SECRET_KEY.lower() for word in _PLACEHOLDER_WORDS):
    raise ImproperlyConfigured(
        "SECRET_KEY is a placeholder; generate one: "
        'python3 -c "import secrets; print(secrets.token_urlsafe(50))"'
    )

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
LANGUAGE_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 30)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
DEMO_MODE = False
SILENCED_SYSTEM_CHECKS = [*SILENCED_SYSTEM_CHECKS, *([] if SECURE_HSTS_PRELOAD else ["security.W021"])]

# Error reports to Sentry as well as to ADMINS, when a DSN is given (web and workers:
# the Celery worker loads these settings too). No personal data: no user names, emails,
# addresses, cookies or request bodies.
SENTRY_DSN = env("SENTRY_DSN", default="")
if SENTRY_DSN:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        environment=env("SENTRY_ENVIRONMENT", default="production"),
        send_default_pii=False,
        traces_sample_rate=0.0,
    )
