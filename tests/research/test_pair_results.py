"""A pairwise study's results: each pair's final preference is a comparison of its two systems, and
the research page, the results workbook and the API give their Bradley-Terry scores with intervals,
computed by ``research.bradley_terry`` from the same comparisons."""

import io

import openpyxl
import pytest
from django.test import Client

from calibration.models import FinalScore
from calibration.services.calibration import study_agreement_recompute
from research.bradley_terry import Comparison, bradley_terry_scores
from research.models import KIND_RESULTS
from research.services.exports import export_job_create, export_job_run
from studies.models import Response, Scenario
from studies.services.pairs import pairs_build
from studies.services.studies import study_create
from tests.factories import (
    ModelEndpointFactory,
    ScenarioFactory,
    UserFactory,
    rater,
    scoring_group_assigned,
    sheet_submitted,
    text_response,
    text_study,
)

pytestmark = pytest.mark.django_db


def submitted(user, response, preference):
    """A preference with its reason, submitted through the services."""
    changes = [("dims.s1.preference", preference), ("comments.1", "One text answers the question.")]
    return sheet_submitted(user, response, changes, texts=[])


@pytest.fixture
def scored_pairs():
    """Three systems on one prompt, all three pairs scored by one agreeing rater pair: the text of
    model 71 is preferred whenever it is shown, 70 beats 72."""
    source = text_study("Sleep answers")
    texts = {"70": "Keep the room dark.", "71": "A full, careful plan for better sleep.", "72": "Sleep."}
    for number, text in texts.items():
        text_response(study=source, text=text, model=ModelEndpointFactory(model_number=number))
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    pairs_build(study=study, actor=None)
    units = list(
        Response.objects.filter(study=study).select_related("pair__left__model", "pair__right__model")
    )
    a, b = rater("pa", "H41"), rater("pb", "H42")
    scoring_group_assigned(responses=units, rater_a=a, rater_b=b)
    rank = {"71": 0, "70": 1, "72": 2}
    for unit in units:
        left_better = rank[unit.pair.left.model.model_number] < rank[unit.pair.right.model.model_number]
        submitted(a, unit, 1 if left_better else 5)
        submitted(b, unit, 2 if left_better else 4)
    study_agreement_recompute(study_id=study.pk)
    researcher = UserFactory(username="pair-researcher", role="Researcher")
    return study, units, researcher


def test_each_pair_agrees_and_the_preferred_system_ranks_first(scored_pairs):
    study, units, researcher = scored_pairs
    finals = FinalScore.objects.filter(response__study=study)
    assert finals.count() == 3 and not any(f.calibrated for f in finals)  # same side: no calibration
    expected = bradley_terry_scores(
        comparisons=[
            Comparison(
                left=f"{u.pair.left.condition.letter}{u.pair.left.model.model_number}",
                right=f"{u.pair.right.condition.letter}{u.pair.right.model.model_number}",
                outcome=1.0 if u.final_score.overall < 3 else 0.0,
            )
            for u in Response.objects.filter(study=study).select_related(
                "final_score", "pair__left", "pair__right"
            )
        ]
    )
    assert [p.system[-2:] for p in expected] == ["71", "70", "72"]
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/research/?study={study.pk}").content.decode()
    assert 'id="preferences"' in page and 'id="preference-groups"' not in page  # one group
    shown = [row.split('"')[0] for row in page.split('data-system="')[1:]]
    assert shown == [p.system for p in expected]
    assert f"{expected[0].score:.0f}" in page and f"{expected[0].low:.0f}–{expected[0].high:.0f}" in page
    api = client.get(f"/api/v1/studies/{study.pk}/tables/preferences").json()
    assert [row["system"] for row in api["data"]] == [p.system for p in expected]
    assert api["data"][0]["score"] == pytest.approx(expected[0].score)
    assert "Single model" in api["labels"][expected[0].system]


def test_the_results_workbook_has_the_preferences_sheet(scored_pairs):
    study, _, researcher = scored_pairs
    job = export_job_run(
        job_id=export_job_create(kind=KIND_RESULTS, params={"study_id": study.pk}, user=researcher).pk
    )
    book = openpyxl.load_workbook(io.BytesIO(job.file.read()))
    sheet = book["Preferences (Bradley-Terry)"]
    rows = [r for r in sheet.iter_rows(values_only=True) if r and r[0]]
    assert rows[0][:3] == ("System", "Model · condition", "Score")
    assert [r[0][-2:] for r in rows[1:4]] == ["71", "70", "72"]


def test_systems_no_pair_links_are_shown_in_groups_of_their_own():
    """Two prompts answered by different systems: the pairs of one never meet the other's, so the
    page, the workbook and the API say the scores compare only within each group."""
    source = text_study("Two islands")
    other_prompt = ScenarioFactory(study=source, theme="Diet", text="What is a good breakfast?")
    first_prompt = Scenario.objects.filter(study=source).order_by("pk").first()
    for number, prompt in (
        ("70", first_prompt),
        ("71", first_prompt),
        ("72", other_prompt),
        ("73", other_prompt),
    ):
        text_response(
            study=source,
            text=f"Text of {number}.",
            model=ModelEndpointFactory(model_number=number),
            scenario=prompt,
        )
    study = study_create(name="Island preferences", template="empty", task_kind="pair", pairs_from=source)
    pairs_build(study=study, actor=None)
    units = list(Response.objects.filter(study=study))
    assert len(units) == 2
    a, b = rater("ia", "H51"), rater("ib", "H52")
    scoring_group_assigned(responses=units, rater_a=a, rater_b=b)
    for unit in units:
        submitted(a, unit, 1)
        submitted(b, unit, 2)
    study_agreement_recompute(study_id=study.pk)
    client = Client()
    researcher = UserFactory(username="island-researcher", role="Researcher")
    client.force_login(researcher)
    api = client.get(f"/api/v1/studies/{study.pk}/tables/preferences").json()
    groups = {row["system"][-2:]: row["group"] for row in api["data"]}
    assert groups == {"70": 1, "71": 1, "72": 2, "73": 2}
    page = client.get(f"/research/?study={study.pk}").content.decode()
    assert 'id="preference-groups"' in page and "2 separate groups" in page
    job = export_job_run(
        job_id=export_job_create(kind=KIND_RESULTS, params={"study_id": study.pk}, user=researcher).pk
    )
    sheet = openpyxl.load_workbook(io.BytesIO(job.file.read()))["Preferences (Bradley-Terry)"]
    rows = [r for r in sheet.iter_rows(values_only=True) if r and r[0]]
    assert rows[0][9] == "Group"
    assert {r[0][-2:]: r[9] for r in rows[1:5]} == groups


def test_other_studies_have_no_preferences(scored_pairs):
    _, _, researcher = scored_pairs
    other = text_study("Plain texts")
    client = Client()
    client.force_login(researcher)
    assert client.get(f"/api/v1/studies/{other.pk}/tables/preferences").status_code == 404
    assert 'id="preferences"' not in client.get(f"/research/?study={other.pk}").content.decode()
