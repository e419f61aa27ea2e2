"""Importing a lab's scored sheets in the study's own Excel layout (``manage.py
import_release_workbooks``): a folder or zip of ``<rater code>_<scenario>.xlsx`` workbooks, a
worksheet per research ID, read by ``scoring.workbooks.release_layout``.

Each response's two sheets become the submitted primary sheets of its pair (dimension scores
alone: ``SheetLevel.DIMENSIONS``, source "import", each with its audit events), the pair becomes
the scoring group of its scenario and condition, and agreement, routing and final scores follow
as after any submit. All or nothing: every problem of every file is named by file, sheet and cell,
and nothing is stored unless there is none. Importing the same scores again changes nothing;
other scores for a sheet already submitted are a problem.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.models import Assignment, AssignmentRole, ScoreSheet
from scoring.score_plan import ScoreImportError
from scoring.services.score_import import (
    ScoreImportReport,
    held_problem,
    import_assignment,
    import_new_groups_sync,
    import_pair_group,
    import_rater_account,
)
from scoring.services.sheets import sheet_fill_dimensions_and_submit
from scoring.workbooks.release_layout import (
    MAX_FILES,
    RELEASE_LIMITS,
    ReleaseSheet,
    release_files_expand,
    release_name_part,
    release_workbooks_read,
)
from studies.models import Response, Study
from studies.rubric import load_rubric
from studies.rubric.cgpst import version_is_cgpst

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def release_workbooks_import_path(*, path: str | Path, **kwargs: Any) -> ScoreImportReport:
    """A folder (its .xlsx and .zip files, not its sub-folders), a .zip or one .xlsx file."""
    path = Path(path)
    try:
        members = sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
        if len(members) > MAX_FILES:
            raise ScoreImportError([_("%(path)s: more than %(n)d files") % {"path": path, "n": MAX_FILES}])
        files = []
        for member in members:
            if member.stat().st_size > RELEASE_LIMITS.max_bytes * (10 if member.suffix == ".zip" else 1):
                raise ScoreImportError([_("%(file)s: too large") % {"file": member.name}])
            files.append((member.name, member.read_bytes()))
    except OSError as exc:
        raise ScoreImportError([f"cannot read {path}: {exc}"]) from exc
    return release_workbooks_import(files=files, source_name=path.name, **kwargs)


def release_workbooks_import(
    *,
    files: list[tuple[str, bytes]],
    study: Study,
    source_name: str,
    actor: User | None = None,
    rater_map: dict[str, str] | None = None,
) -> ScoreImportReport:
    """Read ``files`` (workbooks or zips of them) and import their sheets, all or nothing; raises
    ScoreImportError listing every problem."""
    if not version_is_cgpst(study.rubric_version):
        raise ScoreImportError(
            [_("The release's Excel layout holds the CGPST rubric's scores; this study uses another rubric.")]
        )
    workbooks, problems = release_files_expand(files)
    sheets, wrong = release_workbooks_read(workbooks, rubric=load_rubric(study.rubric_version))
    problems += wrong
    if not workbooks and not problems:
        problems.append(_("%(source)s: no .xlsx workbook found") % {"source": source_name})
    report = ScoreImportReport()
    with transaction.atomic():
        problems += _check_and_import(
            sheets=sheets,
            study=study,
            actor=actor,
            rater_map=rater_map or {},
            source=source_name,
            report=report,
        )
        if problems:
            raise ScoreImportError(problems)
        import_new_groups_sync(study=study, report=report, actor=actor)
    return report


def _check_and_import(
    *,
    sheets: list[ReleaseSheet],
    study: Study,
    actor: User | None,
    rater_map: dict[str, str],
    source: str,
    report: ScoreImportReport,
) -> list[str]:
    """The database half of the checks, writing as it goes (the caller rolls back on a problem)."""
    rubric = load_rubric(study.rubric_version)
    by_response: dict[str, list[ReleaseSheet]] = defaultdict(list)
    for sheet in sheets:
        by_response[sheet.research_id].append(sheet)
    responses = {
        r.research_id: r
        for r in Response.objects.filter(
            study=study, research_id__in=list(by_response), is_training_copy=False
        ).select_related("study", "scenario", "condition")
    }
    problems: list[str] = []
    accounts: dict[str, tuple[Any, str | None]] = {}
    for research_id, pair in by_response.items():
        response = responses.get(research_id)
        wheres = "; ".join(s.where for s in pair)
        if response is None:
            problems.append(
                _("%(where)s: no response %(id)s in study %(study)s")
                % {"where": wheres, "id": research_id, "study": study.name}
            )
            continue
        if response.held:
            problems.append(f"{wheres}: {held_problem(response)}")
            continue
        if not all(s.readable for s in pair):
            continue  # its problems are listed; its pair is not looked at
        wrong_scenario = [s for s in pair if s.scenario != release_name_part(response.scenario.code)]
        for s in wrong_scenario:
            problems.append(
                _("%(where)s: the response belongs to scenario %(code)s, not %(file)s")
                % {"where": s.where, "code": response.scenario.code, "file": s.scenario}
            )
        if len(pair) != 2 or len({s.rater for s in pair}) != 2:
            problems.append(
                _(
                    "%(where)s: response %(id)s has %(n)d sheets of %(raters)d raters; a pair of raters scores each"
                )
                % {"where": wheres, "id": research_id, "n": len(pair), "raters": len({s.rater for s in pair})}
            )
            continue
        users = []
        for s in pair:
            if s.rater not in accounts:
                accounts[s.rater] = import_rater_account(s.rater, rater_map, report)
            user, reason = accounts[s.rater]
            if reason:
                problems.append(f"{s.where}: {reason}")
            users.append(None if reason else user)
        if wrong_scenario or None in users:
            continue
        problems += _pair_import(pair, users, response, rubric.dimension_keys, actor, source, report)
    return problems


def _pair_import(
    pair: list[ReleaseSheet],
    users: list[Any],
    response: Response,
    keys: tuple[str, ...],
    actor: User | None,
    source: str,
    report: ScoreImportReport,
) -> list[str]:
    if users[0].pk == users[1].pk:
        return [_("%(where)s: both rater codes are the same user") % {"where": pair[1].where}]
    group = import_pair_group(response, users, actor, report)
    if group is None:
        return [
            _("%(where)s: scenario %(s)s under condition %(c)s is scored by another pair in this study")
            % {"where": pair[0].where, "s": response.scenario.code, "c": response.condition.letter}
        ]
    others = Assignment.objects.filter(
        response=response, role=AssignmentRole.PRIMARY, archived_at__isnull=True
    )
    if others.exclude(rater__in=users).exists():
        return [_("%(where)s: the response already has other primary raters") % {"where": pair[0].where}]
    problems = []
    for sheet, user in zip(pair, users, strict=True):
        assignment, problem = import_assignment(user=user, response=response, group=group, actor=actor)
        if assignment is None:
            problems.append(f"{sheet.where}: {problem}")
            continue
        dimensions = {key: sheet.scores[key] for key in keys}
        stored = ScoreSheet.objects.filter(assignment=assignment).first()
        if stored is not None and (stored.is_submitted or stored.version > 0):
            if stored.is_submitted and (stored.totals or {}).get("dimensions") == dimensions:
                report.unchanged.append(f"{response.research_id}/{sheet.rater}")
            else:
                problems.append(
                    _(
                        "%(where)s: the rater's sheet of this response already has other scores (not overwritten)"
                    )
                    % {"where": sheet.where}
                )
            continue
        note = f"Imported from {source} ({sheet.where}), the study's Excel layout: dimension scores only"
        sheet_fill_dimensions_and_submit(assignment=assignment, actor=actor, dimensions=dimensions, note=note)
        report.sheets_created.append(f"{response.research_id}/{sheet.rater}")
        report.scenario_ids.add(response.scenario_id)
    return problems
