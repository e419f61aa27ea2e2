"""Agreement on a rubric of few dimensions: three Likert scores that rise and fall together have a PCC
of 1 however far apart their levels are; the study's second routing criterion (totals apart) sees the
difference and routes the response, as docs/admins.md advises for such rubrics."""

import pytest

from calibration.reliability import LevelRule
from calibration.selectors.agreement_state import ResponseState, SheetState, response_evaluate
from studies.rubric import load_rubric

LIKERT = load_rubric("likert-hhh-v1")


def _sheet(values: tuple[int, int, int], n: int) -> SheetState:
    dims = dict(zip(("s1.helpfulness", "s2.harmlessness", "s3.honesty"), values, strict=True))
    return SheetState(
        assignment_id=n, rater_id=n, role="primary", group_id=1, sheet_id=n, status="submitted", version=1,
        totals={"dimensions": dims, "overall": sum(values)},
    )  # fmt: skip


OFF = LevelRule()


def _evaluate(a, b, level=OFF):
    state = ResponseState(
        response_id=1, research_id="B90_P1", scenario_id=1, condition_id=1, status="scoring",
        slots={"a": _sheet(a, 1), "b": _sheet(b, 2)}, n_primary=2,
    )  # fmt: skip
    return response_evaluate(
        state=state, threshold=0.65, rule="calibrator_and_closer", rubric=LIKERT, level=level
    )


def test_parallel_scores_far_apart_pass_the_pcc_alone():
    evaluation = _evaluate((6, 7, 5), (2, 3, 1))
    assert evaluation.before.r == pytest.approx(1.0) and not evaluation.flagged


def test_the_totals_rule_routes_them():
    evaluation = _evaluate((6, 7, 5), (2, 3, 1), LevelRule(total_difference_over=3))
    assert evaluation.flagged and evaluation.flag_reasons == ("total",)
    close = _evaluate((6, 7, 5), (5, 6, 4), LevelRule(total_difference_over=3))
    assert not close.flagged  # 18 against 15: within 3 points
