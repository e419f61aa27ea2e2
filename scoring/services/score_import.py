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
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from core.accounts.roles import RATER, UNBLINDED_ROLES, user_roles
from scoring.models import RATER_CODE, Assignment, AssignmentRole, RaterProfile, ScoreSheet, ScoringGroup
from scoring.score_files import file_summaries
from scoring.score_plan import ScoreImportError as ScoreImportError  # re-exported: the import's error
from scoring.score_plan import (
    ScoreProblems,
    SheetPlan,
    scored_key,
    scores_plan,
    summary_mismatches,
)
from scoring.selectors import sheet_entries_get
from scoring.services.arrival import AssignmentError
from scoring.services.assignments import group_for_pair, group_sync_assignments
from scoring.services.sheets import sheet_fill_and_submit
from studies.models import Response, ResponseStatus, Study
from studies.problems import problem_text
from studies.response_files import RESEARCH_ID, RecordError, RecordProblems, ResponseRecord
from studies.rubric import SheetTotals, load_rubric
from studies.rubric.cgpst import version_is_cgpst
from studies.services.responses import responses_import, responses_unknown_names
from studies.services.roles import role_groups_ensure
from studies.upload_safety import json_parse

if TYPE_CHECKING:
    from django.contrib.auth.models import User


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
            _("%(n)d sheet(s) imported") % {"n": len(self.sheets_created)},
            _("%(n)d already present with the same scores") % {"n": len(self.unchanged)},
        ]
        for label, items in (
            (_("responses created"), self.responses_created),
            (_("also created"), self.created_objects),
            (_("raters created"), self.raters_created),
            (_("scoring groups created"), self.groups_created),
        ):
            if items:
                parts.append(f"{label}: {', '.join(items)}")
        return "; ".join(parts)


def _scoring_account(code: str, user: User) -> str | None:
    """Imported sheets belong to raters only: never to an account that sees unblinded
    data (admin, researcher, superuser) or to one that is no rater (an LLM judge).
    The reason the account cannot hold the sheet, or None."""
    roles = user_roles(user)
    if RATER not in roles or roles & UNBLINDED_ROLES:
        return _(
            "rater %(code)s: %(user)r is not a rater (only raters hold score sheets; "
            "an admin or researcher needs a second account to score)"
        ) % {"code": code, "user": user.get_username()}
    return None


def import_rater_account(
    code: str, rater_map: dict[str, str], report: ScoreImportReport
) -> tuple[Any, str | None]:
    """The account of a rater ID (created as a rater when unknown), or the reason there is none."""
    user_model = get_user_model()
    if code not in rater_map and not RATER_CODE.match(code):
        return None, _("rater %(code)s: a rater ID is letters, digits and dashes, at most 16 (e.g. H01)") % {
            "code": code[:40]
        }
    if code in rater_map:
        user = user_model.objects.filter(username=rater_map[code]).first()
        if user is None:
            return None, _("rater %(code)s: no user %(user)r (mapped with %(code)s=%(user)s)") % {
                "code": code,
                "user": rater_map[code],
            }
        return user, _scoring_account(code, user)
    profile = RaterProfile.objects.select_related("user").filter(rater_code=code).first()
    if profile is not None:
        return profile.user, _scoring_account(code, profile.user)
    if user_model.objects.filter(username=code).exists():
        return None, (
            _("rater %(code)s: a user %(code)r exists without that rater ID; map it with %(code)s=USERNAME")
            % {"code": code}
        )
    user = user_model.objects.create(username=code)
    user.set_unusable_password()
    user.save(update_fields=["password"])
    user.groups.add(role_groups_ensure()[RATER])
    RaterProfile.objects.create(user=user, rater_code=code)
    report.raters_created.append(code)
    return user, None


def import_pair_group(
    response: Response, users: list[User], actor: User | None, report: ScoreImportReport
) -> ScoringGroup | None:
    """The scenario and condition's scoring group (created for this pair when there is
    none), or None when another pair holds it."""
    group, created = group_for_pair(
        study=response.study,
        scenario=response.scenario,
        condition=response.condition,
        rater_a=users[0],
        rater_b=users[1],
        actor=actor,
    )
    if created:
        report.groups_created.append(f"{response.scenario.code}/{response.condition.letter}")
    return group


