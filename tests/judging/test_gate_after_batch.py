"""Issue 39: the judge's gate runs again, by itself, once a batch of the judge has ended: the
batch's tasks and then the test run on a live worker, through the outbox."""

from judging.models import JudgeBatchStatus, JudgeQualification
from judging.services.runs import QUALIFICATION_TASK, judge_batch_launch
from judging.tasks import judge_qualification_task
from studies.models import AuditEvent
from tests.workers import wait_for


def test_a_finished_batch_runs_the_gate_on_a_worker(celery_worker, study, judge, llm_stub):
    assert judge_qualification_task.name == QUALIFICATION_TASK  # the outbox sends it by this name
    batch = judge_batch_launch(study=study, judge=judge)
    wait_for(
        lambda: JudgeQualification.objects.filter(study=study, judge=judge).exists(), worker=celery_worker
    )
    batch.refresh_from_db()
    assert batch.status == JudgeBatchStatus.FINISHED and batch.model_name == judge.endpoint.model_name
    qualification = JudgeQualification.objects.get(study=study, judge=judge)
    # the demo study has too few double-scored responses: recorded, not passed, audited as the system
    assert not qualification.passed and qualification.model_name == judge.endpoint.model_name
    assert "the test needs at least 50" in qualification.unrun_text()
    event = AuditEvent.objects.get(action="judge.qualification")
    assert event.actor is None and event.study == study
