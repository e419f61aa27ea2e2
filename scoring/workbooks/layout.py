"""Where every value sits on an offline scoring sheet.

One function, ``sheet_layout``, lays out the sheet of a rubric (like the study's
Excel sheet: Step 1 .. Step 6, then the score summary). A single-text study's sheet
(``task`` "text") shows the response's one text once, a pairwise study's ("pair") its text A
and text B, above the rubric's steps, whose numbers name no part of the response. The writer fills it in,
the reader reads the rater's cells back from the same coordinates and checks the
fixed labels and formulas to detect tampering. Pure: no ORM, no openpyxl.

Input cells carry entry paths (``scoring.entries``), except that an idea's
classification is split over two cells like the study's sheet: a category
(``items.1.3.category``) or an invalid type (``items.1.3.invalid``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from studies.rubric import Label, Rubric, ScoreSpec, load_rubric

FORMAT = "teamllm-workbook/1"
LAST_COL = "H"  # H holds hidden helper formulas (first occurrence of a category)
SCORE_COL = "G"
COLUMN_WIDTHS = {"A": 18, "B": 62, "C": 24, "D": 18, "E": 12, "F": 12, "G": 30, "H": 4}


def bilingual(en: str, zh: str) -> str:
    return f"{en}\n{zh}"


def _lbl(label: Label) -> str:
    return bilingual(label.en, label.zh)


@dataclass(frozen=True)
class Input:
    """A cell the rater fills in."""

    coord: str
    path: str
    kind: str  # category | invalid | score | text
    step: int
    lo: int = 0
    hi: int = 0


@dataclass(frozen=True)
class Slot:
    """Response content written at export and never read back."""

    coord: str
    name: str  # rater | scenario | blind | answer.<n> | text | item.<n>.<pos> | grid_hint | checks


@dataclass
class SheetLayout:
    lang: str
    inputs: list[Input] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    formulas: dict[str, str] = field(default_factory=dict)
    slots: list[Slot] = field(default_factory=list)
    merges: list[str] = field(default_factory=list)
    row_kinds: dict[int, str] = field(default_factory=dict)
    section_rows: list[int] = field(default_factory=list)
    total_cells: dict[str, str] = field(default_factory=dict)  # dimension key / "step.<n>" / "overall"
    max_row: int = 0

    @property
    def input_by_path(self) -> dict[str, Input]:
        return {i.path: i for i in self.inputs}

    def slot(self, name: str) -> str:
        return next(s.coord for s in self.slots if s.name == name)


def levels_text(spec: ScoreSpec, lang: str) -> str:
    if spec.levels:
        return "\n".join(f"{lv.score}: {lv.text(lang)}" for lv in spec.levels)
    if spec.description:
        return spec.description.text(lang)
    return ""


RESPONSE_LABEL = bilingual("Response", "回答原文")
TEXT_A_LABEL, TEXT_B_LABEL = bilingual("Text A", "文本 A"), bilingual("Text B", "文本 B")


@cache
def sheet_layout(rubric_version: str, lang: str, *, task: str = "cgpst") -> SheetLayout:
    """The layout of one response's sheet for a rubric version, labels in ``lang``
    (headings are always bilingual); ``task`` "text": a single-text response's sheet, its text
    in one row (the ``text`` slot) above the steps instead of a row of each step's; "pair": a
    pair's text A and text B in two (``text``, ``text.b``)."""
    whole_text = task != "cgpst"
    rubric: Rubric = load_rubric(rubric_version)
    lang = "zh" if lang.startswith("zh") else "en"
    lay = SheetLayout(lang=lang)

    def label(coord: str, text: str) -> None:
        lay.labels[coord] = text

    def merge(rng: str) -> None:
        lay.merges.append(rng)

    def item_rows(r: int, heads: dict[str, str], n: int, count: int) -> range:
        """Row ``r`` the column heads, then ``count`` item rows (number and item text) of
        step ``n``: the item rows, for their inputs."""
        for col, text in heads.items():
            label(f"{col}{r}", text)
        lay.row_kinds[r] = "colhead"
        rows = range(r + 1, r + 1 + count)
        for pos, row in enumerate(rows, start=1):
            label(f"A{row}", str(pos))
            lay.slots.append(Slot(f"B{row}", f"item.{n}.{pos}"))
            lay.row_kinds[row] = "item"
        return rows

    label("A1", _lbl(rubric.title))
    merge("A1:G1")
    lay.row_kinds[1] = "title"
    label("A2", bilingual("Rater ID", "评分者编号"))
    lay.slots.append(Slot("B2", "rater"))
    label("C2", bilingual("Scenario ID", "情境编号"))
    lay.slots.append(Slot("D2", "scenario"))
    label("E2", bilingual("Response ID", "回答编号"))
    merge("E2:F2")
    lay.slots.append(Slot("G2", "blind"))
    lay.row_kinds[2] = "head"
    label(
        "A3",
        bilingual(
            "Fill in the yellow cells only; every total is computed.",
            "只填写黄色单元格；所有总分均自动计算。",
        ),
    )
    merge("A3:G3")
    lay.row_kinds[3] = "head"

    text_cells: dict[str, str] = {}
    step_totals: list[str] = []
    r = 5
    texts = {"text": [("text", RESPONSE_LABEL)], "pair": [("text", TEXT_A_LABEL), ("text.b", TEXT_B_LABEL)]}
    for slot, heading in texts.get(task, []):
        label(f"A{r}", heading)
        lay.slots.append(Slot(f"B{r}", slot))
        merge(f"B{r}:G{r}")
        lay.row_kinds[r] = "answer"
        r += 1
    if rubric.checks:  # what the rubric's checks on the text find, as the page shows above the sheet
        label(f"A{r}", bilingual("Checks on the text (a hint; you decide)", "文本检查（仅供参考，由您决定）"))
        lay.slots.append(Slot(f"B{r}", "checks"))
        merge(f"B{r}:G{r}")
        r += 1
    r += 1 if whole_text else 0
    for step in rubric.steps:
        n = step.number
        lay.section_rows.append(r)
        label(f"A{r}", _lbl(step.name))
        merge(f"A{r}:G{r}")
        r += 1
        if not whole_text:
            label(f"A{r}", RESPONSE_LABEL)
            lay.slots.append(Slot(f"B{r}", f"answer.{n}"))
            merge(f"B{r}:G{r}")
            lay.row_kinds[r] = "answer"
            r += 1
        if step.kind == "ideas":
            score_columns = list(
                zip("EF", step.item_scores, strict=False)
            )  # CGPST's elaboration, originality
            heads = {
                "A": bilingual("#", "序号"),
                "B": _lbl(step.item_label) if step.item_label else "",
                "C": bilingual("Yes: category", "是：类别"),
                "D": bilingual("Invalid type", "无效类型"),
                **{col: _lbl(spec.label) for col, spec in score_columns},
                "G": bilingual("Comment", "备注"),
            }
            rows = item_rows(r, heads, n, step.item_count)
            first, last = rows.start, rows.stop - 1
            for pos, r in enumerate(rows, start=1):
                base = f"items.{n}.{pos}"
                lay.inputs += [
                    Input(f"C{r}", f"{base}.category", "category", n),
                    Input(f"D{r}", f"{base}.invalid", "invalid", n),
                    *(
                        Input(f"{col}{r}", f"{base}.{spec.key}", "score", n, spec.min, spec.max)
                        for col, spec in score_columns
                    ),
                    Input(f"G{r}", f"{base}.comment", "text", n),
                ]
                # 1 when this row is the first Yes item with its category (distinct count)
                lay.formulas[f"H{r}"] = (
                    f'=IF(AND(C{r}<>"",D{r}=""),IF(COUNTIFS(C${first}:C{r},C{r},D${first}:D{r},"")=1,1,0),0)'
                )
            r = rows.stop
            computed = {
                "fluency": f'=COUNTIFS(C{first}:C{last},"<>",D{first}:D{last},"")',
                "flexibility": f"=SUM(H{first}:H{last})",
            }
            for col, spec in score_columns:  # an item score's sum over the Yes items (CGPST names it bare)
                summed = f'=SUMIFS({col}{first}:{col}{last},C{first}:C{last},"<>",D{first}:D{last},"")'
                computed[f"sum:{spec.key}"] = computed[spec.key] = summed
            dim_formulas = {d.key: computed[d.computed] for d in step.dimensions}
        elif step.kind == "criteria":
            specs = step.item_scores
            heads = {"A": bilingual("#", "序号"), "B": _lbl(step.item_label) if step.item_label else ""}
            for col, spec in zip("CDEF", specs, strict=False):
                heads[col] = _lbl(spec.label)
            heads["G"] = bilingual("Comment", "备注")
            rows = item_rows(r, heads, n, step.item_count)
            first, last = rows.start, rows.stop - 1
            for pos, r in enumerate(rows, start=1):
                for col, spec in zip("CDEF", specs, strict=False):
                    lay.inputs.append(
                        Input(f"{col}{r}", f"items.{n}.{pos}.{spec.key}", "score", n, spec.min, spec.max)
                    )
                lay.inputs.append(Input(f"G{r}", f"items.{n}.{pos}.comment", "text", n))
            r = rows.stop
            cols = {spec.key: col for col, spec in zip("CDEF", specs, strict=False)}
            dim_formulas = {
                d.key: f"=SUM({cols[d.computed.removeprefix('sum:')]}{first}:{cols[d.computed.removeprefix('sum:')]}{last})"
                for d in step.dimensions
            }
        else:
            for key in step.shows_step2_texts:
                text_spec = next(t for s in rubric.steps for t in s.texts if t.key == key)
                label(f"A{r}", _lbl(text_spec.label))
                lay.formulas[f"B{r}"] = f'=IF({text_cells[key]}="","",{text_cells[key]})'
                merge(f"B{r}:G{r}")
                lay.row_kinds[r] = "text"
                r += 1
            if n == 5:
                label(f"A{r}", bilingual("Grid check", "表格检查"))
                lay.slots.append(Slot(f"B{r}", "grid_hint"))
                merge(f"B{r}:G{r}")
                r += 1
            for t in step.texts:
                label(f"A{r}", _lbl(t.label))
                lay.inputs.append(Input(f"B{r}", f"texts.{t.key}", "text", n))
                text_cells[t.key] = f"B{r}"
                merge(f"B{r}:G{r}")
                lay.row_kinds[r] = "text"
                r += 1
            dim_formulas = {}
        dim_first = r
        for d in step.dimensions:
            label(f"A{r}", _lbl(d.label))
            label(f"B{r}", levels_text(d, lang))
            merge(f"B{r}:F{r}")
            lay.row_kinds[r] = "levels" if d.levels else "dim"
            if d.key in dim_formulas:
                lay.formulas[f"G{r}"] = dim_formulas[d.key]
            else:
                lay.inputs.append(Input(f"G{r}", f"dims.{d.key}", "score", n, d.min, d.max))
            lay.total_cells[d.key] = f"G{r}"
            r += 1
        dim_last = r - 1
        label(f"A{r}", bilingual("Comment", "本步备注"))
        lay.inputs.append(Input(f"B{r}", f"comments.{n}", "text", n))
        merge(f"B{r}:G{r}")
        lay.row_kinds[r] = "text"
        r += 1
        label(f"A{r}", bilingual(f"Step-{n} total score", f"第{n}步总分"))
        merge(f"A{r}:F{r}")
        lay.formulas[f"G{r}"] = f"=SUM(G{dim_first}:G{dim_last})"
        lay.total_cells[f"step.{n}"] = f"G{r}"
        lay.row_kinds[r] = "total"
        step_totals.append(f"G{r}")
        r += 2
    lay.section_rows.append(r)
    label(f"A{r}", bilingual("Score summary", "得分汇总"))
    merge(f"A{r}:G{r}")
    r += 1
    for n, cell in enumerate(step_totals, start=1):
        label(f"A{r}", bilingual(f"Step-{n}", f"第{n}步"))
        lay.formulas[f"B{r}"] = f"={cell}"
        r += 1
    label(f"A{r}", bilingual("Overall score", "总分"))
    lay.formulas[f"B{r}"] = "=" + "+".join(step_totals)
    lay.total_cells["overall"] = f"B{r}"
    lay.row_kinds[r] = "total"
    lay.max_row = r
    return lay
