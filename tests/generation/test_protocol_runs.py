"""Whole runs of every protocol through a real Celery worker and the stub over HTTP:
the requests the stub received are exactly the release's message lists (TeamLLM,
single model), top_p as the batch chose it, and the other methods' runs end as their
sources say (a debate that stops early, TeamFusion's measures read back)."""

import pytest
from django.urls import reverse

from generation.models import GenerationRun, PreferenceProfile, RunStatus, Turn
from generation.selectors import run_fusion_measures
from generation.services.batches import batch_create
from generation.tasks import run_advance_send
from studies.models import Condition, Scenario, Study
from tests.factories import stub_endpoint
from tests.generation import release_reference as ref
from tests.workers import wait_for

pytestmark = pytest.mark.worker


def launch(stub, letters, top_p="paper"):
    return batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(stub)],
        conditions=list(Condition.objects.filter(letter__in=letters)),
        enqueue=run_advance_send,
        top_p=top_p,
    )


def all_finished(batch):
    return lambda: not GenerationRun.objects.filter(batch=batch, status__in=["queued", "running"]).exists()


def replayed(run):
    """The run's persisted replies, in call order, as the release's agents would get them."""
    replies = iter(Turn.objects.filter(run=run).order_by("seq").values_list("reply", flat=True))
    return lambda role, messages: next(replies)


@pytest.mark.parametrize("top_p", ["paper", "as_released"])
def test_teamllm_and_single_runs_send_the_releases_requests(celery_worker, demo, llm_stub, client, top_p):
    launched = launch(llm_stub, ["A", "B"], top_p=top_p)
    wait_for(all_finished(launched.batch), worker=celery_worker)
    team, single = sorted(launched.runs, key=lambda r: r.condition.letter)
    for run in (team, single):
        run.refresh_from_db()
        assert run.status == RunStatus.SUCCEEDED, run.error
        assert run.settings_snapshot["top_p"] == top_p
    bodies = llm_stub.stats.bodies
    assert len(bodies) == 34 + 6 and llm_stub.stats.as_dict()["repeated_prompts"] == 0
    team_system = ref.PROMPTS["FPSP_Overall_Description_Team"]
    team_bodies = [b for b in bodies if b["messages"][0]["content"].startswith(team_system)]
    single_bodies = [b for b in bodies if b not in team_bodies]

    scenario = team.settings_snapshot["scenario_text"]
    expected = ref.teamllm(scenario, replayed(team))
    assert [b["messages"] for b in team_bodies] == [messages for _, messages in expected]
    assert [b["temperature"] for b in team_bodies] == [ref.TEMPERATURES[role] for role, _ in expected]
    expected = ref.single(scenario, replayed(single))
    assert [b["messages"] for b in single_bodies] == [messages for _, messages in expected]
    assert {b["temperature"] for b in single_bodies} == {0.6}
    if top_p == "paper":
        assert {b.get("top_p") for b in bodies} == {0.9}
    else:
        assert all("top_p" not in b for b in bodies)  # none sent, as the release's code
    assert team.response.answers == [t.reply for t in team.turns.filter(phase="consensus").order_by("seq")]
    client.login(username="admin", password="demo-pass-2026")
    page = client.get(reverse("generation:run_detail", args=[team.pk])).content.decode()
    shown = (
        "top_p: 0.9, as the paper states" if top_p == "paper" else "top_p: none sent, as the release's code"
    )
    assert shown in page


def test_discussion_debate_and_teamfusion_runs(celery_worker, demo, llm_stub, client):
    study = Study.objects.get(name="CGPST demo")
    PreferenceProfile.objects.filter(study=study).delete()  # this study's members instead of the demo's
    for order, (name, preferences) in enumerate(
        [
            ("Mia", "Wants concrete, local solutions."),
            ("Noah", "Wants bold technology."),
            ("Lea", "Fairness."),
        ]
    ):
        PreferenceProfile.objects.create(study=study, name=name, preferences=preferences, order=order)
    PreferenceProfile.objects.create(study=None, name="Old", preferences="Not in this study.")
    launched = launch(llm_stub, ["D", "E", "F"])
    discussion, debate, fusion = sorted(launched.runs, key=lambda r: r.condition.letter)
    assert [discussion.calls_total, debate.calls_total, fusion.calls_total] == [120, 66, 168]
    wait_for(all_finished(launched.batch), worker=celery_worker)
    for run in (discussion, debate, fusion):
        run.refresh_from_db()
        assert run.status == RunStatus.SUCCEEDED, run.error
        assert len(run.response.answers) == 6 and all(run.response.answers)

    # LLM Discussion: the first member's final-round answer of each step
    finals = discussion.turns.filter(phase="final", role="Environmentalist").order_by("seq")
    assert discussion.response.answers == [t.reply for t in finals]
    # the debate stopped at the moderator's preference in round 2: 6 calls per step
    assert debate.calls_done == debate.calls_total == 36
    assert debate.response.items.filter(step=1).count() == 8  # the moderator's answer, parsed

    # TeamFusion: the study's members, not the old profile; measures per step and iteration
    assert [p["name"] for p in fusion.settings_snapshot["params"]["profiles"]] == ["Mia", "Noah", "Lea"]
    measures = run_fusion_measures(fusion)
    assert [(m.step, m.iteration) for m in measures] == [(s, i) for s in range(1, 7) for i in range(1, 5)]
    assert all(len(m.ratings) == 3 and m.representation and m.consensus_strength for m in measures)
    client.login(username="admin", password="demo-pass-2026")
    page = client.get(reverse("generation:run_detail", args=[fusion.pk])).content.decode()
    first = measures[0]
    assert "TeamFusion measures per iteration" in page
    assert f"Mia: {first.ratings[0][1]} / {first.ratings[0][2]}" in page


def test_a_debate_that_dies_mid_round_resumes_where_it_stopped(celery_worker, demo, llm_stub):
    from generation.services.batches import run_retry

    llm_stub.configure(fail_after=10)  # the 11th call (step 2, round 2, Debater B) gets a 500, every time
    run = launch(llm_stub, ["E"]).runs[0]
    wait_for(all_finished(run.batch), worker=celery_worker)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "Call 10 (step 2, round 2, Debater B)" in run.error
    done = dict(run.turns.filter(error="").values_list("seq", "reply"))
    assert sorted(done) == list(range(10))

    llm_stub.reset()
    assert run_retry(run_id=run.pk, enqueue=run_advance_send)
    wait_for(all_finished(run.batch), worker=celery_worker)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert run.calls_total == run.turns.count() == 36
    assert {s: r for s, r in run.turns.filter(seq__lt=10).values_list("seq", "reply")} == done  # kept
    assert llm_stub.stats.requests == 26  # only the missing calls were sent
