"""Credentials stay off debug pages and error reports.

Django's ``SafeExceptionReporterFilter`` hides settings whose names contain API, TOKEN,
KEY, SECRET, PASS, AUTH, SIGNATURE or HTTP_COOKIE. Ours also hides names with URL, DSN or
CREDENTIAL (``DATABASE_URL``, ``REDIS_URL``, ``CELERY_BROKER_URL``, ``EMAIL_URL``,
``SENTRY_DSN``, and the same names among request.META, which holds the whole process
environment under ``runserver``), and masks the password inside any URL it still shows
(``CACHES``' Redis location, a URL nested in another setting), keeping host and port
readable.
"""

from __future__ import annotations

import re
from typing import Any

from django.views.debug import SafeExceptionReporterFilter

# user:password@ (or :password@) right after the scheme of a URL
URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^:/@\s]*:)(?P<password>[^@\s]*)(?P<at>@)", re.I)


def mask_url_passwords(text: str, substitute: str) -> str:
    return URL_PASSWORD.sub(lambda m: f"{m['head']}{substitute}{m['at']}", text)


class CredentialsMaskingFilter(SafeExceptionReporterFilter):
    hidden_settings = re.compile(
        "API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|URL|DSN|CREDENTIAL",
        flags=re.I,
    )

    def cleanse_setting(self, key: Any, value: Any) -> Any:
        cleansed = super().cleanse_setting(key, value)
        if isinstance(cleansed, str) and "://" in cleansed:
            return mask_url_passwords(cleansed, self.cleansed_substitute)
        return cleansed
