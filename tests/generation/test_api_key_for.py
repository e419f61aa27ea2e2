"""API keys live only in the worker's environment: never in the database, a page or a log,
not even when the provider echoes a wrong key back in its error."""

import pytest
from django.urls import reverse

from generation.models import GenerationRun, RunStatus, Turn
from generation.services.batches import batch_create
from generation.tasks import run_advance_send
from studies.models import Condition, ModelEndpoint, Scenario, Study
from tests.factories import stub_endpoint
from tests.generation.test_run_advance import finished, launch
from tests.workers import WorkerProcess, wait_for

pytestmark = pytest.mark.worker

SECRET = "sk-live-7Q2vX9kLm3Np8Rt5Wz1Yb4Hc6Jd0Fg"
WRONG = "sk-wrong-3Fh8Kd2Lq9Zx7Vb1Nm5Rt0Yp4Wc6"


def pages(client, run):
    urls = [
        reverse("generation:home"),
        reverse("generation:batch_detail", args=[run.batch_id]),
        reverse("generation:run_detail", args=[run.pk]),
        reverse("admin:generation_generationrun_change", args=[run.pk]),
        reverse("admin:studies_modelendpoint_changelist"),
        reverse("admin:generation_turn_changelist"),
    ]
    urls += [reverse("generation:turn_messages", args=[run.pk, t.seq]) for t in run.turns.all()]
    return "".join(client.get(url).content.decode() for url in urls)


def database_text():
    rows = [str(list(GenerationRun.objects.values()))]
    rows += [str(list(Turn.objects.values()))]
    return "".join(rows)


def test_the_key_never_appears_in_pages_logs_or_the_database(celery_worker, demo, llm_stub, client):
    celery_worker.stop()  # this test's worker needs the key variables in its environment
    stub_host = llm_stub.base_url.split("/")[2]  # both keys are bound to the stub's host and port
    worker = WorkerProcess(
        extra_env={
            "TEAMLLM_LLM_KEY_TEST": SECRET,
            "TEAMLLM_LLM_KEY_TEST_HOSTS": stub_host,
            "TEAMLLM_LLM_KEY_TEST_WRONG": WRONG,
            "TEAMLLM_LLM_KEY_TEST_WRONG_HOSTS": stub_host,
        }
    ).start()
    try:
        llm_stub.configure(require_key=SECRET)
        good = launch("B", llm_stub, api_key_env="TEAMLLM_LLM_KEY_TEST").runs[0]
        wait_for(finished(good), worker=worker)
        assert good.status == RunStatus.SUCCEEDED, good.error
        assert llm_stub.stats.auth_headers[-1] == f"Bearer {SECRET}"  # the key was used...

        # ...and a wrong key, which the provider quotes in its 401 error
        wrong = stub_endpoint(
            llm_stub, name="wrong-key", model_number="91", api_key_env="TEAMLLM_LLM_KEY_TEST_WRONG"
        )
        Study.objects.get(name="CGPST demo").endpoints.add(wrong)  # the study's choice, as on its page
        bad = batch_create(
            study=Study.objects.get(name="CGPST demo"),
            scenarios=[Scenario.objects.get(code="FS10")],
            endpoints=[ModelEndpoint.objects.get(name="wrong-key")],
            conditions=[Condition.objects.get(letter="B")],
            enqueue=run_advance_send,
        ).runs[0]
        wait_for(finished(bad), worker=worker)
        assert bad.status == RunStatus.FAILED
        assert "HTTP 401" in bad.error and "[redacted]" in bad.error
    finally:
        worker.stop()

    client.login(username="admin", password="demo-pass-2026")
    html = pages(client, good) + pages(client, bad)
    assert "Incorrect API key provided: [redacted]" in html  # the error is shown...
    assert "TEAMLLM_LLM_KEY_TEST" in html  # ...and the variable's NAME is
    log = worker.log_path.read_text()
    assert "HTTP Request: POST" in log  # the log covers the calls
    for secret in (SECRET, WRONG):
        assert secret not in html
        assert secret not in log
        assert secret not in database_text()
