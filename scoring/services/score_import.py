"""Importing item-level scores from the study's data_A.json format
(``manage.py import_scores``).

Each record ``[response_id, [rater1, rater2], scenario_id, scores1, scores2]``
becomes two submitted primary sheets (source "import", with an audit note), the
pair becomes the scoring group of its scenario and condition, and the totals
recomputed by ``sheet_totals`` must equal the file's own summaries. Everything
is checked before anything is written, and the whole file is one transaction:
one problem and nothing is imported. Re-importing the same scores is a no-op;
different scores for a sheet that is already submitted are an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from core.accounts.roles import RATER, UNBLINDED_ROLES, user_roles
from scoring.entries import EntryError, entries_from_changes
from scoring.models import Assignment, AssignmentRole, RaterProfile, ScoreSheet, ScoringGroup
from scoring.score_files import ScoreFileError, data_a_changes, file_summaries
from scoring.selectors import sheet_entries_get
from scoring.services.assignments import AssignmentError, group_sync_assignments
from scoring.services.sheets import sheet_fill_and_submit
from studies.models import Response, Study
from studies.response_files import RecordError, RecordProblems, records_from_data_a
from studies.rubric import Rubric, SheetEntries, SheetTotals, load_rubric, sheet_totals
from studies.services.responses import responses_import, responses_unknown_names
from studies.services.roles import role_groups_ensure
from studies.upload_safety import json_parse


class ScoreImportError(Exception):
    """The file cannot be imported; ``problems`` lists every reason found."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class ScoreImportReport:
    sheets_created: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    responses_created: list[str] = field(default_factory=list)
    raters_created: list[str] = field(default_factory=list)
    groups_created: list[str] = field(default_factory=list)
    created_objects: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    scenario_ids: set[int] = field(default_factory=set)

    def summary(self) -> str:
        parts = [
            f"{len(self.sheets_created)} sheet(s) imported",
            f"{len(self.unchanged)} already present with the same scores",
        ]
        for label, items in (
            ("responses created", self.responses_created),
            ("also created", self.created_objects),
            ("raters created", self.raters_created),
            ("scoring groups created", self.groups_created),
        ):
            if items:
                parts.append(f"{label}: {', '.join(items)}")
        return "; ".join(parts)


@dataclass
class _SheetPlan:
    where: str
    rater_code: str
    scores: dict
    changes: list[tuple[str, Any]]
    entries: SheetEntries
    totals: SheetTotals


def summary_mismatches(totals: SheetTotals, stated: dict[str, Any]) -> list[str]:
    """Differences between recomputed totals and the totals a file states."""
    problems = []
    for key, value in stated.items():
        ours: int | None
        if key == "overall":
            ours = totals.overall
        elif key.startswith("step:"):
            ours = totals.steps[int(key[5:])]
        else:
            ours = totals.dimensions.get(key)
        if ours != value:
            name = "total" if key == "overall" else key.replace("step:", "Step ")
            problems.append(f"{name}: the file says {value}, the scores add up to {ours}")
    return problems


def _scored(entries: SheetEntries) -> tuple:
    """What counts as "the same scores" (texts and comments aside)."""
    ideas = tuple(
        (step, tuple((i.category, i.invalid, i.elaboration, i.originality) for i in items))
        for step, items in sorted(entries.ideas.items())
    )
    criteria = tuple((c.correctly_written, c.relevance) for c in entries.criteria)
    return ideas, criteria, tuple(sorted(entries.dimensions.items()))


def _plan(data: Any, rubric: Rubric) -> tuple[list, dict[str, list[_SheetPlan]], list[str]]:
    try:
        records = records_from_data_a(data)
    except RecordError as exc:
        raise ScoreImportError([str(exc)]) from exc
    problems: list[str] = []
    plans: dict[str, list[_SheetPlan]] = {}
    for record, row in zip(records, data, strict=True):
        if record.research_id in plans:
            problems.append(f"{record.where}: {record.research_id} appears twice in the file")
            continue
        raters = row[1]
        if not (
            isinstance(raters, list) and len(raters) == 2 and all(isinstance(r, str) and r for r in raters)
        ):
            problems.append(f'{record.where}: expected two rater IDs, e.g. ["H01", "H02"]')
            continue
        if raters[0] == raters[1]:
            problems.append(f"{record.where}: the two raters must differ")
            continue
        sheets = []
        for code, scores in zip(raters, row[3:5], strict=True):
            where = f"{record.where}, rater {code}"
            try:
                changes = data_a_changes(scores, rubric)
                entries = entries_from_changes(changes, rubric)
            except (ScoreFileError, EntryError) as exc:
                detail = f"{exc.path}: {exc.message}" if isinstance(exc, EntryError) else str(exc)
                problems.append(f"{where}: {detail}")
                continue
            totals = sheet_totals(entries, rubric)
            missing = [m.path for m in totals.missing if not m.path.startswith("texts.")]
            if missing:
                problems.append(f"{where}: scores missing for {', '.join(missing)}")
            problems.extend(f"{where}: {p}" for p in summary_mismatches(totals, file_summaries(scores)))
            sheets.append(_SheetPlan(where, code, scores, changes, entries, totals))
        plans[record.research_id] = sheets
    return records, plans, problems


