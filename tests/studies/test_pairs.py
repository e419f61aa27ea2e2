"""A pairwise study: created from a single-text study, its units built from every two released
responses to the same prompt (A and B at random, each pair once), its agreement decided by the
side of the preference scale each rater chose."""

import copy
import json
from itertools import combinations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from calibration.selectors.agreement_state import ResponseState, SheetState, response_evaluate
from calibration.selectors.responses import response_history
from generation.services.batches import BatchError, batch_create
from generation.tasks import run_advance_send
from research.bradley_terry import Comparison, comparison_groups, pair_outcome
from studies.models import AuditEvent, Response, ResponsePair, Scenario, Study
from studies.rubric import load_rubric
from studies.rubric.loader import parse_rubric, rubric_data
from studies.services.pairs import PairsError, pairs_build
from studies.services.studies import StudySetupError, study_create
from tests.factories import ModelEndpointFactory, UserFactory, text_response, text_study

pytestmark = pytest.mark.django_db


def source_with_three_systems():
    source = text_study("Sleep answers")
    texts = ["Keep the room dark.", "Read a paper book.", "Avoid coffee after noon."]
    responses = [
        text_response(study=source, text=t, model=ModelEndpointFactory(model_number=f"7{n}"))
        for n, t in enumerate(texts)
    ]
    return source, responses


def test_a_pairwise_study_needs_a_single_text_source():
    source, _ = source_with_three_systems()
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    assert (study.rubric_version, study.pairs_from) == ("pairwise-preference-v1", source)
    with pytest.raises(StudySetupError, match="choose that study"):
        study_create(name="No source", template="empty", task_kind="pair")
    cgpst = study_create(name="Six steps", template="empty")
    with pytest.raises(StudySetupError, match="not a single-text study"):
        study_create(name="Bad source", template="empty", task_kind="pair", pairs_from=cgpst)
    with pytest.raises(StudySetupError, match="Only a pairwise study"):
        study_create(name="Text with source", template="empty", task_kind="text", pairs_from=source)
    assert not Study.objects.filter(name__in=["No source", "Bad source", "Text with source"]).exists()


def test_pairs_are_built_once_each_from_released_responses():
    source, responses = source_with_three_systems()
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    report = pairs_build(study=study, actor=None)
    assert len(report.created) == 3 and report.existing == 0  # three systems: three pairs
    units = Response.objects.filter(study=study).select_related("pair", "scenario")
    assert units.count() == 3
    for unit in units:
        left, right = unit.pair.left, unit.pair.right
        assert {left.pk, right.pk} <= {r.pk for r in responses} and left.pk != right.pk
        assert unit.answers[:2] == [left.step1, right.step1] and unit.answers[2:] == ["", "", "", ""]
        assert unit.research_id == (
            f"{left.condition.letter}{left.model.model_number}v"
            f"{right.condition.letter}{right.model.model_number}_{left.scenario.code}"
        )
        assert unit.scenario.study == study and unit.scenario.text == left.scenario.text
        assert unit.source == "paired" and not unit.held and unit.is_pair
    pairs = {frozenset((p.left_id, p.right_id)) for p in ResponsePair.objects.all()}
    assert len(pairs) == 3
    event = AuditEvent.objects.get(action="pairs.build")
    assert sorted(event.changes["created"]) == sorted(report.created)
    with pytest.raises(PairsError, match="3 built before"):
        pairs_build(study=study, actor=None)
    # a fourth system's response: only its three new pairs are built
    text_response(study=source, text="Breathe slowly.", model=ModelEndpointFactory(model_number="79"))
    assert len(pairs_build(study=study, actor=None).created) == 3
    assert Scenario.objects.filter(study=study).count() == 1


def source_with_systems(n: int):
    source = text_study("Many systems")
    for k in range(n):
        text_response(study=source, text=f"Answer {k}.", model=ModelEndpointFactory(model_number=f"{50 + k}"))
    return source


