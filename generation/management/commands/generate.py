"""``python manage.py generate``: launch one generation run (a batch of one)."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from generation.models import GenerationRun, RunStatus
from generation.services.batches import BatchError, batch_create
from generation.tasks import run_advance_send
from studies.management.options import endpoint_named, scenario_named, study_from_option
from studies.models import Condition, Strategy


class Command(BaseCommand):
    help = (
        "Generate a response: one scenario, one model endpoint, one strategy, run by the Celery workers. "
        "With --wait, print the new response's research ID and its number of turns when the run ends."
    )

    def add_arguments(self, parser):
        parser.add_argument("--scenario", required=True, help="scenario code, e.g. FS10")
        parser.add_argument("--model", required=True, help="model endpoint name or two-digit model number")
        parser.add_argument("--strategy", choices=Strategy.values, help="strategy (uses its first condition)")
        parser.add_argument("--condition", help="condition letter (instead of --strategy)")
        parser.add_argument("--study", help="study name (default: the only active study)")
        parser.add_argument(
            "--top-p",
            choices=["paper", "as_released"],
            default="paper",
            help="top_p 0.9 as the paper states (default), or none sent as the release's code",
        )
        parser.add_argument(
            "--regenerate-withdrawn",
            action="store_true",
            help="run it again if its response was withdrawn (kept under its research ID with ~W1)",
        )
        parser.add_argument("--wait", action="store_true", help="wait for the run to end")
        parser.add_argument("--timeout", type=float, default=3600, help="seconds --wait waits (default 3600)")

    def handle(self, *args, **opts):
        study = study_from_option(opts["study"], active_only=True)
        scenario = scenario_named(study=study, code=opts["scenario"])
        model = endpoint_named(opts["model"], study=study)
        condition = self._condition(opts["strategy"], opts["condition"])
        try:
            launch = batch_create(
                study=study,
                scenarios=[scenario],
                endpoints=[model],
                conditions=[condition],
                enqueue=run_advance_send,
                name=f"generate {opts['scenario']} {model.name} {condition.letter}",
                top_p=opts["top_p"],
                regenerate_withdrawn=opts["regenerate_withdrawn"],
            )
        except BatchError as exc:
            raise CommandError(str(exc)) from exc
        run = launch.runs[0]
        rid = run.settings_snapshot["research_id"]
        self.stderr.write(f"run {run.pk} queued: {rid}, {run.calls_total} calls ({condition.strategy})")
        if opts["wait"]:
            self._wait(run.pk, opts["timeout"])

    def _condition(self, strategy: str | None, letter: str | None) -> Condition:
        if bool(strategy) == bool(letter):
            raise CommandError("give either --strategy or --condition")
        if letter:
            condition = Condition.objects.filter(letter=letter).first()
        else:
            condition = Condition.objects.filter(strategy=strategy).order_by("letter").first()
        if condition is None:
            raise CommandError(
                f"no condition for {letter or strategy!r} (run seed_demo or add one in the admin)"
            )
        return condition

    def _wait(self, run_id: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        warned = False
        started = time.monotonic()
        while time.monotonic() < deadline:
            run = GenerationRun.objects.select_related("response").get(pk=run_id)
            if run.status == RunStatus.SUCCEEDED:
                assert run.response is not None  # a succeeded run has saved its response
                turns = run.turns.filter(error="").count()
                self.stdout.write(f"{run.response.research_id} {turns} turns")
                return
            if run.status in (RunStatus.FAILED, RunStatus.CANCELLED):
                raise CommandError(f"run {run_id} {run.status}: {run.error}")
            if not warned and run.status == RunStatus.QUEUED and time.monotonic() - started > 30:
                self.stderr.write(
                    "still queued after 30 s: is a Celery worker running (make run starts one)?"
                )
                warned = True
            time.sleep(0.5)
        raise CommandError(f"run {run_id} did not end within {timeout:g} s")
