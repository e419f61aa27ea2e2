import pytest

from calibration.services.calibration import response_scores_recompute
from tests.factories import (
    mirrored_changes,
    reference_changes,
    scoring_group,
    sheet_submitted,
    varied_changes,
)
from tests.judgecmp.factories import judge_make, judge_sheet


@pytest.fixture
def judged(db):
    """One scenario, four responses scored by a human pair (the last pair disagrees: it
    falls under the threshold) and by a judge whose own model generated the first response."""
    from studies.rubric import load_rubric

    rubric = load_rubric()
    group, responses = scoring_group(n_responses=4)
    judge = judge_make("j1", endpoint=responses[0].model)
    sheets = []
    for index, response in enumerate(responses):
        a_changes = varied_changes(reference_changes(3), index - 1)
        b_changes = varied_changes(reference_changes(4), 1 - index)
        if index == 3:
            b_changes = mirrored_changes(b_changes, rubric)
        a = sheet_submitted(group.rater_a, response, a_changes, group=group)
        b = sheet_submitted(group.rater_b, response, b_changes, group=group)
        j = judge_sheet(judge, response, varied_changes(reference_changes(3 + index % 2), -index))
        sheets.append((response, a, b, j))
    response_scores_recompute(response_id=responses[0].pk)
    return judge, group, sheets