def linked_groups(study) -> dict[str, int]:
    pairs = ResponsePair.objects.filter(response__study=study).select_related("left__model", "right__model")
    return comparison_groups(
        [
            Comparison(left=p.left.model.model_number, right=p.right.model.model_number, outcome=1.0)
            for p in pairs
        ]
    )


@pytest.mark.parametrize("attempt", range(5))  # the sample is drawn at random: several draws
def test_a_sample_of_pairs_links_every_system_first(attempt):
    source = source_with_systems(6)  # 15 pairs in all
    study = study_create(name="Sampled", template="empty", task_kind="pair", pairs_from=source)
    report = pairs_build(study=study, actor=None, per_prompt=5)  # n - 1: just enough to link six
    assert len(report.created) == 5 and report.left_out == 10
    groups = linked_groups(study)
    assert len(groups) == 6 and set(groups.values()) == {1}
    # a larger sample adds to it; the pairs built before count towards the number
    again = pairs_build(study=study, actor=None, per_prompt=8)
    assert (len(again.created), again.existing, again.left_out) == (3, 5, 7)
    assert ResponsePair.objects.filter(response__study=study).count() == 8
    assert AuditEvent.objects.filter(action="pairs.build").order_by("pk").last().changes["per_prompt"] == 8
    # every pair at last: only the ones not built yet
    assert len(pairs_build(study=study, actor=None).created) == 7
    assert {frozenset((p.left_id, p.right_id)) for p in ResponsePair.objects.all()} == {
        frozenset(pair)
        for pair in combinations(Response.objects.filter(study=source).values_list("pk", flat=True), 2)
    }


@pytest.mark.parametrize("attempt", range(8))  # drawn at random: several draws
def test_a_small_sample_grown_later_still_links_every_system(attempt):
    source = source_with_systems(5)
    study = study_create(name="Grown", template="empty", task_kind="pair", pairs_from=source)
    pairs_build(study=study, actor=None, per_prompt=2)
    assert ResponsePair.objects.filter(response__study=study).count() == 2
    pairs_build(study=study, actor=None, per_prompt=4)  # the two new pairs join what the first left apart
    assert set(linked_groups(study).values()) == {1} and len(linked_groups(study)) == 5
    with pytest.raises(PairsError, match="at least one pair"):
        pairs_build(study=study, actor=None, per_prompt=0)


def test_the_sample_size_is_checked_on_the_page(client):
    source = source_with_systems(4)
    study = study_create(name="Sampled on the page", template="empty", task_kind="pair", pairs_from=source)
    client.force_login(UserFactory(username="boss", role="Admin"))
    assert 'name="per_prompt"' in client.get(reverse("studies:study", args=[study.pk])).content.decode()
    url = reverse("studies:pairs_build", args=[study.pk])
    for bad in ("0", "abc", "9" * 30, "-3"):
        reply = client.post(url, {"per_prompt": bad}, follow=True)
        assert reply.status_code == 200 and "Pairs a prompt:" in reply.content.decode()
    assert not ResponsePair.objects.exists()
    page = client.post(url, {"per_prompt": "3"}, follow=True).content.decode()
    assert "3 pairs built." in page and "3 more pairs are left out of the sample." in page
    assert ResponsePair.objects.count() == 3


def test_held_or_withdrawn_source_responses_are_not_paired():
    source, responses = source_with_three_systems()
    Response.objects.filter(pk=responses[0].pk).update(held=True)
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    assert len(pairs_build(study=study, actor=None).created) == 1
    unit = Response.objects.get(study=study)
    assert responses[0].pk not in (unit.pair.left_id, unit.pair.right_id)


def test_a_pairwise_study_generates_nothing_and_a_text_study_builds_no_pairs():
    source, _ = source_with_three_systems()
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    with pytest.raises(BatchError, match="generates nothing"):
        batch_create(study=study, scenarios=[], endpoints=[], conditions=[], enqueue=run_advance_send)
    with pytest.raises(PairsError, match="Only a pairwise study"):
        pairs_build(study=source, actor=None)


