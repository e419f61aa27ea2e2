"""A study's training set: gold copies that are never live, with a reference sheet."""

import pytest
from django.contrib.auth import get_user_model

from calibration.models import FinalScore, ResponseAgreement
from calibration.statistics import pcc
from core.models import TaskOutbox
from research.selectors.results import raw_score_rows_count, raw_score_rows_iter
from scoring.models import Assignment, ScoreSheet
from scoring.selectors import rater_queue
from scoring.selectors.workload import workload_board
from scoring.services.assignments import study_sync_assignments
from studies.models import AuditEvent, Response, ResponseItem, ResponseStatus
from studies.rubric import load_rubric
from tests.factories import mirrored_changes, rater, reference_changes, sheet_submitted
from training.feedback import normalized, sheet_feedback
from training.models import TrainingResponse
from training.services.training_set import TrainingError, training_enroll, training_response_add

pytestmark = pytest.mark.django_db


def test_the_default_training_set_is_a_copy_of_a05_fs10_with_the_mean_of_h01_and_h02(gold):
    source = Response.objects.get(research_id="A05_FS10")
    copy = gold.response
    assert copy.pk != source.pk and copy.blind_code != source.blind_code
    assert copy.status == ResponseStatus.WITHDRAWN  # never live
    assert copy.answers == source.answers and copy.scenario_id == source.scenario_id
    assert list(ResponseItem.objects.filter(response=copy).values_list("step", "position", "text")) == list(
        ResponseItem.objects.filter(response=source).values_list("step", "position", "text")
    )
    assert gold.reference["overall"] == 116.5  # (116 + 117) / 2, as the study's final score
    assert gold.reference["steps"] == {"1": 26.0, "2": 22.0, "3": 31.0, "4": 12.0, "5": 4.0, "6": 21.5}
    assert gold.reference_note == "mean of H01, H02"
    assert sorted(s.assignment.rater.username for s in gold.reference_sheets.all()) == ["rater1", "rater2"]


def test_a_gold_response_with_a_sheet_of_the_admins_choice(scored_demo):
    admin = get_user_model().objects.get(username="admin")
    training = training_response_add(
        study=scored_demo.study, research_id="A05_FS10", rater_codes=["H02"], actor=admin
    )
    assert training.reference["overall"] == 117 and training.reference_note == "mean of H02"
    # audited: who made which copy of what, with which reference (issue 36, pass 5, B3)
    (event,) = AuditEvent.objects.filter(action="training.gold_add")
    assert event.actor == admin and event.study == scored_demo.study
    assert event.target.endswith(str(training.response.pk))
    assert event.changes == {"source": "A05_FS10", "reference": "mean of H02"}


@pytest.mark.parametrize(
    ("research_id", "codes", "message"),
    [
        ("A05_FS10", [], "has no submitted sheet to serve as the reference"),  # nothing scored yet
        ("A05_FS10", ["H07"], "No submitted sheet of H07"),
        ("Z99_FS10", [], "The study has no response Z99_FS10"),
    ],
)
def test_a_training_response_without_a_reference_sheet_is_refused_and_changes_nothing(
    demo, research_id, codes, message
):
    responses = Response.objects.count()
    with pytest.raises(TrainingError) as caught:
        training_response_add(study=demo.study, research_id=research_id, rater_codes=codes)
    assert message in caught.value.message
    assert Response.objects.count() == responses and not TrainingResponse.objects.exists()


def test_training_sheets_never_reach_queue_agreement_final_scores_or_live_assignment(gold):
    study = gold.study
    trainee = rater("trainee", "H09")
    training_enroll(rater=trainee, study=study)
    outbox = TaskOutbox.objects.count()
    sheet_submitted(trainee, gold.response, reference_changes(3), role="training")
    assert TaskOutbox.objects.count() == outbox  # no agreement recompute was queued
    assert not ResponseAgreement.objects.filter(response=gold.response).exists()
    assert not FinalScore.objects.filter(response=gold.response).exists()
    assert rater_queue(user=trainee) == []  # training has its own page
    assert all(r["username"] != "trainee" for r in workload_board(study=study).raters)
    # "assign responses added later" never hands the copy to the live pair
    study_sync_assignments(study=study)
    assert not Assignment.objects.filter(response=gold.response).exclude(role="training").exists()
    # the live response keeps its own agreement and final score
    assert FinalScore.objects.get(response__research_id="A05_FS10").overall == 116.5
    # research output: the raw long table has the two experts' sheets, never the trainee's
    rows = list(raw_score_rows_iter(study=study))
    assert raw_score_rows_count(study=study) == 2 and rows
    assert all(gold.response.blind_code not in row and "H09" not in row for row in rows)


