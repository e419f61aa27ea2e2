"""Filling an exported offline workbook the way a rater does in Excel (tests only)."""

from __future__ import annotations

import io

from openpyxl import load_workbook

from scoring.workbooks.cells import text_cell_set
from scoring.workbooks.layout import sheet_layout
from studies.rubric import INVALID_PREFIX, load_rubric

STEP2_TEXTS = [
    ("texts.condition_phrase", "Since microplastics reach the bottom of the food chain"),
    ("texts.stem", "How might we"),
    ("texts.kvp", "reduce the proportion of microplastics"),
    ("texts.purpose", "in order to restore energy flow"),
]


def open_workbook(data: bytes):
    return load_workbook(io.BytesIO(data))


def save_workbook(wb) -> bytes:
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def fill_sheet(
    ws, changes, *, lang: str = "en", rubric_version: str = "cgpst-v1", task: str = "cgpst"
) -> None:
    """Type entry changes into the cells of one response sheet, as labels from the dropdowns
    (``task``: a single-text or pairwise study's sheet)."""
    rubric = load_rubric(rubric_version)
    inputs = sheet_layout(rubric_version, lang, task=task).input_by_path
    for path, value in changes:
        if path.endswith(".classification"):
            base = path.removesuffix(".classification")
            step = int(base.split(".")[1])
            category, invalid = inputs[f"{base}.category"].coord, inputs[f"{base}.invalid"].coord
            if value.startswith(INVALID_PREFIX):
                key = value.removeprefix(INVALID_PREFIX)
                label = next(t.label.text(lang) for t in rubric.step(step).invalid_types if t.key == key)
                ws[category], ws[invalid] = None, label
            else:
                ws[category], ws[invalid] = rubric.category_label(value, lang), None
        elif isinstance(value, str):
            text_cell_set(ws[inputs[path].coord], value)  # as typed with Excel's leading apostrophe
        else:
            ws[inputs[path].coord] = value


def fill_workbook(data: bytes, changes_by_code: dict[str, list]) -> bytes:
    wb = open_workbook(data)
    for code, changes in changes_by_code.items():
        fill_sheet(wb[code], changes)
    return save_workbook(wb)


def workbook_download_href(client) -> str:
    """The first download link on the logged-in rater's workbooks page."""
    html = client.get("/scoring/workbooks/").content.decode()
    return next(
        part.split('"')[0]
        for part in html.split('href="')
        if part.startswith("/scoring/workbooks/") and "download" in part
    )


def workbook_download(client, user):
    """``user``'s first offline workbook as the page serves it: (file name, workbook)."""
    client.force_login(user)
    reply = client.get(workbook_download_href(client))
    return reply["Content-Disposition"].split('filename="', 1)[1].rstrip('"'), open_workbook(reply.content)