def _scoring_account(code: str, user):
    """Imported sheets belong to raters only: never to an account that sees unblinded
    data (admin, researcher, superuser) or to one that is no rater (an LLM judge)."""
    roles = user_roles(user)
    if RATER not in roles or roles & UNBLINDED_ROLES:
        raise ScoreImportError(
            [
                f"rater {code}: {user.get_username()!r} is not a rater (only raters hold score sheets; "
                "an admin or researcher needs a second account to score)"
            ]
        )
    return user


def _rater(code: str, rater_map: dict[str, str], report: ScoreImportReport):
    user_model = get_user_model()
    if code in rater_map:
        user = user_model.objects.filter(username=rater_map[code]).first()
        if user is None:
            raise ScoreImportError([f"--rater {code}={rater_map[code]}: no user {rater_map[code]!r}"])
        return _scoring_account(code, user)
    profile = RaterProfile.objects.select_related("user").filter(rater_code=code).first()
    if profile is not None:
        return _scoring_account(code, profile.user)
    if user_model.objects.filter(username=code).exists():
        raise ScoreImportError(
            [
                f"rater {code}: a user {code!r} exists without that rater ID; map it with --rater {code}=USERNAME"
            ]
        )
    user = user_model.objects.create(username=code)
    user.set_unusable_password()
    user.save(update_fields=["password"])
    user.groups.add(role_groups_ensure()[RATER])
    RaterProfile.objects.create(user=user, rater_code=code)
    report.raters_created.append(code)
    return user


def _group(response: Response, users: list, actor, report: ScoreImportReport) -> ScoringGroup:
    group = ScoringGroup.objects.filter(
        study=response.study,
        scenario=response.scenario,
        condition=response.condition,
        archived_at__isnull=True,
    ).first()
    if group is None:
        group = ScoringGroup.objects.create(
            study=response.study,
            scenario=response.scenario,
            condition=response.condition,
            rater_a=users[0],
            rater_b=users[1],
            created_by=actor,
        )
        report.groups_created.append(f"{response.scenario.code}/{response.condition.letter}")
    elif {group.rater_a_id, group.rater_b_id} != {u.pk for u in users}:
        raise ScoreImportError(
            [
                f"{response.research_id}: scenario {response.scenario.code} under condition "
                f"{response.condition.letter} is scored by another pair in this study"
            ]
        )
    return group


def scores_import(
    *,
    data: Any,
    study: Study,
    source_name: str,
    actor=None,
    rater_map: dict[str, str] | None = None,
    create_missing: bool = False,
) -> ScoreImportReport:
    """Import a data_A.json-style list all-or-nothing; raises ScoreImportError
    listing every problem (bad scores, totals that differ from the file's
    summaries, unknown responses, conflicting sheets)."""
    rubric = load_rubric(study.rubric_version)
    rater_map = rater_map or {}
    records, plans, problems = _plan(data, rubric)
    if problems:
        raise ScoreImportError(problems)
    report = ScoreImportReport()
    with transaction.atomic():
        missing = [
            r for r in records if not Response.objects.filter(study=study, research_id=r.research_id).exists()
        ]
        if missing and not create_missing:
            raise ScoreImportError(
                [
                    f"{r.where}: no response {r.research_id} in study {study.name} (allow creating missing ones to create it)"
                    for r in missing
                ]
                + responses_unknown_names(records=missing, study=study)
            )
        if missing:
            try:
                created = responses_import(records=missing, study=study, create_missing=True)
            except RecordProblems as exc:
                raise ScoreImportError(exc.problems) from exc
            except RecordError as exc:
                raise ScoreImportError([str(exc)]) from exc
            report.responses_created = created.created
            report.created_objects = created.created_objects
            report.warnings = created.warnings
        for record in records:
            response = Response.objects.select_related("study", "scenario", "condition").get(
                study=study, research_id=record.research_id
            )
            if response.scenario.code != record.scenario:
                problems.append(f"{record.where}: the response belongs to scenario {response.scenario.code}")
                continue
            sheets = plans[record.research_id]
            users = [_rater(p.rater_code, rater_map, report) for p in sheets]
            if users[0].pk == users[1].pk:
                problems.append(f"{record.where}: both rater IDs map to the same user")
                continue
            group = _group(response, users, actor, report)
            others = Assignment.objects.filter(
                response=response, role=AssignmentRole.PRIMARY, archived_at__isnull=True
            ).exclude(rater__in=users)
            if others.exists():
                problems.append(f"{record.where}: the response already has other primary raters")
                continue
            for plan, user in zip(sheets, users, strict=True):
                problems.extend(_import_sheet(plan, user, response, group, actor, source_name, report))
            report.scenario_ids.add(response.scenario_id)
        if problems:
            raise ScoreImportError(problems)
        _new_groups_sync(study=study, report=report, actor=actor)
    return report