def scores_import(
    *,
    data: Any,
    study: Study,
    source_name: str,
    actor: User | None = None,
    rater_map: dict[str, str] | None = None,
    create_missing: bool = False,
) -> ScoreImportReport:
    """Import a data_A.json-style list all-or-nothing; raises ScoreImportError listing
    every problem of every record in file order, each with its record and field (bad
    shapes and scores, totals that differ from the file's summaries, unknown responses,
    raters that cannot score, conflicting pairs and sheets). The records without a
    problem of their own are still checked against the database, in the one transaction
    that is rolled back, so one upload names everything to fix."""
    if not version_is_cgpst(study.rubric_version):
        raise ScoreImportError(
            [
                _(
                    "Score files of the data_A.json kind hold the CGPST rubric's scores; this study uses another rubric."
                )
            ]
        )
    rubric = load_rubric(study.rubric_version)
    rater_map = rater_map or {}
    problems = ScoreProblems()
    plans = scores_plan(data, rubric, problems)
    report = ScoreImportReport()
    try:
        with transaction.atomic():
            _check_and_import(
                plans=plans,
                study=study,
                actor=actor,
                rater_map=rater_map,
                create_missing=create_missing,
                source_name=source_name,
                report=report,
                problems=problems,
            )
            if problems:
                raise ScoreImportError(problems.sorted())
            import_new_groups_sync(study=study, report=report, actor=actor)
    except RecordError as exc:  # responses_import lists its problems first (RecordProblems)
        raise ScoreImportError([str(exc)]) from exc
    return report


def _check_and_import(
    *,
    plans: dict[int, tuple[ResponseRecord, list[SheetPlan] | None]],
    study: Study,
    actor: User | None,
    rater_map: dict[str, str],
    create_missing: bool,
    source_name: str,
    report: ScoreImportReport,
    problems: ScoreProblems,
) -> None:
    """The database half of the checks, writing as it goes (the caller rolls back). A
    record with problems of its own is still checked for an unknown response and names."""
    missing = {
        index: record
        for index, (record, _sheets) in plans.items()
        if RESEARCH_ID.match(record.research_id or "")
        and not Response.objects.filter(
            study=study, research_id=record.research_id, is_training_copy=False
        ).exists()
    }
    if missing and not create_missing:
        for index, r in missing.items():
            problems.add(
                index,
                problem_text(
                    r.where,
                    "response_id",
                    _("no response %(id)s in study %(study)s (allow creating missing ones to create it)")
                    % {"id": r.research_id, "study": study.name},
                ),
            )
        problems.add_numbered(responses_unknown_names(records=list(missing.values()), study=study))
    elif whole := [record for index, record in missing.items() if plans[index][1] is not None]:
        try:
            created = responses_import(
                records=whole,
                study=study,
                create_missing=True,
                actor=actor,
                source=f"scores import {source_name}",
            )
        except RecordProblems as exc:
            problems.add_numbered(exc.problems)
        else:
            report.responses_created = created.created
            report.created_objects = created.created_objects
            report.warnings = created.warnings
    accounts: dict[str, Any] = {}
    told: set[str] = set()
    for index, (record, sheets) in plans.items():
        if sheets is None:
            continue  # its own problems are listed; its sheets were not read
        response = (
            Response.objects.select_related("study", "scenario", "condition")
            .filter(study=study, research_id=record.research_id, is_training_copy=False)
            .first()
        )
        users: list[Any] = []
        for plan in sheets:
            if plan.rater_code not in accounts:
                accounts[plan.rater_code] = import_rater_account(plan.rater_code, rater_map, report)
            user, reason = accounts[plan.rater_code]
            if reason and plan.rater_code not in told:
                told.add(plan.rater_code)
                problems.add(index, _("%(where)s, %(problem)s") % {"where": record.where, "problem": reason})
            users.append(None if reason else user)
        if response is None or None in users:
            continue  # its problem is listed above
        if response.held:
            problems.add(index, problem_text(record.where, "response_id", held_problem(response)))
            continue
        if response.scenario.code != record.scenario:
            problems.add(
                index,
                problem_text(
                    record.where,
                    "scenario_id",
                    _("the response belongs to scenario %(code)s") % {"code": response.scenario.code},
                ),
            )
            continue
        if users[0].pk == users[1].pk:
            problems.add(
                index, problem_text(record.where, "raters", _("both rater IDs map to the same user"))
            )
            continue
        group = import_pair_group(response, users, actor, report)
        if group is None:
            problems.add(
                index,
                problem_text(
                    record.where,
                    "raters",
                    _("scenario %(s)s under condition %(c)s is scored by another pair in this study")
                    % {"s": response.scenario.code, "c": response.condition.letter},
                ),
            )
            continue
        others = Assignment.objects.filter(
            response=response, role=AssignmentRole.PRIMARY, archived_at__isnull=True
        ).exclude(rater__in=users)
        if others.exists():
            problems.add(
                index,
                problem_text(record.where, "raters", _("the response already has other primary raters")),
            )
            continue
        for plan, user in zip(sheets, users, strict=True):
            for problem in _import_sheet(plan, user, response, group, actor, source_name, report):
                problems.add(index, problem)
        report.scenario_ids.add(response.scenario_id)


