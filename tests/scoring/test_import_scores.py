"""manage.py import_scores: data_A.json scores become submitted sheets, agreement follows."""

import copy
import json

import pytest
from django.core.management import CommandError, call_command

from calibration.models import FinalScore, ResponseAgreement
from scoring.models import Assignment, RaterProfile, ScoreSheet, ScoringGroup, SheetEvent
from studies.models import Response
from tests.factories import rater


def _write(tmp_path, data, name="scores.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_a05_fs10_gives_the_papers_pcc_totals_and_final_score(demo, data_a, tmp_path):
    call_command("import_scores", str(_write(tmp_path, data_a)))
    response = Response.objects.get(research_id="A05_FS10")
    sheets = {
        s.assignment.rater.rater_profile.rater_code: s
        for s in ScoreSheet.objects.filter(assignment__response=response).select_related("assignment__rater")
    }
    assert {code: s.overall for code, s in sheets.items()} == {"H01": 116, "H02": 117}
    assert sheets["H01"].totals["steps"] == {"1": 24, "2": 22, "3": 30, "4": 11, "5": 4, "6": 25}
    assert sheets["H02"].totals["steps"] == {"1": 28, "2": 22, "3": 32, "4": 13, "5": 4, "6": 18}
    assert all(s.is_submitted and s.source == "import" for s in sheets.values())
    agreement = ResponseAgreement.objects.get(response=response)
    assert round(agreement.pcc, 3) == 0.863
    assert agreement.p_value < 0.001
    assert agreement.flagged is False
    final = FinalScore.objects.get(response=response)
    assert str(final.overall) == "116.50"
    assert final.rule == "mean_of_pair" and not final.calibrated
    assert set(final.sheets.values_list("pk", flat=True)) == {s.pk for s in sheets.values()}
    group = ScoringGroup.objects.get(study=response.study, scenario=response.scenario)
    assert {group.rater_a.rater_profile.rater_code, group.rater_b.rater_profile.rater_code} == {"H01", "H02"}
    assert Assignment.objects.filter(response=response, group=group).count() == 2
    notes = SheetEvent.objects.filter(sheet__in=sheets.values(), kind="submit").values_list("note", flat=True)
    assert all("Imported from scores.json" in n for n in notes)


def test_reimport_is_a_no_op(demo, data_a, tmp_path, capsys):
    path = _write(tmp_path, data_a)
    call_command("import_scores", str(path))
    call_command("import_scores", str(path))
    assert "2 already present with the same scores" in capsys.readouterr().out
    assert ScoreSheet.objects.count() == 2


def test_reimport_with_other_scores_is_a_duplicate_error(demo, data_a, tmp_path):
    call_command("import_scores", str(_write(tmp_path, data_a)))
    changed = copy.deepcopy(data_a)
    step6 = changed[0][3]["Step-6"][0]
    step6["Development"] -= 1
    step6["Overall"] -= 1
    changed[0][3]["Total Score"] -= 1
    with pytest.raises(CommandError, match="different scores already exists"):
        call_command("import_scores", str(_write(tmp_path, changed, "other.json")))
    assert ScoreSheet.objects.get(assignment__rater__rater_profile__rater_code="H01").overall == 116


def test_summary_mismatches_are_all_reported_and_nothing_is_imported(demo, data_a, tmp_path):
    wrong = copy.deepcopy(data_a)
    wrong[0][3]["Total Score"] = 120
    wrong[0][4]["Step-6"][0]["Overall"] = 20
    groups_before = ScoringGroup.objects.count()
    with pytest.raises(CommandError) as excinfo:
        call_command("import_scores", str(_write(tmp_path, wrong)))
    message = str(excinfo.value)
    assert "rater H01: total: the file says 120, the scores add up to 116" in message
    assert "rater H02: Step 6: the file says 20, the scores add up to 18" in message
    assert ScoreSheet.objects.count() == 0
    assert ScoringGroup.objects.count() == groups_before


def test_rater_ids_are_mapped_or_created(demo, data_a, tmp_path):
    mapped = rater("expert-one")
    # a fresh study: the demo study already has the pair rater1 + rater2 on A05_FS10
    call_command(
        "import_scores",
        str(_write(tmp_path, data_a)),
        "--study",
        "Mapped",
        "--create-missing",
        "--rater",
        "H01=expert-one",
    )
    raters = set(
        Assignment.objects.filter(response__study__name="Mapped").values_list("rater__username", flat=True)
    )
    assert raters == {"expert-one", "rater2"}  # H02 is the demo's rater2
    assert mapped.assignments.get().sheet.overall == 116


def test_unknown_raters_are_created_as_raters(db, data_a, tmp_path):
    from studies.services.setup import conditions_ensure_defaults

    conditions_ensure_defaults()
    call_command("import_scores", str(_write(tmp_path, data_a)), "--study", "Imported", "--create-missing")
    codes = set(RaterProfile.objects.values_list("rater_code", flat=True))
    assert codes == {"H01", "H02"}
    profile = RaterProfile.objects.get(rater_code="H01")
    assert profile.user.groups.filter(name="Rater").exists()
    assert not profile.user.has_usable_password()
    response = Response.objects.get(research_id="A05_FS10")
    assert response.source == "imported"
    assert str(response.final_score.overall) == "116.50"


def test_missing_response_without_create_missing_is_an_error(db, data_a, tmp_path):
    from tests.factories import StudyFactory

    StudyFactory(name="Empty")
    with pytest.raises(CommandError, match="no response A05_FS10"):
        call_command("import_scores", str(_write(tmp_path, data_a)), "--study", "Empty")
    assert not Response.objects.exists()


def test_malformed_file_changes_nothing(demo, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("[1, 2", encoding="utf-8")
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("import_scores", str(path))
    with pytest.raises(CommandError, match="Step-1.*missing or not a list"):
        call_command("import_scores", str(_write(tmp_path, [["A05_FS10", ["H01"], "FS10", {}, {}]])))
    assert ScoreSheet.objects.count() == 0


@pytest.mark.parametrize("username", ["admin", "researcher", "judge-stub-cgpst-judge-v1"])
def test_sheets_are_never_imported_for_an_account_that_is_not_a_rater(
    demo, data_a, tmp_path, client, username
):
    """The tester's exploit: an admin mapped H02 to itself (or to a researcher) and got a
    submitted sheet under an unblinded account. Refused by the command and the page."""
    path = _write(tmp_path, data_a)
    with pytest.raises(CommandError, match="is not a rater"):
        call_command("import_scores", str(path), "--rater", "H01=rater1", "--rater", f"H02={username}")
    assert not ScoreSheet.objects.exists()

    client.login(username="admin", password="demo-pass-2026")
    study = Response.objects.get(research_id="A05_FS10").study
    with path.open("rb") as upload:
        reply = client.post(
            f"/manage/studies/{study.pk}/scores/import/",
            {"file": upload, "raters": f"H01=rater1\nH02={username}", "create_missing": "on"},
        )
    assert reply.status_code == 400 and "is not a rater" in reply.content.decode()
    assert not ScoreSheet.objects.exists()


def test_the_scores_of_a_held_response_are_refused(demo, data_a, tmp_path):
    """Hostile pass 21: a held response's imported pair could disagree and route it to a third
    rater, who would read the text the review gate holds back. Its scores wait for its release."""
    Response.objects.filter(research_id="A05_FS10").update(held=True)  # the review gate held it
    with pytest.raises(CommandError) as raised:
        call_command("import_scores", str(_write(tmp_path, data_a)))
    assert "response A05_FS10 is held for review: release or withdraw it" in str(raised.value)
    assert not ScoreSheet.objects.exists() and not FinalScore.objects.exists()
    # withdrawn (it stays held for good): said so, not "release or withdraw it" (hostile pass 25)
    status = Response.objects.get(research_id="A05_FS10").status
    Response.objects.filter(research_id="A05_FS10").update(status="withdrawn")
    with pytest.raises(CommandError) as raised:
        call_command("import_scores", str(_write(tmp_path, data_a)))
    assert "response A05_FS10 was withdrawn from the study" in str(raised.value)
    assert "release or withdraw" not in str(raised.value) and not ScoreSheet.objects.exists()
    Response.objects.filter(research_id="A05_FS10").update(held=False, status=status)  # released
    call_command("import_scores", str(_write(tmp_path, data_a)))
    assert ScoreSheet.objects.filter(status="submitted").count() == 2
