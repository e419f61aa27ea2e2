"""Downloads of study data (exports, figures, offline workbooks) are never kept by a browser
or proxy cache (``Cache-Control: no-store``), and the language cookie is HttpOnly, SameSite
and, in production, Secure (issue 22, finding 7)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from core.accounts.roles import RESEARCHER
from research.models import ExportJob
from research.services.exports import export_job_run
from studies.models import Response
from tests.factories import UserFactory, scoring_group_assigned

ROOT = Path(__file__).resolve().parents[2]


def _no_store(response) -> bool:
    return "no-store" in response.get("Cache-Control", "")


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["items_csv", "items_xlsx", "results"])
def test_export_downloads_are_not_cached(demo, client, settings, tmp_path, kind):
    settings.MEDIA_ROOT = tmp_path
    study = Response.objects.get(research_id="A05_FS10").study
    owner = UserFactory(username="res-h", role=RESEARCHER)
    job = export_job_run(
        job_id=ExportJob.objects.create(kind=kind, params={"study_id": study.pk}, created_by=owner).pk
    )
    client.force_login(owner)
    download = client.get(f"/research/exports/{job.pk}/download")
    assert download.status_code == 200 and _no_store(download)
    b"".join(download.streaming_content)
    download.close()


@pytest.mark.django_db
@pytest.mark.parametrize("query", [{}, {"download": 1}])
def test_figures_are_not_cached(demo, client, query):
    study = Response.objects.get(research_id="A05_FS10").study
    client.force_login(UserFactory(username="res-f", role=RESEARCHER))
    reply = client.get("/research/figures/steps.svg", {"study": study.pk, **query})
    assert reply.status_code == 200 and _no_store(reply)


@pytest.mark.django_db
def test_workbook_downloads_are_not_cached(demo, client):
    users = get_user_model().objects
    rater1, rater2 = users.get(username="rater1"), users.get(username="rater2")
    group = scoring_group_assigned(
        responses=[Response.objects.get(research_id="A05_FS10")], rater_a=rater1, rater_b=rater2
    )
    client.force_login(users.get(username="admin"))
    reply = client.get(f"/manage/workbooks/{rater2.pk}/{group.pk}/download")
    assert reply.status_code == 200 and _no_store(reply)
    client.force_login(rater1)
    page = client.get("/scoring/workbooks/").content.decode()
    href = next(
        part.split('"')[0]
        for part in page.split('href="')[1:]
        if "/scoring/workbooks/" in part and "download" in part
    )
    reply = client.get(href)
    assert reply.status_code == 200 and _no_store(reply)


@pytest.mark.django_db
def test_language_cookie_is_httponly_and_samesite(client, settings):
    settings.LANGUAGE_COOKIE_SECURE = True  # as production sets it
    reply = client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    cookie = reply.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert cookie.value == "zh-hans"
    assert cookie["secure"] and cookie["httponly"] and cookie["samesite"] == "Lax"


def test_production_language_cookie_is_secure():
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
    env.update(DJANGO_SETTINGS_MODULE="teamllm_web.settings.production", SECRET_KEY="x7" * 30 + "qpzmWNVB")
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.LANGUAGE_COOKIE_SECURE, s.LANGUAGE_COOKIE_HTTPONLY, s.LANGUAGE_COOKIE_SAMESITE)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.stdout.split() == ["True", "True", "Lax"], result.stderr
