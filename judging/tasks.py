"""The judging app's own task: the judge's gate, run again once a batch of the judge has ended."""

from __future__ import annotations

from celery import shared_task

from judging.services.qualification import judge_qualification_after_batch


@shared_task(name="judging.tasks.judge_qualification_task", acks_late=True, reject_on_worker_lost=True)
def judge_qualification_task(batch_id: int) -> None:
    judge_qualification_after_batch(batch_id=batch_id)
