"""Error reports reach the admins (email; Sentry when SENTRY_DSN is set) and never carry
credentials: the technical 500 page of DEBUG=1 and the error mails mask them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core import mail
from django.test import Client
from django.urls import path

from teamllm_web.debug import CredentialsMaskingFilter, mask_url_passwords
from teamllm_web.settings.base import parse_admins

ROOT = Path(__file__).resolve().parents[2]
DB_PASSWORD = "db-Pw-7c1e9"
REDIS_PASSWORD = "redis-Pw-4b2f0"
DATABASE_URL = f"postgres://teamllm:{DB_PASSWORD}@127.0.0.1:5432/teamllm_masking"
REDIS_URL = f"redis://:{REDIS_PASSWORD}@127.0.0.1:6379/0"


def boom(request):
    raise RuntimeError("boom for the error report")


urlpatterns = [path("boom/", boom)]


def _python(code: str, tmp_path, **env) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "SENTRY_DSN")}
    full.update(TEAMLLM_VAR_DIR=str(tmp_path), **env)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=full, capture_output=True, text=True, timeout=120
    )


TECHNICAL_500 = """
import os, sys, django
django.setup()
from django.test import RequestFactory
from django.views.debug import technical_500_response
# runserver puts the whole process environment into request.META
request = RequestFactory().get("/boom/", **{k: v for k, v in os.environ.items() if k.isupper()})
try:
    raise RuntimeError("boom")
except RuntimeError:
    response = technical_500_response(request, *sys.exc_info())
sys.stdout.write(response.content.decode())
"""


def test_the_debug_500_page_shows_no_database_or_redis_password(tmp_path):
    result = _python(
        TECHNICAL_500,
        tmp_path,
        DJANGO_SETTINGS_MODULE="teamllm_web.settings.local",
        DEBUG="1",
        DATABASE_URL=DATABASE_URL,
        REDIS_URL=REDIS_URL,
        SENTRY_DSN="https://abcdef0123456789@sentry.example.org/42",
    )
    assert result.returncode == 0, result.stderr
    page = result.stdout
    assert "RuntimeError" in page and "DATABASES" in page and "CACHES" in page  # the page is there
    assert DB_PASSWORD not in page
    assert REDIS_PASSWORD not in page
    assert "abcdef0123456789" not in page
    assert "127.0.0.1:6379" in page  # the rest of a URL stays readable for debugging


def test_the_filter_masks_url_passwords_at_any_depth():
    cleansed = CredentialsMaskingFilter().cleanse_setting(
        "CACHES",
        {"default": {"LOCATION": REDIS_URL, "OPTIONS": {"urls": [f"amqp://u:{DB_PASSWORD}@h//"]}}},
    )
    flat = json.dumps(cleansed)
    assert REDIS_PASSWORD not in flat and DB_PASSWORD not in flat
    assert (
        mask_url_passwords("redis://:p@h:1/0 and https://a.org/x", "***")
        == "redis://:***@h:1/0 and https://a.org/x"
    )
    assert (
        CredentialsMaskingFilter().cleanse_setting("CELERY_BROKER_URL", "redis://h:6379/0")
        != "redis://h:6379/0"
    )


def test_admins_come_from_one_variable():
    assert parse_admins("Ada Lovelace <ada@lab.example.org>, ops@lab.example.org") == [
        ("Ada Lovelace", "ada@lab.example.org"),
        ("ops@lab.example.org", "ops@lab.example.org"),
    ]
    assert parse_admins("") == []


@pytest.mark.django_db
@pytest.mark.urls("tests.project.test_error_reports")
def test_a_server_error_is_mailed_to_the_admins_without_credentials(settings, admin_user):
    settings.ADMINS = [("Ops", "ops@lab.example.org")]
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": REDIS_URL}
    }
    settings.CELERY_BROKER_URL = REDIS_URL
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    assert client.get("/boom/").status_code == 500
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["ops@lab.example.org"]
    assert "boom for the error report" in message.subject + message.body
    whole = message.message().as_string()
    assert REDIS_PASSWORD not in whole and REDIS_PASSWORD not in message.body


SENTRY_STATE = """
import json, django
django.setup()
import sentry_sdk
client = sentry_sdk.get_client()
print(json.dumps({
    "active": client.is_active(),
    "dsn": client.dsn,
    "pii": client.options.get("send_default_pii"),
    "integrations": sorted(client.integrations),
}))
"""


@pytest.mark.parametrize("dsn", ["", "https://abcdef0123456789@sentry.example.org/42"])
def test_sentry_reports_errors_only_when_a_dsn_is_set(tmp_path, dsn):
    result = _python(
        SENTRY_STATE,
        tmp_path,
        DJANGO_SETTINGS_MODULE="teamllm_web.settings.production",
        SECRET_KEY="x7" * 30 + "qpzmWNVB",
        SENTRY_DSN=dsn,
    )
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout.strip().splitlines()[-1])
    if not dsn:
        assert state["active"] is False
        return
    assert state["active"] is True and state["dsn"] == dsn
    assert state["pii"] is False
    assert {"django", "celery"} <= set(state["integrations"])


def test_a_failed_celery_task_is_mailed_to_the_admins(settings):
    import logging

    settings.ADMINS = [("Ops", "ops@lab.example.org")]
    logging.getLogger("celery.app.trace").error("Task calibration.tasks.x raised: boom")
    assert len(mail.outbox) == 1 and "boom" in mail.outbox[0].subject + mail.outbox[0].body
