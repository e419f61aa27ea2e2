"""Issue 39: the judge and the humans together, read from the database. The selector's numbers are
checked against ``judging.ppi`` on scores read here straight from the final scores and the judge's
sheets; the page, the figure and the API show what the selector computed."""

from __future__ import annotations

import pytest

from calibration.models import FinalScore
from core.accounts.roles import RESEARCHER
from judging.ppi import ppi_mean
from judging.selectors.estimates import judge_estimates_get
from research.results import fmt
from research.significance import default_pair
from scoring.models import AssignmentRole, ScoreSheet, SheetStatus
from tests.factories import (
    UserFactory,
    rater,
)
from tests.judgecmp.conftest import HUMAN_SCORED, SCENARIOS

pytestmark = pytest.mark.django_db


def _scores(study, judge) -> tuple[dict[int, float], dict[int, float]]:
    """The humans' final overall and the judge's overall by response, read directly."""
    human = {f.response_id: float(f.overall) for f in FinalScore.objects.filter(response__study=study)}
    sheets = ScoreSheet.all_objects.filter(
        assignment__rater=judge.user, assignment__role=AssignmentRole.JUDGE, status=SheetStatus.SUBMITTED
    )
    return human, {s.assignment.response_id: float(s.totals["overall"]) for s in sheets}


def test_each_cell_and_the_paired_difference_are_the_ppi_of_the_stored_scores(study_judged):
    study, judge, responses = study_judged
    human, by_judge = _scores(study, judge)
    assert len(human) == len(HUMAN_SCORED) and len(by_judge) == len(responses)
    estimates = judge_estimates_get(study=study, judge=judge, pair_rule=default_pair)
    assert (estimates.n_judged, estimates.n_human, estimates.pair) == (8, 6, ("A", "B"))

    for cell in estimates.cells:
        ids = [r.pk for (_, letter), r in responses.items() if letter == cell.condition]
        expected = ppi_mean(
            human=[human[i] for i in ids if i in human],
            judge_on_human=[by_judge[i] for i in ids if i in human],
            judge_only=[by_judge[i] for i in ids if i not in human],
        )
        assert cell.estimate == expected and cell.estimate.mean is not None

    # scenarios 0 and 1 are human-scored on both sides; 2 and 3 enter with the judge's difference
    (difference,) = estimates.differences
    pairs = [(responses[(i, "A")].pk, responses[(i, "B")].pk) for i in range(SCENARIOS)]
    both = [(x, y) for x, y in pairs if x in human and y in human]
    expected = ppi_mean(
        human=[human[x] - human[y] for x, y in both],
        judge_on_human=[by_judge[x] - by_judge[y] for x, y in both],
        judge_only=[by_judge[x] - by_judge[y] for x, y in pairs if (x, y) not in both],
    )
    assert difference.condition == "A - B" and difference.estimate == expected


def test_the_page_the_figure_and_the_api_show_the_estimates(client, study_judged):
    study, judge, _ = study_judged
    researcher = UserFactory(username="res-est", role=RESEARCHER)
    client.force_login(researcher)
    html = client.get("/research/judge/", {"study": study.pk, "judge": judge.pk}).content.decode()
    estimates = judge_estimates_get(study=study, judge=judge, pair_rule=default_pair)
    section = html[html.index('id="judge-estimates"') : html.index('id="judge-calibration"')]
    for cell in [*estimates.cells, *estimates.differences]:
        e = cell.estimate
        row = f"<td>{cell.condition}</td><td>{e.n_human}</td><td>{e.n_judge_only}</td>"
        assert row in section
        assert f"[{fmt(e.low, 2)}, {fmt(e.high, 2)}]" in section
        assert f"[{fmt(e.human_low, 2)}, {fmt(e.human_high, 2)}]" in section
    assert "PPI++" in section and "beyond the study" in section
    calibration = html[html.index('id="judge-calibration"') :]
    overall = estimates.calibration[-1]
    assert overall.step is None and overall.points
    assert f"<td>{overall.points[0].n}</td><td>{fmt(overall.points[0].judge_mean, 2)}</td>" in calibration
    test = estimates.self_preference
    assert test.n_own == 0 and "needs at least two human-scored responses on each side" in html

    figure = client.get("/research/judge/calibration.svg", {"study": study.pk, "judge": judge.pk})
    assert figure.status_code == 200 and figure["Content-Type"] == "image/svg+xml"
    assert b"Step 1 total" in figure.content and b"Overall" in figure.content
    assert figure["Cache-Control"] == "no-store"
    for bad in ({"study": study.pk}, {"study": "x", "judge": judge.pk}, {"judge": 10**30}):
        assert client.get("/research/judge/calibration.svg", bad).status_code == 404
    assert (
        client.get("/research/judge/calibration.gif", {"study": study.pk, "judge": judge.pk}).status_code
        == 404
    )


