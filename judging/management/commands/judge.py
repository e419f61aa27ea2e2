"""``manage.py judge --study NAME --model ENDPOINT [--scenario FS10] [--samples K] [--wait]``:
score a study's responses with an LLM judge on the workers."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from judging.models import JudgeBatch, JudgeBatchStatus
from judging.selectors.batches import batch_progress_get
from judging.services.judges import JudgeError, judge_for_endpoint
from judging.services.runs import BatchError, judge_batch_launch
from studies.management.options import endpoint_named, scenario_named, study_from_option


class Command(BaseCommand):
    help = (
        "Run an LLM judge batch over a study's responses on the Celery workers. The judge of the "
        "endpoint with the current prompt version is created on first use. With --wait, print how "
        "many judge sheets were stored and how many failed."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", required=True, help="study name")
        parser.add_argument("--model", required=True, help="model endpoint name (or its two-digit number)")
        parser.add_argument("--scenario", help="only this scenario's responses, e.g. FS10")
        parser.add_argument(
            "--samples", type=int, help="samples per response (mean of k); default: the judge's"
        )
        parser.add_argument("--wait", action="store_true", help="wait for the batch to end")
        parser.add_argument("--timeout", type=float, default=3600, help="seconds --wait waits (default 3600)")

    def handle(self, *args, **opts):
        study = study_from_option(opts["study"])
        endpoint = endpoint_named(opts["model"])
        scenario = scenario_named(study=study, code=opts["scenario"]) if opts["scenario"] else None
        try:
            with transaction.atomic():  # a refused batch leaves no new judge behind
                judge = judge_for_endpoint(endpoint=endpoint)
                batch = judge_batch_launch(
                    study=study, judge=judge, scenario=scenario, samples=opts["samples"]
                )
        except (JudgeError, BatchError) as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"judge batch {batch.pk} queued: {batch.tasks.count()} response(s), judge {judge}")
        if opts["wait"]:
            self._wait(batch.pk, opts["timeout"])

    def _wait(self, batch_id: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            batch = JudgeBatch.objects.get(pk=batch_id)
            if batch.status != JudgeBatchStatus.RUNNING:
                progress = batch_progress_get(batch=batch)
                self.stdout.write(
                    f"{progress.succeeded} judge sheet(s) stored, {progress.failed} failed "
                    f"({progress.calls} calls, {progress.tokens} tokens)"
                )
                if progress.failed:
                    raise CommandError(f"{progress.failed} judge task(s) failed; see the batch page")
                return
            time.sleep(0.5)
        raise CommandError(f"judge batch {batch_id} did not end within {timeout:g} s")