def _state(a: int, b: int, calibrator: int | None = None) -> ResponseState:
    def sheet(value: int, role: str) -> SheetState:
        totals = {"dimensions": {"s1.preference": value}, "overall": value}
        return SheetState(
            assignment_id=value, rater_id=value, role=role, group_id=1, sheet_id=value, status="submitted",
            version=1, totals=totals,
        )  # fmt: skip

    return ResponseState(
        response_id=1,
        research_id="B70vB71_P1",
        scenario_id=1,
        condition_id=1,
        status="scoring",
        slots={"a": sheet(a, "primary"), "b": sheet(b, "primary")},
        n_primary=2,
        calibration=sheet(calibrator, "calibration") if calibrator is not None else None,
    )


@pytest.mark.parametrize(
    ("a", "b", "flagged"),
    [(1, 2, False), (4, 5, False), (3, 3, False), (2, 4, True), (3, 4, True), (1, 5, True)],
)
def test_a_preference_pair_agrees_when_both_pick_the_same_side(a, b, flagged):
    rubric = load_rubric("pairwise-preference-v1")
    evaluation = response_evaluate(
        state=_state(a, b), threshold=0.65, rule="calibrator_and_closer", rubric=rubric
    )
    assert evaluation.flagged is flagged
    assert evaluation.before.r is None and evaluation.before.reason == "one score: no PCC"
    assert evaluation.flag_reasons == (("side",) if flagged else ())


def forced_choice_rubric():
    """The shipped preference on four levels, no middle: a lab's forced-choice rubric (no tie)."""
    data = copy.deepcopy(rubric_data("pairwise-preference-v1"))
    data["version"], data["max_total"] = "forced-choice-v1", 4
    step = data["steps"][0]
    step["max"] = 4
    [dimension] = step["dimensions"]
    dimension["max"] = 4
    dimension["levels"] = [level for level in dimension["levels"] if level["score"] != 3]
    for level in dimension["levels"]:
        level["score"] = level["score"] if level["score"] < 3 else level["score"] - 1
    step["comment"] = {"label": step["comment"]["label"], "required": True}
    return parse_rubric(data)


@pytest.mark.parametrize(("a", "b", "flagged"), [(1, 2, False), (3, 4, False), (2, 3, True), (1, 4, True)])
def test_a_forced_choice_has_no_middle_to_agree_on(a, b, flagged):
    rubric = forced_choice_rubric()
    assert [level.score for level in rubric.dimensions[0].levels] == [1, 2, 3, 4]
    evaluation = response_evaluate(
        state=_state(a, b), threshold=0.65, rule="calibrator_and_closer", rubric=rubric
    )
    assert evaluation.flagged is flagged and evaluation.flag_reasons == (("side",) if flagged else ())
    # Bradley-Terry: every level is a win for one side; only a mean on the middle is half each
    assert {pair_outcome(preference=v, low=1, high=4) for v in (a, b)} <= {0.0, 1.0}
    assert pair_outcome(preference=2.5, low=1, high=4) == 0.5


def test_the_calibrator_joins_the_rater_on_their_side():
    rubric = load_rubric("pairwise-preference-v1")
    evaluation = response_evaluate(
        state=_state(1, 4, calibrator=2), threshold=0.65, rule="calibrator_and_closer", rubric=rubric
    )
    assert evaluation.calibrated and evaluation.closeness.slot == "a"
    assert evaluation.closeness.by == "mean absolute difference"


