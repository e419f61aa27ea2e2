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
from django.test import Client, override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import load_workbook

from api.services.tokens import token_create
from core.models import TaskOutbox
from generation.models import GenerationBatch
from generation.services.batches import batch_create
from generation.services.engine import ACTIVE
from judging.models import Judge, JudgeBatch
from judging.services.judges import judge_create
from research.models import ExportJob
from studies.models import Condition, ModelEndpoint, Response, Study
from tests.factories import stub_endpoint
from tests.product import APPS
from tests.workers import wait_for


@pytest.fixture(autouse=True)
def _tokens_enough(settings):
    settings.API_TOKENS_PER_USER = 1000  # a token per request here; the cap is tested in test_tokens


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
    assert download.status_code == 200 and "no-store" in download["Cache-Control"].split(", ")
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


@pytest.mark.django_db
def test_responses_import_as_the_page_does_all_or_nothing_with_every_problem(demo, data_a):
    study = Study.objects.create(name="Lab study")
    url = f"/api/v1/studies/{study.pk}/responses/import"
    content = json.dumps(data_a, ensure_ascii=False)
    admin = _token_client("admin")
    refused = admin.post(url, {"content": content}, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["detail"] == "nothing was imported"
    assert any("FS10" in p for p in refused.json()["problems"])  # the unknown scenario is named
    assert not Response.objects.filter(study=study).exists()
    broken = admin.post(url, {"content": "[1, 2,"}, content_type="application/json")
    assert broken.status_code == 400 and "not valid JSON" in broken.json()["problems"][0]
    created = admin.post(url, {"content": content, "create_missing": True}, content_type="application/json")
    assert created.status_code == 201, created.content
    ids = {row[0] for row in data_a}
    assert set(created.json()["created"]) == ids == set(study.responses.values_list("research_id", flat=True))
    again = admin.post(url, {"content": content, "create_missing": True}, content_type="application/json")
    assert again.status_code == 201 and set(again.json()["unchanged"]) == ids
    researcher = _token_client("researcher")
    denied = researcher.post(url, {"content": content}, content_type="application/json")
    assert denied.status_code == 403 and "admins" in denied.json()["detail"]


WRITE_ENDPOINTS = [
    "/api/v1/exports",
    "/api/v1/studies/{study}/responses/import",
    "/api/v1/generation/batches",
    "/api/v1/judge/batches",
]
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
    st.fixed_dictionaries(
        {"content": st.text(max_size=200) | JSON.map(json.dumps)}, optional={"create_missing": JSON}
    ).map(json.dumps),
    st.fixed_dictionaries(  # a batch: ids that may or may not exist, wrong types, hostile names
        {"study": st.integers() | JSON, "judge": st.integers() | JSON},
        optional={
            "scenarios": st.lists(st.integers(), max_size=3) | JSON,
            "endpoints": st.lists(st.integers(), max_size=3) | JSON,
            "conditions": st.lists(st.integers(), max_size=3) | JSON,
            "name": st.text(max_size=130) | JSON,
            "top_p": JSON,
            "scenario": JSON,
            "samples": st.integers() | JSON,
        },
    ).map(json.dumps),
    st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
)


def _counts() -> dict[str, int]:
    return {
        m._meta.label: m._default_manager.count()
        for m in MODELS
        if m._meta.label not in ("studies.AuditEvent", "core.EventCounter")  # the trail, the metrics
    }


@pytest.mark.django_db
@override_settings(API_RATE_LIMIT_PER_MINUTE=0)  # 120 bodies a minute: each reaches its endpoint
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=HOSTILE_BODY, endpoint=st.sampled_from(WRITE_ENDPOINTS))
def test_hostile_json_on_every_write_endpoint_gets_a_4xx_and_changes_nothing(demo, body, endpoint):
    client = _token_client("admin")
    before = _counts()
    outbox_before = TaskOutbox.objects.order_by("pk").values_list("pk", flat=True).last() or 0
    reply = client.post(endpoint.format(study=Study.objects.get().pk), body, content_type="application/json")
    if reply.status_code == 201 and "exports" in endpoint:  # valid by chance: a job for the study, as asked
        job = ExportJob.objects.get(pk=reply.json()["id"])
        assert job.params["study_id"] == json.loads(body)["study"]
        job.delete()
        TaskOutbox.objects.filter(pk__gt=outbox_before).delete()  # its task, sent on commit
    elif reply.status_code == 201:  # a batch valid by chance: made as asked, then removed again
        model = GenerationBatch if "generation" in endpoint else JudgeBatch
        batch = model.objects.get(pk=reply.json()["id"])
        assert batch.study_id == json.loads(body)["study"]
        for run in batch.runs.all() if model is GenerationBatch else batch.tasks.all():
            run.delete()
        batch.delete()
        TaskOutbox.objects.filter(pk__gt=outbox_before).delete()
    else:
        assert 400 <= reply.status_code < 500, (body, reply.status_code, reply.content[:200])
    after = _counts()
    before.pop("api.ApiToken"), after.pop("api.ApiToken")  # the fuzz makes a token per example
    assert after == before


