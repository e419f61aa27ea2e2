"""The threshold edge as released: a response passes only when r > threshold, so r == threshold is flagged."""

import math

from calibration.selectors.agreement_state import ResponseState, SheetState, response_evaluate
from calibration.statistics import pcc
from studies.models import FinalScoreRule
from studies.rubric import load_rubric

A = [0.1, 0.5, 0.9, 0.3, 0.7, 0.2, 1.0, 0.0]
B = [0.2, 0.4, 0.8, 0.5, 0.6, 0.1, 0.9, 0.3]


def _state() -> ResponseState:
    def sheet(pk: int) -> SheetState:
        return SheetState(pk, pk, "primary", None, pk, "submitted", 1, {"dimensions": {}})

    state = ResponseState(
        response_id=1, research_id="A05_FS10", scenario_id=1, condition_id=1, status="scoring"
    )
    state.slots = {"a": sheet(1), "b": sheet(2)}
    state.n_primary = 2
    return state


def _flagged(threshold: float) -> bool:
    evaluation = response_evaluate(
        state=_state(),
        threshold=threshold,
        rule=FinalScoreRule.CALIBRATOR_AND_CLOSER,
        rubric=load_rubric(),
        vectors={"a": A, "b": B},
    )
    return evaluation.flagged


def test_r_equal_to_the_threshold_is_flagged_and_only_r_above_passes():
    r = pcc(A, B).r
    assert r is not None and 0 < r < 1
    assert _flagged(r) is True  # r == threshold: flagged, as the release's `r > threshold` decides
    assert _flagged(math.nextafter(r, 2.0)) is True  # just above r: r is below it
    assert _flagged(math.nextafter(r, -2.0)) is False  # the threshold just below r: r passes
