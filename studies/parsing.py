"""Split real LLM answers into scoreable items, and check the Step-5 grid.

Tolerant of what models actually write: ``1.``, ``1)``, ``1、``, ``（1）``,
``Challenge 1:``, ``挑战一：``, Markdown lists, headings and bold, blank lines,
a preamble sentence, Chinese and English. Pure functions, no ORM.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

CN_NUMERALS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_NUM = r"(?P<num>\d{1,2}|[一二三四五六七八九十])"
_WORD = r"(?:challenge|solution|criterion|criteria|item|problem|挑战|方案|解决方案|标准|评价标准|准则|问题)"
# Markdown decoration that may precede the number: heading marks, list bullets, bold/italics.
_LEAD = r"^\s*(?:#{1,6}\s*)?(?:[-*+•·]\s+)?(?:\*\*|__)?\s*"
_NUMBERED = [
    re.compile(_LEAD + r"[（(]\s*" + _NUM + r"\s*[）)]\s*(?:\*\*|__)?\s*[.:：、．]?\s*(?P<rest>.*)$", re.I),
    re.compile(
        _LEAD
        + _WORD
        + r"\s*#?\s*"
        + _NUM
        + r"\s*(?:\*\*|__)?\s*[.:：、．)）-]?\s*(?:\*\*|__)?\s*(?P<rest>.*)$",
        re.I,
    ),
    re.compile(_LEAD + _NUM + r"\s*(?:[.．、:：)）]|\s-\s)\s*(?:\*\*|__)?\s*(?P<rest>.*)$"),
]
_BULLET = re.compile(r"^\s*[-*+•·]\s+(?P<rest>.+)$")


def _number(token: str) -> int:
    return int(token) if token.isdigit() else CN_NUMERALS[token]


def _clean(text: str) -> str:
    text = text.strip()
    # Drop Markdown emphasis markers but keep the words.
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = text.strip("*_ ").strip()
    return re.sub(r"[ \t]+\n", "\n", text)


@dataclass
class ParsedItems:
    items: list[str]
    notes: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.items)


def split_numbered_items(text: str, max_items: int = 8) -> ParsedItems:
    """The numbered items of an answer, at most ``max_items``.

    Numbers must run 1, 2, 3 ... : a line whose number does not continue the
    sequence, or that is indented deeper than item 1 (a nested list), belongs
    to the current item.
    Without any numbering, Markdown bullets are used; lines before the first
    item (a preamble) are ignored.
    """
    lines = (text or "").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    items: list[list[str]] = []
    notes: list[str] = []
    expected = 1
    base_indent = 0
    for line in lines:
        indent = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
        match = None
        if not items or indent <= base_indent:
            for pattern in _NUMBERED:
                m = pattern.match(line)
                if m and _number(m.group("num")) == expected:
                    match = m
                    break
        if match:
            if not items:
                base_indent = indent
            items.append([match.group("rest")])
            expected += 1
        elif items:
            items[-1].append(line)
    if not items:
        bullets = [m.group("rest") for m in map(_BULLET.match, lines) if m]
        if bullets:
            items = [[b] for b in bullets]
            notes.append("items taken from an unnumbered list")
    cleaned = [_clean("\n".join(parts)) for parts in items]
    cleaned = [c for c in cleaned if c]
    if len(cleaned) > max_items:
        notes.append(f"{len(cleaned) - max_items} item(s) beyond {max_items} ignored")
        cleaned = cleaned[:max_items]
    return ParsedItems(items=cleaned, notes=notes)


# --- Step 5 grid ----------------------------------------------------------------

_CELL_SPLIT = re.compile(r"\s*[|｜]\s*")
_INT = re.compile(r"^[+-]?\d+(?:\.0+)?$")


@dataclass
class Grid:
    criteria: int  # number of criterion columns
    rows: list[dict]  # {"solution": str, "scores": [int|None...], "total": int|None}

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class GridError:
    kind: str  # no_grid | missing_cells | ties | not_permutation | wrong_total | missing_rows
    where: str
    detail: str

    def as_dict(self) -> dict:
        return asdict(self)


def _to_int(cell: str) -> int | None:
    cell = cell.strip().strip("*").strip()
    return int(float(cell)) if _INT.match(cell) else None


def parse_grid(text: str) -> Grid | None:
    """Find the Solution x Criterion table (pipe-separated, Markdown or plain)."""
    header_cols = None
    rows: list[dict] = []
    for raw in (text or "").splitlines():
        line = raw.strip()
        if "|" not in line and "｜" not in line:
            if rows:
                break  # the table has ended
            continue
        cells = [c for c in _CELL_SPLIT.split(line.strip("|｜ "))]
        if all(re.fullmatch(r":?-{2,}:?", c.strip()) for c in cells if c.strip()):
            continue  # Markdown separator row
        if header_cols is None:
            lowered = [c.lower() for c in cells]
            if any(("criter" in c) or ("标准" in c) for c in lowered):
                has_total = any(("total" in c) or ("总" in c) for c in lowered)
                header_cols = len(cells) - 1 - (1 if has_total else 0)
                continue
        if header_cols is None:
            continue
        sol = cells[0].strip().strip("*").strip()
        values = [_to_int(c) for c in cells[1:]]
        if not sol or all(v is None for v in values):
            continue
        scores = values[:header_cols] + [None] * max(0, header_cols - len(values))
        total = values[header_cols] if len(values) > header_cols else None
        rows.append({"solution": sol, "scores": scores, "total": total})
    if header_cols is None or not rows:
        return None
    return Grid(criteria=header_cols, rows=rows)


def grid_errors(grid: Grid | None, *, expected_solutions: int | None = None) -> list[GridError]:
    """Errors as the rubric counts them: one per faulty criterion column (missing
    cells, ties, or not a permutation of 1..n), one per wrong row total, one for
    missing solution rows. No grid at all is one error that implies the minimum."""
    if grid is None:
        return [GridError("no_grid", "Step 5", "no scoring grid found")]
    errors: list[GridError] = []
    n = len(grid.rows)
    if expected_solutions and n < expected_solutions:
        errors.append(GridError("missing_rows", "rows", f"{n} of {expected_solutions} solutions scored"))
    for c in range(grid.criteria):
        column = [row["scores"][c] for row in grid.rows]
        where = f"Criterion {c + 1}"
        present = [v for v in column if v is not None]
        if len(present) < n:
            errors.append(GridError("missing_cells", where, f"{n - len(present)} missing score(s)"))
        elif len(set(present)) < len(present):
            dupes = sorted({v for v in present if present.count(v) > 1})
            errors.append(GridError("ties", where, "tied scores: " + ", ".join(map(str, dupes))))
        elif sorted(present) != list(range(1, n + 1)):
            errors.append(GridError("not_permutation", where, f"not a permutation of 1..{n}"))
    for row in grid.rows:
        scores = row["scores"]
        if row["total"] is not None and None not in scores and sum(scores) != row["total"]:
            errors.append(
                GridError(
                    "wrong_total",
                    f"Solution {row['solution']}",
                    f"total {row['total']} but scores add to {sum(scores)}",
                )
            )
    return errors


def implied_correctly_used(errors: list[GridError], *, maximum: int = 5, minimum: int = 1) -> int:
    """Correctly Used = 5 minus the number of grid errors, floor 1 (the rater decides)."""
    if any(e.kind == "no_grid" for e in errors):
        return minimum
    return max(minimum, maximum - len(errors))


@dataclass
class ParsedResponse:
    items: dict[int, list[str]]
    blank_items: dict[int, int]
    grid: Grid | None
    grid_errors: list[GridError]
    implied_correctly_used: int
    notes: list[str]


ITEM_STEPS = {1: 8, 3: 8, 4: 5}


def parse_response(answers: list[str]) -> ParsedResponse:
    """Parse the six step answers of one response (index 0 = Step 1)."""
    items: dict[int, list[str]] = {}
    notes: list[str] = []
    for step, limit in ITEM_STEPS.items():
        parsed = split_numbered_items(answers[step - 1] if len(answers) >= step else "", limit)
        items[step] = parsed.items
        notes.extend(f"Step {step}: {n}" for n in parsed.notes)
    blanks = {step: ITEM_STEPS[step] - len(items[step]) for step in (1, 3)}
    grid = parse_grid(answers[4] if len(answers) >= 5 else "")
    errors = grid_errors(grid, expected_solutions=len(items[3]) or None)
    return ParsedResponse(
        items=items,
        blank_items=blanks,
        grid=grid,
        grid_errors=errors,
        implied_correctly_used=implied_correctly_used(errors),
        notes=notes,
    )