@pytest.mark.django_db
def test_batches_are_polled_and_cancelled_as_on_their_pages_through_their_services(demo):
    study = Study.objects.get()
    response = Response.objects.get(research_id="A05_FS10")
    stub = ModelEndpoint.objects.get(name="stub")
    launch = batch_create(
        study=study, scenarios=[response.scenario], endpoints=[stub], conditions=[Condition.objects.get(letter="B")],
        enqueue=lambda run_id, **kwargs: None, name="api",
    )  # fmt: skip
    judge = judge_create(name="API judge", endpoint=stub)
    judge_batch = JudgeBatch.objects.create(
        study=study, judge=judge, prompt_version="v", temperature=0, samples=1
    )
    researcher, admin = _token_client("researcher"), _token_client("admin")
    url = f"/api/v1/generation/batches/{launch.batch.pk}"
    assert researcher.get(url).status_code == 403
    assert researcher.post(f"{url}/cancel").status_code == 403
    polled = admin.get(url).json()
    assert polled["id"] == launch.batch.pk and [j["status"] for j in polled["jobs"]] == ["queued"]
    assert _token_client("admin", scope="read").post(f"{url}/cancel").status_code == 403  # read-only
    assert admin.post(f"{url}/cancel").json() == {"cancelled": 1}
    assert [j["status"] for j in admin.get(url).json()["jobs"]] == ["cancelled"]
    judge_url = f"/api/v1/judge/batches/{judge_batch.pk}"
    # the judges' page is a researcher's too, so is its API (hostile pass 16: the page let a
    # researcher launch, the API refused)
    assert researcher.get(judge_url).json()["id"] == judge_batch.pk
    assert admin.get(judge_url).json()["id"] == judge_batch.pk
    assert admin.post(f"{judge_url}/cancel").json() == {"cancelled": 0}
    other = Study.objects.create(name="Other")
    assert _token_client("admin", study=other).get(url).status_code == 404


@pytest.mark.worker
def test_admins_start_a_generation_batch_and_a_judge_batch_that_run_to_the_end(celery_worker, demo, llm_stub):
    study = Study.objects.get()
    response = Response.objects.get(research_id="A05_FS10")
    stub = stub_endpoint(llm_stub)
    condition = Condition.objects.get(letter="B")
    admin = _token_client("admin")
    body = {
        "study": study.pk,
        "scenarios": [response.scenario_id],
        "endpoints": [stub.pk],
        "conditions": [condition.pk],
        "name": "from a script",
    }
    started = admin.post("/api/v1/generation/batches", body, content_type="application/json")
    assert started.status_code == 201, started.content
    url = f"/api/v1/generation/batches/{started.json()['id']}"
    batch = GenerationBatch.objects.get(
        pk=started.json()["id"]
    )  # waited on in the database: the API has a rate limit
    assert wait_for(lambda: not batch.runs.filter(status__in=ACTIVE).exists(), worker=celery_worker)
    assert [job["status"] for job in admin.get(url).json()["jobs"]] == ["succeeded"]
    assert GenerationBatch.objects.get(pk=started.json()["id"]).created_by.username == "admin"

    judge = Judge.objects.get()
    started = admin.post(
        "/api/v1/judge/batches", {"study": study.pk, "judge": judge.pk}, content_type="application/json"
    )
    assert started.status_code == 201, started.content
    url = f"/api/v1/judge/batches/{started.json()['id']}"
    judge_batch = JudgeBatch.objects.get(pk=started.json()["id"])
    assert wait_for(lambda: not judge_batch.tasks.filter(status__in=ACTIVE).exists(), worker=celery_worker)
    assert admin.get(url).json()["counts"].get("succeeded", 0) >= 1, admin.get(url).json()


@pytest.mark.django_db
def test_a_batch_start_that_the_page_would_refuse_lists_every_problem_and_makes_nothing(demo):
    study = Study.objects.get()
    admin = _token_client("admin")
    before = _counts()
    body = {"study": study.pk, "scenarios": [987654], "endpoints": [987655], "conditions": []}
    refused = admin.post("/api/v1/generation/batches", body, content_type="application/json")
    assert refused.status_code == 400
    problems = refused.json()["problems"]
    assert {line.split(":")[0] for line in problems} >= {"scenarios", "endpoints", "conditions"}, problems
    judge = admin.post(
        "/api/v1/judge/batches",
        {"study": study.pk, "judge": Judge.objects.get().pk, "samples": 99},
        content_type="application/json",
    )
    assert judge.status_code == 400 and judge.json()["problems"][0].startswith("samples:"), judge.content
    by_researcher = _token_client("researcher").post(
        "/api/v1/judge/batches",
        {"study": study.pk, "judge": Judge.objects.get().pk, "samples": 99},
        content_type="application/json",
    )  # a researcher may launch as on the judges' page: the same form refuses the same problem
    assert by_researcher.status_code == 400 and by_researcher.json()["problems"][0].startswith("samples:")
    assert (
        _token_client("researcher")
        .post("/api/v1/generation/batches", body, content_type="application/json")
        .status_code
        == 403
    )
    assert (
        _token_client("admin", scope="read")
        .post("/api/v1/judge/batches", {"study": study.pk, "judge": 1}, content_type="application/json")
        .status_code
        == 403
    )
    after = _counts()
    before.pop("api.ApiToken"), after.pop("api.ApiToken")
    assert after == before
