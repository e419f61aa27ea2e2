"""The researchers' notebook example (docs/researchers.md), run as written against a live
server with a real token: its Table 1 and item-level long table must equal what the results
workbook and the item-scores export (the export engine's own files, read with openpyxl) hold."""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from openpyxl import load_workbook

from api.services.tokens import token_create
from research.models import ExportJob
from research.services.exports import export_job_run
from tests.research import test_results_workbook_write as workbook_tests

scored = workbook_tests.scored  # A05_FS10 scored by H01 and H02 (data_A.json), its final score computed
DOC = Path(__file__).resolve().parents[2] / "docs" / "researchers.md"


def notebook_code() -> str:
    """The first Python block after the marker: the example exactly as the docs print it."""
    found = re.search(r"<!-- api-notebook-example -->\s*```python\n(.*?)```", DOC.read_text(), re.S)
    assert found, "the notebook example is missing from docs/researchers.md"
    return found.group(1)


def _cell(value):
    """One cell as both sides hold it: no value (None, NaN, ""), a number, or text."""
    if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return round(float(value), 4)
    return str(value)


def _export(kind: str, study, user, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    job = ExportJob.objects.create(kind=kind, params={"study_id": study.pk}, created_by=user)
    job = export_job_run(job_id=job.pk)
    assert job.status == "done", job.error
    with job.file.open("rb") as handle:
        return load_workbook(io.BytesIO(handle.read()), read_only=True)


@pytest.mark.django_db(transaction=True)
def test_the_notebook_example_reproduces_the_workbooks_table1_and_long_table(
    live_server, scored, settings, tmp_path, monkeypatch
):
    researcher = get_user_model().objects.get(username="researcher")
    token = token_create(user=researcher, name="notebook", scope="read", days=1)
    monkeypatch.setenv("TEAMLLM_URL", live_server.url)
    monkeypatch.setenv("TEAMLLM_TOKEN", token.plain)
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(notebook_code(), str(DOC), "exec"), namespace)  # noqa: S102 (our own docs)
    table1, items = namespace["table1"], namespace["items"]

    results = _export("results", scored.study, researcher, settings, tmp_path)
    expected = []
    for sheet in results.worksheets:
        condition = re.fullmatch(r"Table 1 \((\w+)\)", sheet.title)
        if not condition:
            continue
        scenario = None
        for row in list(sheet.iter_rows(values_only=True))[2:]:  # two header rows
            scenario = row[0] if row[0] is not None else scenario  # a merged scenario cell
            expected.append([condition.group(1), scenario, *row[1:]])
    got = [[_cell(v) for v in row] for row in table1.itertuples(index=False)]
    assert expected and len(table1) == len(expected)
    assert got == [[_cell(v) for v in row] for row in expected]
    assert table1.iloc[0]["Total Score"] == pytest.approx(float(scored.final_score.overall))

    export = _export("items_xlsx", scored.study, researcher, settings, tmp_path).worksheets[0]
    header, *rows = list(export.iter_rows(values_only=True))
    assert list(items.columns) == list(header)
    assert len(items) == len(rows) == 100  # two sheets: 16 ideas, 5 criteria, 23 dimensions, 6 steps
    assert [[_cell(v) for v in row] for row in items.itertuples(index=False)] == [
        [_cell(v) for v in row] for row in rows
    ]
