"""The training sheet in a real browser: the same blind form saves and submits to the
training endpoints, then the feedback opens; the step guidelines unfold."""

import pytest

from scoring.models import Assignment, ScoreSheet
from scoring.services.sheets import sheet_apply_changes, sheet_open
from tests.browser import PASSWORD, login
from tests.factories import SHEET_TEXTS, code_for, rater, reference_changes
from training.services.training_set import training_enroll

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_trainee_submits_in_the_browser_and_lands_on_the_feedback(live_server, gold, browser):
    trainee = rater("trainee", "H09")
    trainee.set_password(PASSWORD)
    trainee.save()
    training_enroll(rater=trainee, study=gold.study)
    assignment = Assignment.objects.get(rater=trainee, role="training")
    changes = [c for c in reference_changes(4) if c[0] != "dims.s6.development"]  # H02's sheet but one value
    sheet = sheet_open(assignment=assignment, actor=trainee)
    sheet_apply_changes(
        sheet_id=sheet.pk, actor=trainee, changes=[*changes, *SHEET_TEXTS], expected_version=0
    )
    development = dict(reference_changes(4))["dims.s6.development"]
    code = assignment.blind_code

    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "trainee")
    page.goto(f"{live_server.url}/training/")
    page.click(f"a[href='/training/{code}/']")
    page.wait_for_selector("html[data-sheet-ready]")
    guideline = page.locator("#step-3 details.guidelines")
    assert not guideline.locator("p").first.is_visible()  # collapsed: the sheet stays compact
    guideline.locator("summary").click()
    assert "Only solutions that respond to the KVP" in guideline.locator("p").first.text_content()

    page.focus(f"input[name='dims.s6.development'][value='{development}']")
    page.keyboard.press("0" if development == 10 else str(development))
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    page.on("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation(url=f"**/training/{code}/feedback/"):
        page.click("#submit-sheet")
    assert "Passed" in page.text_content("#training-pcc")
    assert page.locator("#training-totals").text_content().count("116.5") == 1
    sheet = ScoreSheet.objects.get(pk=sheet.pk)
    assert sheet.status == "submitted" and sheet.overall == 117  # H02's own total
    context.close()


def test_a_new_rater_is_pointed_to_the_training_and_start_opens_the_sheet(live_server, gold, browser):
    trainee = rater("newcomer", "H10")
    trainee.set_password(PASSWORD)
    trainee.save()
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "newcomer")
    page.goto(f"{live_server.url}/scoring/")
    next_step = page.text_content("#next-step")
    assert "training" in next_step and gold.study.name in next_step
    assert "Nothing left in your queue" not in page.content()
    page.click("#go-training")
    with page.expect_navigation(url="**/training/*/"):
        page.click("text=Start training")  # straight to the first training sheet
    page.wait_for_selector("html[data-sheet-ready]")
    assert page.url.endswith(f"/training/{code_for('newcomer', gold.response)}/")
    context.close()