def held_problem(response: Response) -> str:
    """Why the scores of a response held for review are not imported: its pair's disagreement
    would route it to a third rater, who would read the text the blind holds back. A withdrawn
    response stays held for good: no release is left to do (hostile pass 25: the message sent
    the admin to release or withdraw a response already withdrawn)."""
    if response.status == ResponseStatus.WITHDRAWN:
        return _("response %(id)s was withdrawn from the study: its scores are not imported") % {
            "id": response.research_id
        }
    return _(
        "response %(id)s is held for review: release or withdraw it on the held responses page, "
        "then import its scores"
    ) % {"id": response.research_id}


def import_new_groups_sync(*, study: Study, report: ScoreImportReport, actor: User | None) -> None:
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
                f"{label}: "
                + _("its other responses were not assigned to the pair: %(reason)s") % {"reason": exc.message}
            )
        else:
            if created:
                report.warnings.append(
                    f"{label}: "
                    + _("%(n)d assignment(s) of responses already in the study given to the pair")
                    % {"n": created}
                )


def import_assignment(
    *, user: User, response: Response, group: ScoringGroup, actor: User | None
) -> tuple[Assignment | None, str]:
    """The rater's primary assignment of ``response`` in ``group`` (made when missing), or None and
    why an imported sheet cannot be theirs."""
    assignment = Assignment.objects.filter(rater=user, response=response, archived_at__isnull=True).first()
    if assignment is None:
        assignment = Assignment.objects.create(
            rater=user, response=response, role=AssignmentRole.PRIMARY, group=group, created_by=actor
        )
    elif assignment.role != AssignmentRole.PRIMARY:
        return None, _("this rater calibrates the response; a primary sheet cannot be imported")
    elif assignment.group_id is None:
        assignment.group = group
        assignment.save(update_fields=["group"])
    return assignment, ""


def _import_sheet(
    plan: SheetPlan,
    user: User,
    response: Response,
    group: ScoringGroup,
    actor: User | None,
    source_name: str,
    report: ScoreImportReport,
) -> list[str]:
    label = f"{response.research_id}/{plan.rater_code}"
    assignment, problem = import_assignment(user=user, response=response, group=group, actor=actor)
    if assignment is None:
        return [f"{plan.where}: {problem}"]
    sheet = ScoreSheet.objects.filter(assignment=assignment).first()
    if sheet is not None and sheet.is_submitted:
        if scored_key(sheet_entries_get(sheet=sheet)) == scored_key(plan.entries):
            report.unchanged.append(label)
            return []
        return [
            f"{plan.where}: " + _("a submitted sheet with different scores already exists (not overwritten)")
        ]
    if sheet is not None and sheet.version > 0:
        return [f"{plan.where}: " + _("the rater has a draft in progress (not overwritten)")]
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


def scores_import_file(*, path: str | Path, **kwargs: Any) -> ScoreImportReport:
    path = Path(path)
    try:
        content = path.read_bytes()
    except OSError as exc:
        raise ScoreImportError([f"cannot read {path}: {exc}"]) from exc
    return scores_import_upload(content=content, name=path.name, **kwargs)


def scores_import_upload(*, content: bytes, name: str, **kwargs: Any) -> ScoreImportReport:
    """A score file's bytes (a file or the import page's upload), all-or-nothing."""
    try:
        data = json_parse(content.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ScoreImportError([f"{name}: " + _("not UTF-8 text (%(err)s)") % {"err": exc.reason}]) from exc
    except json.JSONDecodeError as exc:
        raise ScoreImportError(
            [
                f"{name}: "
                + _("not valid JSON (line %(line)s: %(err)s)") % {"line": exc.lineno, "err": exc.msg}
            ]
        ) from exc
    return scores_import(data=data, source_name=name, **kwargs)
