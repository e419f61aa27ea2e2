"""Launching, cancelling and retrying batches are study changes, audited with who did it
(issue 36, hostile pass 6, N2: judge batches wrote no event, though their sheets may become a
study's calibration sheets). Generation batches, whose runs become responses, alike."""

from django.contrib.auth import get_user_model
from django.urls import reverse

from generation.models import GenerationBatch
from generation.services.batches import batch_cancel, batch_create, batch_retry_failed, run_cancel, run_retry
from judging.models import JudgeBatch
from studies.models import AuditEvent, Condition, Scenario, Study
from tests.factories import stub_endpoint


def _events(action):
    return list(AuditEvent.objects.filter(action=action).order_by("pk"))


def test_a_judge_batch_launched_cancelled_and_retried_on_the_page_is_audited(client, demo, judge, study):
    researcher = get_user_model().objects.get(username="researcher")
    client.force_login(researcher)
    launched = client.post(
        reverse("judging:home"),
        {"form": "batch", "batch-study": study.pk, "batch-judge": judge.pk, "batch-scenario": "FS10"},
    )
    assert launched.status_code == 302
    batch = JudgeBatch.objects.get()
    (event,) = _events("judge.batch_launch")
    assert (
        event.actor == researcher
        and event.study == study
        and event.target == f"judging.judgebatch:{batch.pk}"
    )
    assert event.changes == {"judge": judge.name, "responses": 1, "samples": judge.samples}

    client.post(reverse("judging:batch_cancel", args=[batch.pk]))
    client.post(reverse("judging:batch_cancel", args=[batch.pk]))  # nothing left to cancel: no event
    (cancelled,) = _events("judge.batch_cancel")
    assert cancelled.actor == researcher and cancelled.changes == {"tasks": 1}
    client.post(reverse("judging:batch_retry", args=[batch.pk]))
    (retried,) = _events("judge.batch_retry")
    assert retried.actor == researcher and retried.changes == {"tasks": 1}


def test_a_generation_batch_and_its_runs_are_audited(demo, llm_stub):
    admin = get_user_model().objects.get(username="admin")
    launch = batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(llm_stub)],
        conditions=[Condition.objects.get(letter="B")],
        enqueue=lambda **kwargs: None,
        created_by=admin,
    )
    run = launch.runs[0]
    (event,) = _events("generation.batch_launch")
    assert event.actor == admin and event.target == f"generation.generationbatch:{launch.batch.pk}"
    assert event.changes == {"runs": [run.settings_snapshot["research_id"]], "top_p": "paper"}

    assert run_cancel(run_id=run.pk, actor=admin)
    assert run_retry(run_id=run.pk, enqueue=lambda **kwargs: None, actor=admin)
    assert batch_cancel(batch_id=launch.batch.pk, actor=admin) == 1
    assert batch_retry_failed(batch_id=launch.batch.pk, enqueue=lambda **kwargs: None, actor=admin) == 1
    actions = [
        "generation.run_cancel",
        "generation.run_retry",
        "generation.batch_cancel",
        "generation.batch_retry",
    ]
    for action in actions:
        (done,) = _events(action)
        assert done.actor == admin and done.study == launch.batch.study, action
    assert batch_cancel(batch_id=launch.batch.pk, actor=admin) == 1
    assert len(_events("generation.batch_cancel")) == 2
    assert GenerationBatch.objects.count() == 1
