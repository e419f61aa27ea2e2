"""The API's writes (read-write tokens): export jobs started, polled and downloaded through
the export engine with a real worker; the page's rules (offline workbooks for admins only,
another study's job not found); and hostile JSON on every write endpoint answered with a
4xx that changes nothing (a hypothesis fuzz, rows counted before and after)."""

from __future__ import annotations

import io
import json

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook

from api.services.tokens import token_create
from research.models import ExportJob
from studies.models import Study
from tests.product import APPS
from tests.workers import wait_for


def _token_client(username: str, scope: str = "write", study=None) -> Client:
    user = get_user_model().objects.get(username=username)
    token = token_create(user=user, name="t", scope=scope, days=1, study=study)
    return Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")


@pytest.mark.worker
def test_an_export_is_started_polled_and_downloaded_with_a_token(celery_worker, demo):
    client = _token_client("researcher")
    study = Study.objects.get()
    started = client.post(
        "/api/v1/exports", {"kind": "results", "study": study.pk}, content_type="application/json"
    )
    assert started.status_code == 201, started.content
    pk = started.json()["id"]
    wait_for(
        lambda: ExportJob.objects.filter(pk=pk, status__in=("done", "failed")).first(), worker=celery_worker
    )
    polled = client.get(f"/api/v1/exports/{pk}").json()
    assert polled["status"] == "done" and polled["download"] == f"/api/v1/exports/{pk}/download"
    download = client.get(polled["download"])
    assert download.status_code == 200 and download["Cache-Control"] == "no-store"
    assert "About" in load_workbook(io.BytesIO(b"".join(download.streaming_content))).sheetnames
    assert ExportJob.objects.get(pk=pk).created_by.username == "researcher"
    ExportJob.objects.get(pk=pk).file.delete(save=False)  # the worker wrote to the shared storage


@pytest.mark.django_db
def test_export_rules_follow_the_page(demo):
    study = Study.objects.get()
    researcher = _token_client("researcher")
    refused = researcher.post(
        "/api/v1/exports", {"kind": "workbooks", "study": study.pk}, content_type="application/json"
    )
    assert refused.status_code == 403 and "admins" in refused.json()["detail"]
    assert not ExportJob.objects.exists()
    other = Study.objects.create(name="Other")
    limited = _token_client("researcher", study=other)
    assert (
        limited.post("/api/v1/exports", {"study": study.pk}, content_type="application/json").status_code
        == 404
    )
    job = ExportJob.objects.create(kind="results", params={"study_id": study.pk})
    assert limited.get(f"/api/v1/exports/{job.pk}").status_code == 404
    assert researcher.get(f"/api/v1/exports/{job.pk}/download").status_code == 404  # not done yet
    admin_job = ExportJob.objects.create(kind="workbooks", params={"study_id": study.pk})
    assert researcher.get(f"/api/v1/exports/{admin_job.pk}").status_code == 404
    assert _token_client("admin").get(f"/api/v1/exports/{admin_job.pk}").status_code == 200


WRITE_ENDPOINTS = ["/api/v1/exports"]
MODELS = [m for m in apps.get_models() if m._meta.app_label in APPS]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
HOSTILE_BODY = st.one_of(
    JSON.map(json.dumps),
    st.fixed_dictionaries(
        {"kind": st.text(max_size=20) | JSON, "study": st.integers() | st.text(max_size=5) | JSON},
        optional={"conditions": JSON, "models": JSON, "a": JSON, "b": JSON, "marks": JSON},
    ).map(json.dumps),
    st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
)


def _counts() -> dict[str, int]:
    return {
        m._meta.label: m._default_manager.count() for m in MODELS if m._meta.label != "studies.AuditEvent"
    }


@pytest.mark.django_db
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=HOSTILE_BODY, endpoint=st.sampled_from(WRITE_ENDPOINTS))
def test_hostile_json_on_every_write_endpoint_gets_a_4xx_and_changes_nothing(demo, body, endpoint):
    client = _token_client("admin")
    before = _counts()
    reply = client.post(endpoint, body, content_type="application/json")
    if reply.status_code == 201:  # a valid request by chance: a job for an existing study, as asked
        job = ExportJob.objects.get(pk=reply.json()["id"])
        assert job.params["study_id"] == json.loads(body)["study"]
        job.delete()
    else:
        assert 400 <= reply.status_code < 500, (body, reply.status_code, reply.content[:200])
    after = _counts()
    before.pop("api.ApiToken"), after.pop("api.ApiToken")  # the fuzz makes a token per example
    assert after == before
