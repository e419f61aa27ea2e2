import pytest

from calibration.services.calibration import response_scores_recompute
from tests.factories import (
    ConditionFactory,
    ModelEndpointFactory,
    ScenarioFactory,
    StudyFactory,
    make_response,
    mirrored_changes,
    rater,
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
        a_changes = rater_a_changes(index)
        b_changes = varied_changes(reference_changes(4), 1 - index)
        if index == 3:
            b_changes = mirrored_changes(b_changes, rubric)
        a = sheet_submitted(group.rater_a, response, a_changes, group=group)
        b = sheet_submitted(group.rater_b, response, b_changes, group=group)
        sheets.append((response, a, b))
    return group, sheets


def rater_a_changes(index: int):
    """What rater A entered on the ``index``-th response of ``humans_scored``."""
    return varied_changes(reference_changes(3), index - 1)


def judge_agreeing(judge, sheets):
    """The judge's sheets on the responses: rater A's own entries, so that the judge agrees with
    rater B exactly as well as rater A does and better than B agrees with A (it passes the gate)."""
    return [
        (response, a, b, judge_sheet(judge, response, rater_a_changes(index)))
        for index, (response, a, b) in enumerate(sheets)
    ]


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


SCENARIOS = 4
HUMAN_SCORED = {(0, "A"), (0, "B"), (1, "A"), (1, "B"), (2, "A"), (3, "B")}


@pytest.fixture
def study_judged():
    """One model under conditions A and B on four scenarios; the humans scored six of the eight
    responses, the judge all eight."""
    study = StudyFactory(name="Estimates")
    model = ModelEndpointFactory(name="model-est", model_number="41")
    conditions = {
        "A": ConditionFactory(letter="A", name="TeamLLM"),
        "B": ConditionFactory(letter="B", name="Single", strategy="single"),
    }
    judge = judge_make("est", provider_family="other")
    a, b = rater("est-a", "E01"), rater("est-b", "E02")
    responses = {}
    for index in range(SCENARIOS):
        scenario = ScenarioFactory(study=study)
        for letter, condition in conditions.items():
            response = make_response(study=study, scenario=scenario, model=model, condition=condition)
            responses[(index, letter)] = response
            if (index, letter) in HUMAN_SCORED:
                group, _ = scoring_group(
                    n_responses=0, study=study, scenario=scenario, condition=condition, rater_a=a, rater_b=b
                )
                sheet_submitted(a, response, varied_changes(reference_changes(3), index), group=group)
                sheet_submitted(b, response, varied_changes(reference_changes(4), index), group=group)
                response_scores_recompute(response_id=response.pk)
            shift = index + (2 if letter == "A" else -2)
            judge_sheet(judge, response, varied_changes(reference_changes(3), shift))
    return study, judge, responses
