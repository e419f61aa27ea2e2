"""The batch page: live progress per run, htmx polling that stops when the batch is done."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from generation.models import GenerationBatch, GenerationRun, RunStatus
from studies.models import Condition, Scenario, Study
from tests.factories import stub_endpoint


@pytest.fixture
def batch(demo, llm_stub):
    study = Study.objects.get(name="CGPST demo")
    batch = GenerationBatch.objects.create(study=study, name="b1")
    now = timezone.now()
    GenerationRun.objects.create(
        batch=batch,
        study=study,
        scenario=Scenario.objects.get(code="FS10"),
        endpoint=stub_endpoint(llm_stub),
        condition=Condition.objects.get(letter="A"),
        status=RunStatus.RUNNING,
        settings_snapshot={"research_id": "A90_FS10"},
        calls_total=34,
        calls_done=17,
        current_step=3,
        current_phase="perspective · Plant",
        prompt_tokens=1000,
        completion_tokens=234,
        started_at=now - timedelta(seconds=60),
        active_seconds=60,
        error="<b>bold</b> error",
    )
    return batch


def test_batch_page_shows_progress_per_run(client, batch):
    client.login(username="admin", password="demo-pass-2026")
    page = client.get(reverse("generation:batch_detail", args=[batch.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert "A90_FS10" in html and "17 / 34" in html and "pct-50" in html
    assert "Step 3 · perspective · Plant" in html
    assert "1234" in html  # tokens
    # a minute of worker time, and the ETA the same: 17 calls done, 17 to go
    elapsed = re.findall(r"\b1 min (\d\d) s\b", html)
    assert len(elapsed) >= 2 and len(set(elapsed)) == 1 and int(elapsed[0]) < 30, elapsed
    assert 'hx-trigger="every 2s"' in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "<b>bold</b>" not in html


def test_polling_gets_the_fragment_and_stops_when_the_batch_is_done(client, batch):
    client.login(username="admin", password="demo-pass-2026")
    url = reverse("generation:batch_detail", args=[batch.pk])
    running = client.get(url, headers={"HX-Request": "true"})
    assert running.status_code == 200
    assert running.content.decode().lstrip().startswith('<div id="batch-live"')
    assert b"Cancel the batch" in running.content and b"Running" in running.content
    assert b"<html" not in running.content
    GenerationRun.objects.filter(batch=batch).update(status=RunStatus.SUCCEEDED, calls_done=34)
    # the runs have ended but the batch is not marked finished yet: keep polling
    ended = client.get(url, headers={"HX-Request": "true"})
    assert ended.status_code == 200 and b"hx-trigger" in ended.content
    GenerationBatch.objects.filter(pk=batch.pk).update(status="finished")
    done = client.get(url, headers={"HX-Request": "true"})
    assert done.status_code == 286  # htmx: stop polling (the fragment is still swapped in)
    assert b"34 / 34" in done.content and b"hx-trigger" not in done.content
    # the swapped-in fragment carries the batch's status and no cancel button
    assert b"Finished" in done.content and b"Cancel the batch" not in done.content
