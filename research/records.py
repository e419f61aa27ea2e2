"""The plain records every research table is computed from (pure: no ORM).

``research.selectors.results`` reads them from the database; the pure table modules
(``results``, ``significance``, ``group_tables``, ``cost``) take them as they are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import fmean


@dataclass(frozen=True)
class ScoreRecord:
    """One response's final score with the facts the tables group by."""

    response_id: int
    research_id: str
    scenario: str
    model_number: str
    model: str
    condition: str
    overall: float
    steps: dict[int, float] = field(default_factory=dict)
    dimensions: dict[str, float] = field(default_factory=dict)
    calibrated: bool = False


@dataclass(frozen=True)
class RaterBlanks:
    """The items one primary rater marked "Blank" on a submitted sheet, per idea step."""

    rater: str  # rater code (or username)
    by_step: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ResponseRecord:
    """A response's facts apart from its final score: the parser's blank items (a check)
    and the blanks its primary raters marked (Table 5)."""

    response_id: int
    scenario: str
    model_number: str
    model: str
    condition: str
    step1_blank_items: int  # 8 minus the items the parser found
    step3_blank_items: int
    research_id: str = ""
    rater_blanks: tuple[RaterBlanks, ...] = ()  # submitted primary sheets, slot order

    def parser_blanks(self, step: int) -> int:
        return self.step1_blank_items if step == 1 else self.step3_blank_items


def mean_defined(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def scenario_order(code: str) -> tuple:
    digits = "".join(ch for ch in code if ch in "0123456789")  # "²".isdigit(), but int() fails
    return (code.rstrip("0123456789"), int(digits) if digits else 0, code)
