"""Reliability by rubric part beyond the study (issue 38): each dimension's and step's ICC and
alpha of a study's submitted sheets equal pingouin's and the ``krippendorff`` package's on those
sheets, and stand the same in the four places (the API, the consistency dashboard and its figure,
``agreement``, the results workbook and its chart)."""

import re
import zipfile

import krippendorff
import pandas as pd
import pingouin
import pytest
from django.core.management import call_command
from django.test import Client
from openpyxl import load_workbook

from api.services.tokens import token_create
from calibration.selectors.agreement_state import sheet_vector
from core.accounts.roles import RESEARCHER
from research.selectors.research import results_get
from research.workbook import results_workbook_write
from scoring.models import ScoreSheet
from studies.rubric import load_rubric
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _frame(study):
    """(response, slot, dimension, step, value) of every submitted sheet, computed here."""
    rubric = load_rubric()
    rows = []
    for sheet in ScoreSheet.objects.filter(assignment__response__study=study).select_related("assignment"):
        vector = sheet_vector(sheet.totals, rubric)
        slot = "a" if sheet.assignment.rater_id == sheet.assignment.group.rater_a_id else "b"
        rows += [(sheet.assignment.response_id, slot, d.key, d.step, v)
                 for d, v in zip(rubric.dimensions, vector, strict=True)]  # fmt: skip
    return pd.DataFrame(rows, columns=["response", "slot", "dimension", "step", "value"])


def _icc(table, form):
    """pingouin 0.7 names the forms ICC(1,1) ... ICC(C,k); older releases ICC1 ... ICC3k."""
    names = {"ICC1": "ICC(1,1)", "ICC2": "ICC(A,1)", "ICC3": "ICC(C,1)", "ICC1k": "ICC(1,k)",
             "ICC2k": "ICC(A,k)", "ICC3k": "ICC(C,k)"}  # fmt: skip
    table = table.set_index("Type")
    value = table.loc[names[form] if names[form] in table.index else form, "ICC"]
    return None if pd.isna(value) else value


def _equal_means(frame):
    """Every response's mean the same but for rounding: pingouin's coefficient is noise there."""
    means = frame.groupby("response")["value"].mean()
    return means.max() - means.min() < 1e-9


def _package_alpha(matrix, level):
    try:
        return krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
    except ValueError:  # one value in the whole domain: no variance
        return float("nan")


def _independent(frame, form):
    """Each part's (ICC, alpha) by pingouin and the krippendorff package on the frame."""
    expected = {}
    for key, one in frame.groupby("dimension", sort=False):
        table = pingouin.intraclass_corr(data=one, targets="response", raters="slot", ratings="value")
        icc = None if _equal_means(one) else _icc(table, form)
        matrix = one.pivot(index="slot", columns="response", values="value").to_numpy()
        expected[key] = (icc, _package_alpha(matrix, "ordinal"))
    for step, one in frame.groupby("step"):
        means = one.groupby(["response", "slot"], as_index=False)["value"].mean()
        table = pingouin.intraclass_corr(data=means, targets="response", raters="slot", ratings="value")
        matrix = means.pivot(index="slot", columns="response", values="value").to_numpy()
        expected[f"Step {step}"] = (
            None if _equal_means(means) else _icc(table, form),
            _package_alpha(matrix, "interval"),
        )
    return expected


def test_each_part_in_the_four_places(scored, tmp_path, capsys):
    group, _responses = scored
    study = group.study
    expected = _independent(_frame(study), study.headline_icc)
    researcher = UserFactory(username="parts-researcher", role=RESEARCHER)
    token = token_create(user=researcher, name="t", scope="read", days=1)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}").get(f"/api/v1/studies/{study.pk}/facets").json()
    parts = {p["part"]: p for p in api["parts"]}
    assert len(parts) == 23 + 6 and list(parts)[-6:] == [f"Step {n}" for n in range(1, 7)]
    for key, (icc, alpha) in expected.items():
        if pd.isna(alpha):  # a dimension every rater scored alike here: no variance, no alpha
            assert parts[key]["alpha"] is None and parts[key]["alpha_reason"] == "no variance"
            continue
        assert parts[key]["icc"] == (None if icc is None else pytest.approx(icc, abs=1e-9)), key
        assert parts[key]["alpha"] == pytest.approx(alpha, abs=1e-9), key
        assert parts[key]["alpha_low"] <= parts[key]["alpha"] <= parts[key]["alpha_high"], key
    # a step with both coefficients, for the places that show it
    step = next(p for p in parts.values() if p["kind"] == "step" and p["icc"] is not None and p["alpha"])
    name = step["part"]

    client = Client()
    client.force_login(researcher)
    page = client.get(f"/research/agreement/?study={study.pk}").content.decode()
    table = page.split('id="parts-reliability"', 1)[1].split("</table>", 1)[0]
    row = re.search(rf"<th scope=\"row\">{name}</th>(.*?)</tr>", table, re.S).group(1)
    assert (
        f'<td class="num">{step["alpha"]:.3f}</td>' in row
        and f'<td class="num">{step["icc"]:.3f}</td>' in row
    )
    # the figure: the point sits where the axis from -0.5 to 1 puts the value (beyond it: at its edge)
    place = (min(max(step["alpha"], -0.5), 1) + 0.5) / 1.5 * 150
    assert f'<rect class="forest-alpha" x="{place:.1f}"' in row

    call_command("agreement", "--study", study.name)
    out = capsys.readouterr().out.split("Reliability by rubric part (beyond the study)", 1)[1]
    line = next(line for line in out.splitlines() if line.strip().startswith(f"{name} "))
    assert f"{step['alpha']:.3f}" in line and f"{step['icc']:.3f}" in line

    book = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=study), book)
    rows = list(
        load_workbook(book, read_only=True)["Reliability by part (beyond)"].iter_rows(values_only=True)
    )
    by_part = {r[0]: r for r in rows[1:]}
    assert by_part[name][8] == pytest.approx(step["alpha"], abs=5e-5)
    assert by_part[name][5] == pytest.approx(step["icc"], abs=5e-5)
    with zipfile.ZipFile(book) as archive:  # the sheet carries its chart
        assert any(name.startswith("xl/charts/chart") for name in archive.namelist())
