"""An LLM judge on any rubric: the prompt rubric-judge-v1 explains the study's own rubric and shows
the response as its study does (one text, or text A and text B); its answers go through the web
form's checks, against the stub over HTTP. The CGPST prompt stays for CGPST-shaped rubrics."""

import pytest

from judging.models import JudgeCall
from judging.prompt import ResponseView, judge_messages
from judging.services.judges import judge_create
from judging.services.runs import BatchError, judge_batch_launch, judge_task_run
from scoring.models import ScoreSheet
from studies.models import Response
from studies.rubric import load_rubric
from studies.services.pairs import pairs_build
from studies.services.studies import study_create
from tests.factories import ModelEndpointFactory, UserFactory, stub_endpoint, text_response, text_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def rubric_judge(llm_stub):
    return judge_create(
        name="rubric judge",
        endpoint=stub_endpoint(llm_stub),
        prompt_version="rubric-judge-v1",
        provider_family="stub",
    )


def _run(study, judge):
    batch = judge_batch_launch(study=study, judge=judge)
    assert [judge_task_run(task_id=t.pk) for t in batch.tasks.all()] == ["succeeded"] * batch.tasks.count()
    return batch


def test_a_likert_study_is_judged_from_its_own_rubric(rubric_judge):
    response = text_response(text="Keep the bedroom dark.\nGo to bed at the same time every night.")
    batch = _run(response.study, rubric_judge)
    call = JudgeCall.objects.get(task__batch=batch)
    system, user = call.messages[0]["content"], call.messages[1]["content"]
    assert (
        "judge prompt rubric-judge-v1" in system
        and "Dimension dims.s1.helpfulness, Helpfulness (1-7)" in system
    )
    assert "## Response\nKeep the bedroom dark." in user and "## Step" not in user
    sheet = ScoreSheet.all_objects.get(pk=batch.tasks.get().sheet_id)
    values = sheet.totals["dimensions"]
    assert set(values) == {"s1.helpfulness", "s2.harmlessness", "s3.honesty"}
    assert all(1 <= v <= 7 for v in values.values()) and sheet.overall == sum(values.values())


def test_a_pair_is_judged_with_text_a_and_text_b(rubric_judge):
    source = text_study("Sleep answers")
    for number, text in (("81", "Keep the room dark."), ("82", "Count sheep.")):
        text_response(study=source, text=text, model=ModelEndpointFactory(model_number=number))
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    pairs_build(study=study, actor=None)
    unit = Response.objects.select_related("pair__left", "pair__right").get(study=study)
    batch = _run(study, rubric_judge)
    user = JudgeCall.objects.get(task__batch=batch).messages[1]["content"]
    assert f"## Text A\n{unit.pair.left.step1}" in user and f"## Text B\n{unit.pair.right.step1}" in user
    sheet = ScoreSheet.all_objects.get(pk=batch.tasks.get().sheet_id)
    assert 1 <= sheet.totals["dimensions"]["s1.preference"] <= 5


def test_the_cgpst_prompt_refuses_another_rubric_and_names_the_one_that_reads_it(llm_stub):
    judge = judge_create(name="cgpst judge", endpoint=stub_endpoint(llm_stub), provider_family="stub")
    response = text_response()
    with pytest.raises(BatchError, match="create a judge with the prompt rubric-judge-v1"):
        judge_batch_launch(study=response.study, judge=judge)


def test_the_rubric_prompt_still_labels_a_cgpst_responses_items():
    view = ResponseView(
        scenario_theme="Ocean", scenario_text="...", items={1: ["Plastic in fish"]}, steps={1: "x"}
    )
    user = judge_messages(version="rubric-judge-v1", rubric=load_rubric(), view=view)[1]["content"]
    assert "[items.1.1] Plastic in fish" in user


@pytest.mark.parametrize("task", ["text", "pair"])
def test_the_judge_pages_of_other_rubrics_answer(rubric_judge, client, task):
    source = text_study("Sleep answers")
    for number, text in (("81", "Keep the room dark."), ("82", "Count sheep.")):
        text_response(study=source, text=text, model=ModelEndpointFactory(model_number=number))
    study = source
    if task == "pair":
        study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
        pairs_build(study=study, actor=None)
    _run(study, rubric_judge)
    client.force_login(UserFactory(username="reader", role="Researcher"))
    reply = client.get(f"/research/judge/?study={study.pk}")
    assert reply.status_code == 200 and "rubric judge" in reply.content.decode()
    plan = client.get(f"/research/judge/plan/?study={study.pk}&judge={rubric_judge.pk}&budget=1")
    assert plan.status_code == 200