def _new_groups_sync(*, study: Study, report: ScoreImportReport, actor) -> None:
    """A scoring group the import created takes the group's other responses (generated or
    imported before the scores) for its pair, or the report says why it could not."""
    for label in report.groups_created:
        code, letter = label.split("/")
        group = ScoringGroup.objects.select_related("rater_a", "rater_b").get(
            study=study, scenario__code=code, condition__letter=letter, archived_at__isnull=True
        )
        try:
            with transaction.atomic():
                created = group_sync_assignments(group=group, actor=actor)
        except AssignmentError as exc:
            report.warnings.append(
                f"{label}: its other responses were not assigned to the pair: {exc.message}"
            )
        else:
            if created:
                report.warnings.append(
                    f"{label}: {created} assignment(s) of responses already in the study given to the pair"
                )


def _import_sheet(plan, user, response, group, actor, source_name, report) -> list[str]:
    label = f"{response.research_id}/{plan.rater_code}"
    assignment = Assignment.objects.filter(rater=user, response=response, archived_at__isnull=True).first()
    if assignment is None:
        assignment = Assignment.objects.create(
            rater=user, response=response, role=AssignmentRole.PRIMARY, group=group, created_by=actor
        )
    elif assignment.role != AssignmentRole.PRIMARY:
        return [f"{plan.where}: this rater calibrates the response; a primary sheet cannot be imported"]
    elif assignment.group_id is None:
        assignment.group = group
        assignment.save(update_fields=["group"])
    sheet = ScoreSheet.objects.filter(assignment=assignment).first()
    if sheet is not None and sheet.is_submitted:
        if _scored(sheet_entries_get(sheet=sheet)) == _scored(plan.entries):
            report.unchanged.append(label)
            return []
        return [f"{plan.where}: a submitted sheet with different scores already exists (not overwritten)"]
    if sheet is not None and sheet.version > 0:
        return [f"{plan.where}: the rater has a draft in progress (not overwritten)"]
    note = f"Imported from {source_name} (record {response.research_id}, rater {plan.rater_code})"
    stored = sheet_fill_and_submit(
        assignment=assignment,
        actor=actor,
        changes=plan.changes,
        source="import",
        note=note,
        require_texts=False,
    )
    mismatches = summary_mismatches(
        SheetTotals(
            dimensions=stored.totals["dimensions"],
            steps={int(k): v for k, v in stored.totals["steps"].items()},
            overall=stored.totals["overall"],
            missing=(),
        ),
        file_summaries(plan.scores),
    )
    report.sheets_created.append(label)
    return [f"{plan.where}: {m}" for m in mismatches]


def scores_import_file(*, path: str | Path, **kwargs) -> ScoreImportReport:
    path = Path(path)
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise ScoreImportError([f"cannot read {path}: {exc}"]) from exc
    return scores_import_upload(content=content, name=path.name, **kwargs)


def scores_import_upload(*, content: bytes, name: str, **kwargs) -> ScoreImportReport:
    """A score file's bytes (a file or the import page's upload), all-or-nothing."""
    try:
        data = json_parse(content.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ScoreImportError([f"{name}: not UTF-8 text ({exc.reason})"]) from exc
    except json.JSONDecodeError as exc:
        raise ScoreImportError([f"{name}: not valid JSON (line {exc.lineno}: {exc.msg})"]) from exc
    return scores_import(data=data, source_name=name, **kwargs)
