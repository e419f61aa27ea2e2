"""Reading a data_A.json score file into plans, one per record, with every problem
found in the file itself (its shape, the rater IDs, each rater's scores against the rubric
and the file's own summaries), before anything is looked up or written
(``scoring.services.score_import`` checks the plans against the database and imports them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from scoring.entries import EntryError, entries_from_changes
from scoring.score_files import data_a_read, file_summaries
from studies.problems import problem_text
from studies.response_files import RecordError, ResponseRecord, records_from_data_a
from studies.rubric import Rubric, SheetEntries, SheetTotals, sheet_totals


class ScoreImportError(Exception):
    """The file cannot be imported; ``problems`` lists every reason found."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class SheetPlan:
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
            name = (
                _("total")
                if key == "overall"
                else _("Step %(n)s") % {"n": key[5:]}
                if key.startswith("step:")
                else key
            )
            problems.append(
                _("%(name)s: the file says %(value)s, the scores add up to %(ours)s")
                % {"name": name, "value": value, "ours": ours}
            )
    return problems


def scored_key(entries: SheetEntries) -> tuple:
    """What counts as "the same scores" (texts and comments aside)."""
    # the named item scores of a criteria item, then any other, by key
    ideas = tuple(
        (
            step,
            tuple(
                (i.category, i.invalid, i.elaboration, i.originality, *sorted(i.other_scores.items()))
                for i in items
            ),
        )
        for step, items in sorted(entries.ideas.items())
    )
    criteria = tuple(
        (c.correctly_written, c.relevance, tuple(sorted(c.other_scores.items()))) for c in entries.criteria
    )
    return ideas, criteria, tuple(sorted(entries.dimensions.items()))


class ScoreProblems:
    """Problems tagged with their record's place in the file, listed in file order
    (a record's own problems first, then those against the database)."""

    def __init__(self) -> None:
        self._items: list[tuple[int, int, str]] = []

    def add(self, index: int, message: str) -> None:
        self._items.append((index, len(self._items), message))

    def add_numbered(self, messages: list[str]) -> None:
        """Messages that begin with their record ("record 3 (...)...") from another module."""
        for message in messages:
            m = RECORD_PLACE.match(message)
            self.add(int(m[1]) if m else 0, message)

    def __len__(self) -> int:
        return len(self._items)

    def sorted(self) -> list[str]:
        return [item[2] for item in sorted(self._items)]


RECORD_PLACE = re.compile(r"^record (\d+)\b")


def scores_plan(
    data: Any, rubric: Rubric, problems: ScoreProblems
) -> dict[int, tuple[ResponseRecord, list[SheetPlan] | None]]:
    """Every record's own problems (its shape, its rater IDs, each rater's scores and the
    file's summaries); the plans of the records that have none, and ``None`` for the sheets
    of a record that has some (still checked against the database: an unknown response)."""
    try:
        records = records_from_data_a(data)
    except RecordError as exc:
        raise ScoreImportError([str(exc)]) from exc
    plans: dict[int, tuple[ResponseRecord, list[SheetPlan] | None]] = {}
    firsts: dict[str, str] = {}
    for index, (record, row) in enumerate(zip(records, data, strict=True), start=1):
        before = len(problems)
        for problem in record.problems:
            # the first scores' steps are read below, rater by rater: named once, there
            if problem not in record.step_problems:
                problems.add(index, problem)
        if not isinstance(row, list) or len(row) != 5:
            plans[index] = (record, None)
            continue
        if record.research_id in firsts:
            first = firsts[record.research_id]
            problems.add(
                index,
                problem_text(
                    record.where,
                    "response_id",
                    _("appears twice in the file (first at %(first)s)") % {"first": first},
                ),
            )
        elif record.research_id:
            firsts[record.research_id] = record.where.split(" (")[0]
        raters = row[1]
        if not (
            isinstance(raters, list) and len(raters) == 2 and all(isinstance(r, str) and r for r in raters)
        ):
            problems.add(
                index, problem_text(record.where, "raters", _('expected two rater IDs, e.g. ["H01", "H02"]'))
            )
            raters = [None, None]
        elif raters[0] == raters[1]:
            problems.add(index, problem_text(record.where, "raters", _("the two raters must differ")))
        sheets = []
        for slot, (code, scores) in enumerate(zip(raters, row[3:5], strict=True), start=1):
            where = (
                _("%(where)s, rater %(code)s") % {"where": record.where, "code": code}
                if code
                else _("%(where)s, scores%(slot)s") % {"where": record.where, "slot": slot}
            )
            changes, shape = data_a_read(scores, rubric)
            for bad in shape:
                problems.add(index, problem_text(where, bad.where, bad.message))
            refused: list[EntryError] = []
            entries = entries_from_changes(changes, rubric, errors=refused)
            for err in refused:
                problems.add(index, problem_text(where, err.path, err.message))
            if shape or refused:
                continue  # totals of a partly read sheet would only repeat these problems
            totals = sheet_totals(entries, rubric)
            missing = [m.path for m in totals.missing if not m.path.startswith("texts.")]
            if missing:
                message = _("scores missing for %(paths)s") % {"paths": ", ".join(missing)}
                problems.add(index, _("%(where)s: %(problem)s") % {"where": where, "problem": message})
            for p in summary_mismatches(totals, file_summaries(scores)):
                problems.add(index, _("%(where)s: %(problem)s") % {"where": where, "problem": p})
            sheets.append(SheetPlan(where, code, scores, changes, entries, totals))
        plans[index] = (record, sheets if len(problems) == before else None)
    return plans
