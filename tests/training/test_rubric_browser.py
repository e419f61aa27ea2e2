"""A rubric of the lab's own, in Chromium: imported on the study's page (a broken file first,
its problems listed), previewed, used; then a rater scores a response on it by keyboard, the
page's live totals are the server's, and the sheet is submitted (docs/admins.md)."""

import json

import pytest
import yaml
from django.contrib.auth import get_user_model

from scoring.models import ScoreSheet
from studies.models import Study
from studies.rubric import RUBRIC_DIR
from studies.services.studies import EMPTY, study_create
from tests.browser import login, open_sheet
from tests.factories import ConditionFactory, ScenarioFactory, code_for, make_response, scoring_group_assigned
from training.models import RubricRevision

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_brings_a_rubric_and_a_rater_scores_on_it(live_server, demo, browser, tmp_path):
    study = study_create(name="Lab study", template=EMPTY)
    document = json.loads((RUBRIC_DIR / "likert-hhh-v1.json").read_text(encoding="utf-8"))
    document.update(
        version="lab-likert-browser-v1", title={"en": "Our lab's sheet", "zh": "本实验室的评分表"}
    )
    broken = json.loads(json.dumps(document))
    broken["steps"][0]["max"] = 8
    broken["steps"][1]["dimensions"][0]["levels"][6]["zh"] = " "
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken, allow_unicode=True), encoding="utf-8")
    (tmp_path / "lab.yaml").write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")

    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "admin")
    page.goto(f"{live_server.url}/manage/studies/{study.pk}/")
    page.set_input_files("#rubric-file", str(tmp_path / "broken.yaml"))
    page.click("#rubric-import button[type=submit]")
    problems = page.locator("#rubric-problems li").all_text_contents()
    assert problems == [
        "step 1: dimension maxima add up to 7, not 8",
        "step 2 dimension s2.harmlessness level 7: needs a text in Chinese",
        "step maxima add up to 22, not max_total 21",
    ]
    assert not RubricRevision.objects.exists()

    page.set_input_files("input[name=file]", str(tmp_path / "lab.yaml"))
    page.click("text=Check and import")
    page.wait_for_selector("#preview-notice")
    assert "Our lab's sheet" in page.text_content("h1")
    assert page.locator("section.step").count() == 3
    page.check("#step-2 input[value='4']", force=True)  # the preview's controls answer, nothing is sent
    assert page.is_checked("#step-2 input[value='4']")
    page.click("#use-rubric button")
    page.wait_for_selector("text=The study now uses rubric lab-likert-browser-v1.")
    assert Study.objects.get(pk=study.pk).rubric_version == "lab-likert-browser-v1"
    context.close()

    users = get_user_model().objects
    response = make_response(study=study, scenario=ScenarioFactory(study=study), condition=ConditionFactory())
    scoring_group_assigned(
        responses=[response], rater_a=users.get(username="rater1"), rater_b=users.get(username="rater2")
    )
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", response))
    for key, value in (("s1.helpfulness", 6), ("s2.harmlessness", 7), ("s3.honesty", 3)):
        page.focus(f"input[name='dims.{key}'][value='1']")
        page.keyboard.press(str(value))
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    page.wait_for_selector("#summary[data-source=server]")
    shown = [page.text_content(f"#total-step-{n}") for n in (1, 2, 3)]
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater1")
    assert shown == [str(sheet.totals["steps"][n]) for n in ("1", "2", "3")] == ["6", "7", "3"]
    assert page.text_content("#total-overall") == "16" == str(sheet.overall)
    page.on("dialog", lambda dialog: dialog.accept())
    page.focus("#submit-sheet")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_selector("text=read-only")
    sheet.refresh_from_db()
    assert (sheet.status, sheet.overall, sheet.rubric_version) == ("submitted", 16, "lab-likert-browser-v1")
    context.close()
