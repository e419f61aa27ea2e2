"""The log: one line per record on the console; server errors also mailed to ADMINS."""

from __future__ import annotations

from typing import Any


def logging_config(*, level: str) -> dict[str, Any]:
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
        "filters": {
            "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
            # "Bad Request: /accounts/invite/<uid>/<token>/" without the token
            "invitation_tokens": {"()": "onboarding.logs.InvitationTokenFilter"},
            "client_errors": {"()": "core.logs.ClientErrorsWithoutTraceback"},  # a 403: one line
            "once_per_minute": {"()": "teamllm_web.cache.OncePerMinute"},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "filters": ["invitation_tokens", "client_errors"],
            },
            "cache_console": {
                "class": "logging.StreamHandler",
                "formatter": "plain",
                "filters": ["once_per_minute"],
            },
            "mail_admins": {
                "level": "ERROR",
                "filters": ["require_debug_false", "invitation_tokens"],
                "class": "django.utils.log.AdminEmailHandler",
            },
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # 500s reach ADMINS through Django's own "django" logger; tasks that failed in a
            # worker through this one
            "celery.app.trace": {"handlers": ["mail_admins"], "level": "ERROR"},
            "django.db.backends": {"level": "WARNING"},
            # the filesystem transport has no host; kombu warns about it on every connection
            "kombu.connection": {"level": "ERROR"},
            # django-redis's ignored errors (Redis away): once a minute, without the traceback
            "teamllm_web.cache": {"handlers": ["cache_console"], "level": "WARNING", "propagate": False},
        },
    }
