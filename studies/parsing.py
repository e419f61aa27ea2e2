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


# Words that name a column of row totals; without one, a last column that is the sum of
# the others in every complete row is the total.
_TOTAL_WORDS = ("total", "总", "合计", "sum")
# Words of the old header test: a table whose header has one is preferred when a Step 5
# answer has several number tables (as before the grid was found by its shape).
_CRITERIA_WORDS = ("criter", "标准")
_SEPARATOR = re.compile(r":?-{2,}:?")
_RULE_LINE = re.compile(r"^[\s\-=_:+|｜]+$")
_WS_CELLS = re.compile(r"\t+|\s{2,}")


def _has_pipe(line: str) -> bool:
    return "|" in line or "｜" in line


def _header_has(cells: list[str], words: tuple[str, ...]) -> bool:
    return any(word in cell.lower() for cell in cells for word in words)


def _total_by_sum(rows: list[list[int | None]], width: int) -> bool:
    """The last of ``width`` value columns is the sum of the others in every complete
    row (at least two rows and two criteria)."""
    complete = [r[:width] for r in rows if len(r) >= width and None not in r[:width]]
    return (
        width >= 3
        and len(complete) >= 2
        and len(complete) == len(rows)
        and all(sum(r[:-1]) == r[-1] for r in complete)  # type: ignore[arg-type]
    )


def _grid_from(header: list[str], labelled: list[tuple[str, list[int | None]]], width: int) -> Grid:
    """A grid from a header (``width`` value columns after the label column) and rows."""
    if _header_has(header, _TOTAL_WORDS):
        has_total = True
    elif _header_has(header, _CRITERIA_WORDS):
        has_total = False  # the old rule exactly: a total column is named
    else:
        has_total = _total_by_sum([values for _, values in labelled], width)
    criteria = width - (1 if has_total else 0)
    rows = []
    for label, values in labelled:
        scores = values[:criteria] + [None] * max(0, criteria - len(values))
        total = values[criteria] if len(values) > criteria else None
        rows.append({"solution": label, "scores": scores, "total": total})
    return Grid(criteria=criteria, rows=rows)


def _pipe_tables(lines: list[str]) -> list[tuple[list[str], list[tuple[str, list[int | None]]]]]:
    """Every pipe table (Markdown or plain) that has a header row and rows of numbers.

    A table's first row is its header (whatever its words); a Markdown separator row
    is skipped; a row is a solution's when it has a label and at least one number. Blank
    or prose lines between the header and the first numbers are allowed (a later row of
    names after them starts a new header); the table ends at the first line without a
    pipe after its numbers."""
    tables = []
    header: list[str] | None = None
    rows: list[tuple[str, list[int | None]]] = []
    gap = False
    for raw in lines:
        line = raw.strip()
        if not _has_pipe(line):
            if rows and header is not None:
                tables.append((header, rows))
                header, rows = None, []
            gap = header is not None
            continue
        cells = list(_CELL_SPLIT.split(line.strip("|｜ ")))
        if all(_SEPARATOR.fullmatch(c.strip()) for c in cells if c.strip()):
            continue  # Markdown separator row
        values = [_to_int(c) for c in cells[1:]]
        has_numbers = any(v is not None for v in values)
        if header is None or (gap and not rows and not has_numbers):
            if all(_to_int(c) is not None for c in cells):
                continue  # numbers without a header row: not a grid
            header, gap = cells, False
            continue
        gap = False
        label = cells[0].strip().strip("*").strip()
        if label and has_numbers:
            rows.append((label, values))
    if rows and header is not None:
        tables.append((header, rows))
    return tables


def _pipe_grid(lines: list[str]) -> Grid | None:
    tables = _pipe_tables(lines)
    if not tables:
        return None
    named = [t for t in tables if _header_has(t[0], _CRITERIA_WORDS)]
    header, rows = (named or tables)[0]
    return _grid_from(header, rows, len(header) - 1)


def _ws_header_cells(line: str) -> list[str]:
    cells = [c for c in _WS_CELLS.split(line.strip()) if c]
    return cells if len(cells) >= 2 else line.split()


def _ws_numbers(line: str) -> int:
    """How many numbers end the line (all of them when the line is only numbers)."""
    tokens = line.split()
    n = 0
    while n < len(tokens) and _to_int(tokens[-1 - n]) is not None:
        n += 1
    return n