def test_raters_cannot_reach_the_figure(client, study_judged):
    study, judge, _ = study_judged
    client.force_login(rater("est-r", "E09"))
    assert (
        client.get("/research/judge/calibration.svg", {"study": study.pk, "judge": judge.pk}).status_code
        == 403
    )


def test_the_results_workbook_carries_the_estimates(study_judged, tmp_path):
    from openpyxl import load_workbook

    from research.selectors.research import results_get
    from research.workbook import results_workbook_write
    from research.workbook_judge import SHEET_TITLE

    study, judge, _ = study_judged
    path = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=study), path)
    rows = [[c.value for c in row] for row in load_workbook(path)[SHEET_TITLE].iter_rows()]
    estimates = judge_estimates_get(study=study, judge=judge, pair_rule=default_pair)
    start = (
        next(i for i, r in enumerate(rows) if r[0] and str(r[0]).startswith("The judge and the humans")) + 2
    )
    shown = rows[start : start + len(estimates.cells) + len(estimates.differences)]
    for row, cell in zip(shown, [*estimates.cells, *estimates.differences], strict=True):
        e = cell.estimate
        assert row[:4] == [cell.model, cell.condition, e.n_human, e.n_judge_only]
        assert (
            row[7] == pytest.approx(e.mean)
            and row[8] == pytest.approx(e.low)
            and row[9] == pytest.approx(e.high)
        )
    calibration = (
        next(i for i, r in enumerate(rows) if r[0] and str(r[0]).startswith("Calibration (beyond")) + 2
    )
    first = estimates.calibration[0]
    assert rows[calibration][:4] == [
        "Step 1 total",
        first.points[0].level,
        first.points[0].n,
        pytest.approx(first.points[0].judge_mean),
    ]


def test_the_api_gives_the_page_s_numbers(client, study_judged):
    study, judge, _ = study_judged
    client.force_login(UserFactory(username="res-api-est", role=RESEARCHER))
    url = f"/api/v1/studies/{study.pk}/judges/{judge.pk}/estimates"
    data = client.get(url).json()
    estimates = judge_estimates_get(study=study, judge=judge, pair_rule=default_pair)
    assert data["judge"] == {"id": judge.pk, "name": judge.name} and data["pair"] == ["A", "B"]
    assert [c["condition"] for c in data["cells"]] == [c.condition for c in estimates.cells]
    for shown, cell in zip(
        data["cells"] + data["differences"], estimates.cells + estimates.differences, strict=True
    ):
        assert shown["estimate"]["mean"] == pytest.approx(cell.estimate.mean)
        assert shown["estimate"]["effective_n"] == pytest.approx(cell.estimate.effective_n)
    assert data["self_preference"]["n_others"] == estimates.self_preference.n_others
    assert len(data["calibration"]) == 7
    for bad in (
        f"/api/v1/studies/{study.pk}/judges/{10**30}/estimates",
        f"/api/v1/studies/{study.pk}/judges/999999/estimates",
    ):
        assert client.get(bad).status_code in (404, 422)
    client.force_login(rater("est-api-r", "E08"))
    assert client.get(url).status_code in (401, 403)
