"""The data_A.json score format, as entry changes (pure, no ORM).

A scores object has keys ``Step-1``..``Step-6``; Steps 1 and 3 list items with
``Category``/``Elaboration``/``Originality`` or ``Invalid``; Step 4 lists criteria;
Steps 2, 5, 6 hold one object of dimensions. Each step ends with its own
summary, which ``file_summaries`` reads so an import can check the recomputed
totals against it.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext as _

from studies.rubric import INVALID_PREFIX, Rubric

# data_A.json dimension names -> rubric dimension keys
STEP_DIMENSIONS = {
    2: {
        "Condition Phrase": "s2.condition_phrase",
        "Stem & KVP": "s2.stem_kvp",
        "Purpose": "s2.purpose",
        "FS Parameters": "s2.fs_parameters",
        "Focus": "s2.focus",
        "Adequacy": "s2.adequacy",
    },
    5: {"Correctly Used": "s5.correctly_used"},
    6: {
        "Relevance": "s6.relevance",
        "Effectiveness": "s6.effectiveness",
        "Criteria": "s6.criteria",
        "Impact": "s6.impact",
        "Humaness": "s6.humaneness",  # sic, as in the study's files
        "Humaneness": "s6.humaneness",
        "Development": "s6.development",
    },
}
SUMMARY_NAMES = {
    1: {
        "Fluency": "s1.fluency",
        "Flexibility": "s1.flexibility",
        "Elaboration": "s1.elaboration",
        "Originality": "s1.originality",
    },
    3: {
        "Fluency": "s3.fluency",
        "Flexibility": "s3.flexibility",
        "Elaboration": "s3.elaboration",
        "Originality": "s3.originality",
    },
    4: {"Correctly Written": "s4.correctly_written", "Relevance": "s4.relevance"},
}


class ScoreFileError(ValueError):
    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


def invalid_key(text: str, rubric: Rubric, step: int) -> str:
    """'Duplicate — The solution is too similar ...' -> 'duplicate'."""
    head = str(text).strip().split()[0].strip("—-:：,.").lower() if str(text).strip() else ""
    keys = {t.key for t in rubric.step(step).invalid_types}
    if head not in keys:
        raise ScoreFileError(f"Step-{step}", _("unknown invalid type %(text)r") % {"text": text})
    return head


def _items(scores: dict, step: int, problems: list[ScoreFileError]) -> list[dict] | None:
    value = scores.get(f"Step-{step}")
    if not isinstance(value, list):
        problems.append(ScoreFileError(f"Step-{step}", _("missing or not a list")))
        return None
    return [it for it in value if isinstance(it, dict) and "Score Summary" not in it]


def _idea_changes(scores: dict, rubric: Rubric, step: int, problems: list[ScoreFileError]) -> list:
    items = _items(scores, step, problems)
    if items is None:
        return []
    limit = rubric.step(step).item_count
    if len(items) > limit:
        problems.append(
            ScoreFileError(
                f"Step-{step}", _("%(n)d items, at most %(limit)d") % {"n": len(items), "limit": limit}
            )
        )
        return []
    changes: list[tuple[str, Any]] = []
    for pos in range(1, limit + 1):
        base = f"items.{step}.{pos}"
        if pos > len(items):
            changes.append((f"{base}.classification", INVALID_PREFIX + "blank"))
            continue
        item = items[pos - 1]
        if "Invalid" in item:
            try:
                key = invalid_key(item["Invalid"], rubric, step)
            except ScoreFileError as exc:
                problems.append(ScoreFileError(f"Step-{step} item {pos}", exc.message))
                continue
            changes.append((f"{base}.classification", INVALID_PREFIX + key))
        elif "Category" in item:
            changes.append((f"{base}.classification", item["Category"]))
            changes.append((f"{base}.elaboration", item.get("Elaboration")))
            changes.append((f"{base}.originality", item.get("Originality")))
        else:
            problems.append(ScoreFileError(f"Step-{step} item {pos}", _("needs Category or Invalid")))
    return changes


def data_a_read(scores: Any, rubric: Rubric) -> tuple[list[tuple[str, Any]], list[ScoreFileError]]:
    """Entry changes that reproduce one rater's data_A.json scores, and every problem of
    their shape, step by step in the file's order (an import lists them all at once)."""
    if not isinstance(scores, dict):
        return [], [ScoreFileError("scores", _("expected an object"))]
    problems: list[ScoreFileError] = []
    changes: list[tuple[str, Any]] = []
    for step in (1, 3, 4, 2, 5, 6):  # the order of changes earlier versions gave
        if step in (1, 3):
            changes += _idea_changes(scores, rubric, step, problems)
        elif step == 4:
            criteria = _items(scores, 4, problems)
            expected = rubric.step(4).item_count
            if criteria is not None and len(criteria) != expected:
                problems.append(
                    ScoreFileError(
                        "Step-4", _("%(n)d criteria, expected %(m)d") % {"n": len(criteria), "m": expected}
                    )
                )
            for pos, crit in enumerate(criteria or [], start=1):
                changes.append((f"items.4.{pos}.correctly_written", crit.get("Correctly Written")))
                changes.append((f"items.4.{pos}.relevance", crit.get("Relevance")))
        else:
            objs = _items(scores, step, problems)
            if objs is None:
                continue
            if len(objs) != 1:
                problems.append(ScoreFileError(f"Step-{step}", _("expected one object of dimension scores")))
                continue
            names = STEP_DIMENSIONS[step]
            found = set()
            for name, key in names.items():
                if name in objs[0]:
                    changes.append((f"dims.{key}", objs[0][name]))
                    found.add(key)
            problems += [
                ScoreFileError(f"Step-{step}", _("missing dimension %(key)s") % {"key": key})
                for key in sorted(set(names.values()) - found)
            ]
    return changes, sorted(problems, key=_file_order)


def _file_order(problem: ScoreFileError) -> tuple[int, ...]:
    """'Step-1 item 2' before 'Step-1 item 10' before 'Step-2'."""
    return tuple(int(n) for n in re.findall(r"\d+", problem.where))


def data_a_changes(scores: Any, rubric: Rubric) -> list[tuple[str, Any]]:
    """Entry changes that reproduce one rater's data_A.json scores; raises the first problem."""
    changes, problems = data_a_read(scores, rubric)
    if problems:
        raise problems[0]
    return changes


def file_summaries(scores: dict) -> dict[str, Any]:
    """The totals the file states: 'step:N' -> step total, dimension keys, and 'overall'."""
    stated: dict[str, Any] = {}
    for step in range(1, 7):
        value = scores.get(f"Step-{step}") or []
        for it in value if isinstance(value, list) else []:
            if not isinstance(it, dict):
                continue
            summary = it.get("Score Summary", it if step in (2, 5, 6) else None)
            if not isinstance(summary, dict):
                continue
            if "Overall" in summary:
                stated[f"step:{step}"] = summary["Overall"]
            for name, key in SUMMARY_NAMES.get(step, {}).items():
                if name in summary:
                    stated[key] = summary[name]
    if "Total Score" in scores:
        stated["overall"] = scores["Total Score"]
    return stated
