"""A single-text study: the single model answers each prompt with one call, the stub answers a
plain prompt with plain text, the team strategies are refused, and the response keeps one text."""

import pytest

from generation.models import GenerationRun, RunStatus, Turn
from generation.services.batches import BatchError, batch_create
from generation.strategies import ParameterError, protocol_for, protocol_length, protocol_run, task_for
from generation.tasks import run_advance_send
from studies.models import Condition, Scenario
from studies.selectors import study_conditions_offered
from studies.services.setup import conditions_ensure_defaults
from studies.services.studies import study_create
from tests.factories import stub_endpoint
from tests.workers import wait_for

PROMPT = "Explain to a new parent how vaccines teach the immune system to recognise a pathogen."


def test_the_single_model_answers_a_text_task_with_one_call():
    params = {"language": "en", "temperature": 0.6, "top_p": 0.9}
    calls, answers = protocol_run(
        protocol_for(strategy="single", task=task_for(PROMPT, "text"), params=params),
        lambda call: "The text.",
    )
    assert answers == ["The text."]
    [call] = calls
    assert call.messages == [
        {
            "role": "system",
            "content": "All responses should be in English, with clear language and accurate logic.",
        },
        {"role": "user", "content": PROMPT},
    ]
    assert call.params == {"temperature": 0.6, "top_p": 0.9}
    assert protocol_length(strategy="single", params=params, kind="text") == 1
    assert protocol_length(strategy="single", params=params) == 6  # the CGPST protocol is unchanged


@pytest.mark.parametrize("strategy", ["teamllm", "ablation", "llm_discussion", "mad"])
def test_team_strategies_refuse_a_text_task(strategy):
    with pytest.raises(ParameterError, match="CGPST tasks only"):
        protocol_length(strategy=strategy, params={"language": "en", "temperature": 0.7}, kind="text")


def text_study():
    study = study_create(name="Vaccine answers", template="empty", task_kind="text", response_language="en")
    Scenario.objects.create(study=study, code="P1", theme="Vaccines", text=PROMPT)
    conditions_ensure_defaults()
    return study


@pytest.mark.django_db
def test_a_text_study_is_offered_the_single_model_conditions_only():
    study = text_study()
    assert study.rubric_version == "likert-hhh-v1"
    offered = list(study_conditions_offered(study=study))
    assert offered and {c.strategy for c in offered} == {"single"}
    assert Condition.objects.exclude(strategy="single").exists()  # the catalogue has team conditions


@pytest.mark.django_db
def test_a_batch_with_a_team_condition_is_refused_for_a_text_study(llm_stub):
    study = text_study()
    with pytest.raises(BatchError, match="did not choose the condition"):
        batch_create(
            study=study,
            scenarios=list(study.scenarios.all()),
            endpoints=[stub_endpoint(llm_stub)],
            conditions=[Condition.objects.get(letter="A")],
            enqueue=run_advance_send,
        )
    assert not GenerationRun.objects.exists()


@pytest.mark.worker
def test_a_text_study_generates_one_text_per_prompt_on_the_stub(celery_worker, llm_stub):
    study = text_study()
    single = Condition.objects.get(letter="B")
    assert single.strategy == "single"
    launched = batch_create(
        study=study,
        scenarios=list(study.scenarios.all()),
        endpoints=[stub_endpoint(llm_stub)],
        conditions=[single],
        enqueue=run_advance_send,
    )
    [run] = launched.runs
    assert run.calls_total == 1 and run.settings_snapshot["task_kind"] == "text"
    wait_for(
        lambda: GenerationRun.objects.get(pk=run.pk).status not in ("queued", "running"), worker=celery_worker
    )
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED, run.error
    [turn] = Turn.objects.filter(run=run)
    assert turn.messages[-1] == {"role": "user", "content": PROMPT}
    response = run.response
    assert response.research_id == "B90_P1" and response.is_text_task
    assert response.step1 == turn.reply and "[Synthetic reply]" in turn.reply and "vaccines" in turn.reply
    assert response.answers[1:] == ["", "", "", "", ""]
    # held only because the study holds every generated response: no step is missing, there are none
    assert response.held and response.hold_reasons == [{"code": "needs_release", "step": 0, "other": None}]
    assert not response.items.exists()