def test_feedback_compares_with_the_reference_and_ranks_the_dimensions_missed_most(gold):
    rubric = load_rubric()
    h01 = ScoreSheet.objects.get(
        assignment__rater__username="rater1", assignment__response__research_id="A05_FS10"
    )
    feedback = sheet_feedback(totals=h01.totals, reference=gold.reference, rubric=rubric, threshold=0.65)
    expected = pcc(
        normalized(h01.totals["dimensions"], rubric), normalized(gold.reference["dimensions"], rubric)
    )
    assert feedback.pcc == pytest.approx(expected.r) and feedback.passed
    assert feedback.overall == (116.0, 116.5)
    gaps = {g.spec.key: g.difference for g in feedback.dimensions}
    assert (
        gaps["s6.humaneness"]
        == h01.totals["dimensions"]["s6.humaneness"] - gold.reference["dimensions"]["s6.humaneness"]
    )
    ranked = [g.relative for g in feedback.missed_most]
    assert ranked == sorted(ranked, reverse=True) and len(ranked) == 3
    assert max(g.relative for g in feedback.dimensions) == ranked[0]


def test_a_disagreeing_sheet_fails(gold):
    rubric = load_rubric()
    trainee = rater("trainee", "H09")
    training_enroll(rater=trainee, study=gold.study)
    sheet = sheet_submitted(
        trainee, gold.response, mirrored_changes(reference_changes(3), rubric), role="training"
    )
    feedback = sheet_feedback(totals=sheet.totals, reference=gold.reference, rubric=rubric, threshold=0.65)
    assert feedback.pcc is not None and feedback.pcc < 0.65 and not feedback.passed


def test_the_reference_is_named_in_the_readers_language(client, gold):
    """The note is stored in English ("mean of H01, H02"); the training page says it in Chinese."""
    from django.utils import translation

    with translation.override("zh-hans"):
        again = training_response_add(study=gold.study, research_id="A05_FS10", rater_codes=["H02"])
    assert again.reference_note == "mean of H02"  # stored as in English, whoever added it
    client.force_login(get_user_model().objects.get(username="admin"))
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    page = client.get("/manage/training/", {"study": gold.study_id}).content.decode()
    assert "H01, H02 的平均值" in page and "H02 的平均值" in page and "mean of" not in page


def test_a_held_response_cannot_be_marked_as_gold(scored_demo):
    """Hostile pass 21 (M3): a held response's text (its research ID in it) reached a trainee
    through "Mark as gold"; the held response stays out of the training set until released."""
    from studies.models import Response
    from training.models import TrainingResponse
    from training.services.training_set import TrainingError, training_response_add

    source = Response.objects.get(study=scored_demo.study, research_id="A05_FS10")
    Response.objects.filter(pk=source.pk).update(held=True)
    with pytest.raises(TrainingError, match="held for review"):
        training_response_add(study=scored_demo.study, research_id="A05_FS10")
    assert not TrainingResponse.objects.exists()
    Response.objects.filter(pk=source.pk).update(held=False)
    copy = training_response_add(study=scored_demo.study, research_id="A05_FS10").response
    # a training copy is no source of gold, nor a response a score import may fill (pass 21, L2)
    with pytest.raises(TrainingError, match="has no response"):
        training_response_add(study=scored_demo.study, research_id=copy.research_id)


def test_a_long_reference_note_fits_its_column(scored_demo):
    from django.contrib.auth import get_user_model

    from scoring.models import RaterProfile
    from training.services.training_set import training_response_add

    for profile in RaterProfile.objects.filter(rater_code__in=["H01", "H02"]):
        user = profile.user
        profile.rater_code = None
        profile.save(update_fields=["rater_code"])
        get_user_model().objects.filter(pk=user.pk).update(username=(user.username + "x" * 150)[:150])
    gold = training_response_add(study=scored_demo.study, research_id="A05_FS10")
    assert len(gold.reference_note) == 200 and gold.reference_note.endswith("…")
