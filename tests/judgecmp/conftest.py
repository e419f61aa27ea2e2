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


def humans_scored():
    """One scenario, four responses scored by a human pair; the last pair disagrees (it
    falls under the threshold)."""
    from studies.rubric import load_rubric

    rubric = load_rubric()
    group, responses = scoring_group(n_responses=4)
    sheets = []
    for index, response in enumerate(responses):
        a_changes = varied_changes(reference_changes(3), index - 1)
        b_changes = varied_changes(reference_changes(4), 1 - index)
        if index == 3:
            b_changes = mirrored_changes(b_changes, rubric)
        a = sheet_submitted(group.rater_a, response, a_changes, group=group)
        b = sheet_submitted(group.rater_b, response, b_changes, group=group)
        sheets.append((response, a, b))
    return group, sheets


def judge_scores(judge, sheets):
    """The judge's sheets on the responses: an imperfect copy of one expert's."""
    return [
        (
            response,
            a,
            b,
            judge_sheet(judge, response, varied_changes(reference_changes(3 + index % 2), -index)),
        )
        for index, (response, a, b) in enumerate(sheets)
    ]


@pytest.fixture
def judged(db):
    """``humans_scored`` and a judge whose own model generated the first response."""
    group, human = humans_scored()
    judge = judge_make("j1", endpoint=human[0][0].model)
    sheets = judge_scores(judge, human)
    response_scores_recompute(response_id=human[0][0].pk)
    return judge, group, sheets
