"""Options the management commands of several apps share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from studies.models import ModelEndpoint, Scenario, Study
from studies.services.responses import scenario_for


def study_from_option(name: str | None, *, create: bool = False) -> Study:
    """The study named, or the only study there is."""
    if name:
        study = Study.objects.filter(name=name).first()
        if study is None:
            if not create:
                raise CommandError(
                    f"Unknown study {name!r}. Known: {', '.join(Study.objects.values_list('name', flat=True)) or 'none'}"
                )
            study = Study.objects.create(name=name)
        return study
    studies = list(Study.objects.all()[:2])
    if len(studies) == 1:
        return studies[0]
    if not studies:
        raise CommandError("No study exists yet: pass --study NAME --create-missing, or run seed_demo.")
    raise CommandError("Several studies exist: choose one with --study NAME.")


def study_named(name: str) -> Study:
    """The study of that name (a command that requires ``--study``)."""
    study = Study.objects.filter(name=name).first()
    if study is None:
        raise CommandError(f"unknown study {name!r}")
    return study


def endpoint_named(name: str) -> ModelEndpoint:
    """The model endpoint of that name or two-digit model number (``--model``)."""
    endpoint = ModelEndpoint.objects.filter(Q(name=name) | Q(model_number=name)).first()
    if endpoint is None:
        raise CommandError(f"unknown model endpoint {name!r}")
    return endpoint


def scenario_named(*, study: Study, code: str) -> Scenario:
    """The study's own scenario of that code, else the shared one (``--scenario``)."""
    scenario = scenario_for(study=study, code=code)
    if scenario is None:
        raise CommandError(f"unknown scenario {code!r} in study {study}")
    return scenario


class StudyFileCommand(BaseCommand):
    """A command that reads one file into a study, all or nothing: the ``file`` argument and
    ``--study``, the file read with a clear error, its problems listed, the outcome printed.
    A subclass adds its own options after ``super().add_arguments(parser)``."""

    study_required = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument(
            "--study",
            required=self.study_required,
            help="Study name." if self.study_required else "Study name (default: the only study).",
        )

    @staticmethod
    def file_bytes(path: str | Path) -> bytes:
        try:
            return Path(path).read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}") from exc

    @staticmethod
    def problems_error(outcome: str, problems: Sequence[str]) -> CommandError:
        """``outcome`` ("Nothing imported") and the file's problems, one a line."""
        lines = "\n".join(f"  - {p}" for p in problems)
        return CommandError(f"{outcome} ({len(problems)} problem(s)):\n{lines}")

    def warn(self, warnings: Iterable[str]) -> None:
        for warning in warnings:
            self.stderr.write(self.style.WARNING(f"Warning: {warning}"))

    def done(self, study: Study, summary: str) -> None:
        self.stdout.write(self.style.SUCCESS(f"Study {study.name}: {summary}"))