def _whitespace_grid(lines: list[str]) -> Grid | None:
    """A table aligned with spaces or tabs: a header line, then at least two lines that
    each end in numbers (one label, then one number per column). A header indented past
    the rows has no cell above the labels."""
    i = 0
    while i < len(lines):
        if _has_pipe(lines[i]) or _ws_numbers(lines[i]) < 2:
            i += 1
            continue
        block = i
        while block < len(lines) and not _has_pipe(lines[block]) and _ws_numbers(lines[block]) >= 2:
            block += 1
        h = i - 1
        while h >= 0 and lines[h].strip() and _RULE_LINE.match(lines[h]):
            h -= 1  # a rule under the header
        if block - i >= 2 and h >= 0 and lines[h].strip() and not _has_pipe(lines[h]):
            header = _ws_header_cells(lines[h])
            indent = len(lines[h]) - len(lines[h].lstrip())
            row_indent = len(lines[i]) - len(lines[i].lstrip())
            width = len(header) if indent > row_indent else len(header) - 1
            labelled: list[tuple[str, list[int | None]]] = []
            for line in lines[i:block]:
                tokens = line.split()
                label = " ".join(tokens[: len(tokens) - width]).strip("*").strip()
                if width < 1 or not label:
                    labelled = []
                    break
                labelled.append((label, [_to_int(t) for t in tokens[len(tokens) - width :]]))
            if labelled:
                return _grid_from(header, labelled, width)
        i = block
    return None


def parse_grid(text: str) -> Grid | None:
    """Find the Solution x Criterion grid by its shape: a header row, then one row of
    numbers per solution (a label, a score per criterion, perhaps a total). Pipe tables
    (Markdown or plain) first, then tables aligned with spaces or tabs; the header's
    words do not matter (any language). A total column is one whose header says so
    (total, 总, 合计, sum) or, when the header names neither criteria nor a total,
    the last column when it is every row's sum."""
    lines = (text or "").splitlines()
    return _pipe_grid(lines) or _whitespace_grid(lines)


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


EMPTY_TEXT = "empty_text"  # a single-text task's response with no text


@dataclass(frozen=True)
class ParseWarning:
    """Something that makes a response unfit to reach raters unseen: ``empty_step``,
    ``no_items`` (Step 1 or 3), ``no_grid`` (Step 5) or ``repeated_step`` (``step``
    says the same as ``other``, an earlier step); ``empty_text`` for a single-text task."""

    code: str
    step: int
    other: int | None = None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class ParsedResponse:
    items: dict[int, list[str]]
    blank_items: dict[int, int]
    grid: Grid | None
    grid_errors: list[GridError]
    implied_correctly_used: int
    notes: list[str]
    warnings: list[ParseWarning] = field(default_factory=list)


ITEM_STEPS = {1: 8, 3: 8, 4: 5}


def parse_response(answers: list[str], *, texts: int = 6) -> ParsedResponse:
    """Parse the six step answers of one response (index 0 = Step 1). A response of one text
    (``texts`` 1) or of a pair's two (2) has no items or grid: only an empty text is a warning."""
    if texts < 6:
        return ParsedResponse(
            items={},
            blank_items={1: 0, 3: 0},
            grid=None,
            grid_errors=[],
            implied_correctly_used=0,
            notes=[],
            warnings=[
                ParseWarning(EMPTY_TEXT, n)
                for n in range(1, texts + 1)
                if not _said(answers[n - 1] if len(answers) >= n else "")
            ],
        )
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
        warnings=parse_warnings(answers, items=items, grid=grid),
    )


def _said(text: str) -> str:
    """What a step says, for comparing steps: words only, case and layout ignored."""
    return " ".join(re.sub(r"[\W_]+", " ", text or "").split()).lower()


def parse_warnings(
    answers: list[str], *, items: dict[int, list[str]], grid: Grid | None
) -> list[ParseWarning]:
    """Why a response should be looked at before raters see it, in step order: an empty
    step; no numbered items in Step 1 or 3; no Step 5 grid; a step that says exactly what
    an earlier step says (a model or a mock repeating itself)."""
    said = [_said(answers[n]) if n < len(answers) else "" for n in range(6)]
    warnings: list[ParseWarning] = []
    for step in range(1, 7):
        if not said[step - 1]:
            warnings.append(ParseWarning("empty_step", step))
            continue
        if step in (1, 3) and not items.get(step):
            warnings.append(ParseWarning("no_items", step))
        if step == 5 and grid is None:
            warnings.append(ParseWarning("no_grid", step))
        earlier = next((n for n in range(1, step) if said[n - 1] == said[step - 1]), None)
        if earlier is not None:
            warnings.append(ParseWarning("repeated_step", step, earlier))
    return warnings
