"""Options the management commands of several apps share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from core.accounts.roles import is_admin
from studies.models import ModelEndpoint, Scenario, Study
from studies.selectors import study_endpoints_offered
from studies.services.responses import scenario_for
from studies.services.studies import EMPTY, StudySetupError, study_create


def study_from_option(name: str | None, *, create: bool = False, active_only: bool = False) -> Study:
    """The study named (or numbered) by ``--study``; without a name, the only study there is
    (the only active one with ``active_only``). ``create``: an unknown name is a new, empty
    study (the import commands' ``--create-missing``). Else a CommandError naming the choices."""
    studies = Study.objects.filter(is_active=True) if active_only else Study.objects.all()

    def choices() -> str:  # read only for the error message
        return ", ".join(studies.order_by("name").values_list("name", flat=True)) or "none"

    if name:
        study = studies.filter(name__iexact=name).first()  # names are unique in any case
        if study is None and name.isascii() and name.isdigit():
            study = studies.filter(pk=int(name)).first()
        if study is not None:
            return study
        if not create:
            raise CommandError(f"unknown study {name!r} (studies: {choices()})")
        try:
            return study_create(name=name, template=EMPTY)
        except StudySetupError as exc:
            raise CommandError(str(exc)) from exc
    found = list(studies[:2])
    if len(found) == 1:
        return found[0]
    if not found:
        raise CommandError("no study exists yet: pass --study NAME --create-missing, or run seed_demo")
    raise CommandError(f"choose a study with --study (studies: {choices()})")


def endpoint_named(name: str, *, study: Study | None = None) -> ModelEndpoint:
    """The model endpoint of that name (any case) or two-digit model number (``--model``); an
    unknown one is refused with the endpoints the study offers (all of them without a study)."""
    endpoint = ModelEndpoint.objects.filter(Q(name__iexact=name) | Q(model_number=name)).first()
    if endpoint is None:
        known = ", ".join(f"{e.model_number} {e.name}" for e in study_endpoints_offered(study=study))
        raise CommandError(f"unknown model endpoint {name!r}; the endpoints: {known or 'none yet'}")
    return endpoint


def admin_named(username: str) -> Any:
    """The admin account a command acts as (``--as``): its changes are audited under it, as
    the page's would be."""
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None or not is_admin(user):
        raise CommandError(f"--as {username!r}: no active admin account of that name")
    return user


def scenario_named(*, study: Study, code: str) -> Scenario:
    """The study's own scenario of that code, else the shared one (``--scenario``)."""
    scenario = scenario_for(study=study, code=code)
    if scenario is None:
        raise CommandError(f"unknown scenario {code!r} in study {study}")
    return scenario


def rater_map_from_option(pairs: list[str]) -> dict[str, str]:
    """``--rater CODE=USERNAME`` options as a map of a file's rater codes to usernames."""
    mapping = {}
    for pair in pairs:
        code, sep, username = pair.partition("=")
        if not sep or not code.strip() or not username.strip():
            raise CommandError(f"--rater expects CODE=USERNAME, got {pair!r}")
        mapping[code.strip()] = username.strip()
    return mapping


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


class StudyOutputCommand(BaseCommand):
    """A command that writes one file of a study: the ``out`` argument (ending in ``suffix``)
    and ``--study``. A subclass adds its own options after ``super().add_arguments(parser)``
    and reads ``self.output(out)`` and ``study_from_option(study)`` in ``handle``."""

    suffix = ".xlsx"
    out_required = True  # False: the command has another output too (its ``handle`` says which)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "out", nargs=None if self.out_required else "?", help=f"the {self.suffix} file to write"
        )
        parser.add_argument("--study", help="study name or id (default: the only study)")

    def output(self, out: str) -> Path:
        path = Path(out)
        if path.suffix.lower() != self.suffix:
            raise CommandError(f"the output file must end in {self.suffix}")
        return path


def file_bytes(path: str, *, limit: int) -> tuple[str, bytes]:
    """A file's name and bytes (a command's FILE argument), at most ``limit`` bytes and one more
    (so that the reader can say it is too large; ``/dev/zero`` ends too), or a CommandError."""
    file = Path(path)
    try:
        with file.open("rb") as stream:
            return file.name, stream.read(limit + 1)
    except OSError as exc:
        raise CommandError(f"Cannot read {file}: {exc.strerror or exc}") from exc


def problems_refused(command: BaseCommand, problems: Sequence[str], what: str) -> CommandError:
    """Every problem on stderr, one a line, and the CommandError that ends the command."""
    for problem in problems:
        command.stderr.write(f"- {problem}")
    count = len(problems)
    return CommandError(f"{what}: {count} problem{'s' * (count != 1)}.")
