"""The data_A.json score format, as entry changes (pure, no ORM).

A scores object has keys ``Step-1``..``Step-6``; Steps 1 and 3 list items with
``Category``/``Elaboration``/``Originality`` or ``Invalid``; Step 4 lists criteria;
Steps 2, 5, 6 hold one object of dimensions. Each step ends with its own
summary, which ``file_summaries`` reads so an import can check the recomputed
totals against it.
"""

from __future__ import annotations

from typing import Any

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
        raise ScoreFileError(f"Step-{step}", f"unknown invalid type {text!r}")
    return head


def _items(scores: dict, step: int) -> list[dict]:
    value = scores.get(f"Step-{step}")
    if not isinstance(value, list):
        raise ScoreFileError(f"Step-{step}", "missing or not a list")
    return [it for it in value if isinstance(it, dict) and "Score Summary" not in it]


def data_a_changes(scores: Any, rubric: Rubric) -> list[tuple[str, Any]]:
    """Entry changes that reproduce one rater's data_A.json scores."""
    if not isinstance(scores, dict):
        raise ScoreFileError("scores", "expected an object")
    changes: list[tuple[str, Any]] = []
    for step in (1, 3):
        items = _items(scores, step)
        limit = rubric.step(step).item_count
        if len(items) > limit:
            raise ScoreFileError(f"Step-{step}", f"{len(items)} items, at most {limit}")
        for pos in range(1, limit + 1):
            base = f"items.{step}.{pos}"
            if pos > len(items):
                changes.append((f"{base}.classification", INVALID_PREFIX + "blank"))
                continue
            item = items[pos - 1]
            if "Invalid" in item:
                changes.append(
                    (f"{base}.classification", INVALID_PREFIX + invalid_key(item["Invalid"], rubric, step))
                )
            elif "Category" in item:
                changes.append((f"{base}.classification", item["Category"]))
                changes.append((f"{base}.elaboration", item.get("Elaboration")))
                changes.append((f"{base}.originality", item.get("Originality")))
            else:
                raise ScoreFileError(f"Step-{step} item {pos}", "needs Category or Invalid")
    criteria = _items(scores, 4)
    if len(criteria) != rubric.step(4).item_count:
        raise ScoreFileError("Step-4", f"{len(criteria)} criteria, expected {rubric.step(4).item_count}")
    for pos, crit in enumerate(criteria, start=1):
        changes.append((f"items.4.{pos}.correctly_written", crit.get("Correctly Written")))
        changes.append((f"items.4.{pos}.relevance", crit.get("Relevance")))
    for step, names in STEP_DIMENSIONS.items():
        objs = _items(scores, step)
        if len(objs) != 1:
            raise ScoreFileError(f"Step-{step}", "expected one object of dimension scores")
        found = set()
        for name, key in names.items():
            if name in objs[0]:
                changes.append((f"dims.{key}", objs[0][name]))
                found.add(key)
        for key in set(names.values()) - found:
            raise ScoreFileError(f"Step-{step}", f"missing dimension {key}")
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
