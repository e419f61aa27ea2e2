"""At most EXPORT_JOBS_PER_USER of a person's exports wait or run at once (hostile pass 16: no cap
on queued exports, one researcher could fill the workers' queue). One more is refused with a
message on the page and 429 in the API, makes no job, and other people keep their own room."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from api.services.tokens import token_create
from research.models import ExportJob
from studies.models import Study

pytestmark = pytest.mark.django_db


def _session(username: str) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


def test_the_page_and_the_api_refuse_an_export_past_the_limit(demo, settings):
    settings.EXPORT_JOBS_PER_USER = 2
    study = Study.objects.get()
    page = _session("researcher")
    started = [page.post("/research/exports/", {"kind": "results", "study": study.pk}) for _ in range(2)]
    assert [r.status_code for r in started] == [200, 200]
    refused = page.post("/research/exports/", {"kind": "results", "study": study.pk})
    assert refused.status_code == 200  # swapped into the export area
    assert "You have 2 exports waiting or running" in refused.content.decode()
    token = token_create(
        user=get_user_model().objects.get(username="researcher"), name="t", scope="write", days=1
    )
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")
    by_api = api.post(
        "/api/v1/exports", {"kind": "results", "study": study.pk}, content_type="application/json"
    )
    assert by_api.status_code == 429 and "2 exports waiting or running" in by_api.json()["detail"]
    assert ExportJob.objects.filter(created_by__username="researcher").count() == 2
    # another person has their own room; a finished export makes room again
    assert (
        _session("admin").post("/research/exports/", {"kind": "results", "study": study.pk}).status_code
        == 200
    )
    ExportJob.objects.filter(created_by__username="researcher").update(status=ExportJob.Status.DONE)
    again = api.post(
        "/api/v1/exports", {"kind": "results", "study": study.pk}, content_type="application/json"
    )
    assert again.status_code == 201


def test_no_limit_when_it_is_zero(demo, settings):
    settings.EXPORT_JOBS_PER_USER = 0
    study = Study.objects.get()
    page = _session("researcher")
    for _ in range(4):
        assert (
            "waiting or running"
            not in page.post("/research/exports/", {"kind": "results", "study": study.pk}).content.decode()
        )
    assert ExportJob.objects.count() == 4


@pytest.mark.parametrize(
    "body",
    [
        {"conditions": ["\u0000"]},
        {"models": ["\u0000"]},
        {"a": "\u0000x", "b": "y"},
        {"conditions": ["A"] * 201},
        {"b": "x" * 101, "a": "y"},
    ],
)
def test_names_no_study_could_have_are_refused_before_any_job(demo, body):
    """Hostile pass 17: a NUL in a condition, model or pair name reached PostgreSQL (a 500)."""
    study = Study.objects.get()
    token = token_create(
        user=get_user_model().objects.get(username="researcher"), name="t", scope="write", days=1
    )
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")
    answer = api.post(
        "/api/v1/exports", {"kind": "results", "study": study.pk, **body}, content_type="application/json"
    )
    assert answer.status_code == 400 and "printable characters" in answer.json()["detail"]
    form = {"kind": "results", "study": study.pk, **{k: v for k, v in body.items()}}
    assert _session("researcher").post("/research/exports/", form).status_code == 400
    assert not ExportJob.objects.exists()