def test_a_pairwise_study_imports_no_responses(tmp_path, client):
    source, _ = source_with_three_systems()
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    record = {"research_id": "B70_P1", "scenario": "P1", "model": "70", "condition": "B", "text": "Hi."}
    path = tmp_path / "texts.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(CommandError, match="import them there"):
        call_command("import_responses", str(path), "--study", study.name)
    client.force_login(UserFactory(username="boss", role="Admin"))
    with path.open("rb") as upload:
        page = client.post(reverse("studies:responses_import", args=[study.pk]), {"file": upload})
    assert page.status_code == 400 and "Sleep answers: import them there" in page.content.decode()
    assert not Response.objects.filter(study=study).exists()


def test_an_admin_makes_a_pairwise_study_and_builds_its_pairs_on_the_pages(client):
    source, _ = source_with_three_systems()
    client.force_login(UserFactory(username="boss", role="Admin"))
    form = client.get(reverse("studies:studies")).content.decode()
    assert f'<option value="{source.pk}">Sleep answers</option>' in form
    reply = client.post(
        reverse("studies:studies"),
        {"name": "Sleep preferences", "template": "empty", "task_kind": "pair", "pairs_from": source.pk},
    )
    study = Study.objects.get(name="Sleep preferences")
    assert reply.status_code == 302 and study.pairs_from == source
    page = client.get(reply.url).content.decode()
    assert (
        "pairs from Sleep answers" in page and 'id="pairs-build"' in page and "Generate responses" not in page
    )
    built = client.post(reverse("studies:pairs_build", args=[study.pk]), follow=True)
    assert "3 pairs built." in built.content.decode()
    again = client.post(reverse("studies:pairs_build", args=[study.pk]), follow=True)
    assert "No new pair: 3 built before" in again.content.decode()
    assert Response.objects.filter(study=study).count() == 3
    client.force_login(UserFactory(username="reader", role="Researcher"))
    assert client.post(reverse("studies:pairs_build", args=[study.pk])).status_code == 403
    assert client.get(reverse("studies:pairs_build", args=[study.pk])).status_code in (403, 405)


def test_a_held_pair_shows_text_a_and_text_b_on_the_held_page(client):
    source, responses = source_with_three_systems()
    Response.objects.filter(pk=responses[0].pk).update(step1="As the Environmentalist, keep the room dark.")
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    report = pairs_build(study=study, actor=None)
    assert len(report.held) == 2  # both pairs with the text that names a role
    client.force_login(UserFactory(username="boss", role="Admin"))
    page = client.get(f"/manage/responses/held/?study={study.pk}").content.decode()
    assert page.count("<h4>Text A</h4>") == 2 and page.count("<h4>Text B</h4>") == 2
    assert "<h4>Step 3</h4>" not in page and 'data-term="Environmentalist"' in page
    # each reason says which of the two texts names the role: A or B as the pair was drawn
    for unit in ResponsePair.objects.filter(response__study=study, response__held=True):
        named = "Text A" if unit.left_id == responses[0].pk else "Text B"
        other = "Text B" if named == "Text A" else "Text A"
        card = page.split(f'id="held-{unit.response_id}"')[1].split("</article>")[0]
        assert f"{named} names “Environmentalist”" in card and f"{other} names" not in card
        assert "Step 1 names" not in card and "Step 2 names" not in card
        client.post(reverse("studies:response_redact", args=[unit.response_id]), {"study": study.pk})
        history = [e["detail"] for e in response_history(response=unit.response)]
        assert f"“Environmentalist” redacted in {named}." in history


def test_the_api_gives_a_pairs_two_texts_and_their_sources(client):
    source, _ = source_with_three_systems()
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    pairs_build(study=study, actor=None)
    client.force_login(UserFactory(username="reader", role="Researcher"))
    rows = client.get(f"/api/v1/studies/{study.pk}/responses").json()
    assert len(rows) == 3
    for row in rows:
        unit = ResponsePair.objects.select_related("left", "right").get(response_id=row["id"])
        assert (row["text_a"], row["text_b"]) == (unit.left.step1, unit.right.step1)
        assert row["pair"] == {"a": unit.left.research_id, "b": unit.right.research_id}
        assert row["steps"] is None and "text" not in row
