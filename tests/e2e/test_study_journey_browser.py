"""Issue 11's whole journey in Chromium, on an empty database with the demo off and a
real Celery worker: an admin creates a study from the CGPST template, invites two raters
by CSV; both set their passwords through their links and train on the default gold sheet
(one fails first, sees why, scores again and passes); the admin assigns the pair to a live
response; both score and submit it; a researcher sees both on the drift page.

Two steps have no page and run as commands in the set-up, as an admin would at the shell:
``import_scores data_A.json`` (the default training copy needs the release's two expert
sheets) and ``import_responses`` of the live response B05_FS10."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from calibration.models import ResponseAgreement
from scoring.models import Assignment, ScoreSheet
from studies.models import Condition, Response, Scenario, Study
from studies.rubric import load_rubric
from tests.browser import login, sheet_fill_and_submit
from tests.factories import SHEET_TEXTS, UserFactory, code_for, mirrored_changes, reference_changes
from training.models import RaterQualification

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

CSV = (
    "username,name,email,language,roles,rater_code\n"
    "ada,Ada Byron,ada@lab.example.org,en,rater,H11\n"
    "ben,Ben Lee,ben@lab.example.org,en,rater,H12\n"
)
PASSWORDS = {"ada": "Coral-reef-2035", "ben": "Kelp-forest-2035"}
CLICKED = "dims.s6.development"  # scored by keyboard in the page; everything else through the save endpoint


def _score(page, changes) -> None:
    """Fill the open sheet (one value by keyboard) and submit it with the page's button."""
    sheet_fill_and_submit(page, [*changes, *SHEET_TEXTS], clicked=CLICKED)


def _train(page, base: str, changes) -> None:
    page.goto(f"{base}/training/")
    if page.locator("text=Start training").count():
        with page.expect_navigation():  # opens the first training sheet itself
            page.click("text=Start training")
    else:
        with page.expect_navigation():
            page.click("a.button:text('Score')")
    page.wait_for_selector("html[data-sheet-ready]")
    _score(page, changes)
    assert "/feedback/" in page.url


def test_a_study_from_the_template_to_the_drift_page(live_server, browser, celery_worker, settings, tmp_path):
    settings.DEMO_MODE = False
    assert not Study.objects.exists() and not Scenario.objects.exists()
    UserFactory(username="labadmin", password="Admin-pass-2026", role="Admin")
    UserFactory(username="rae", password="Research-pass-2026", role="Researcher")
    base = live_server.url
    rubric = load_rubric()

    # the admin: a study from the template, two raters invited by CSV
    admin = browser.new_context().new_page()
    admin.on("dialog", lambda dialog: dialog.accept())
    login(admin, base, "labadmin", "Admin-pass-2026")
    admin.goto(f"{base}/manage/studies/")
    admin.fill("#id_name", "Ocean lab")
    admin.check("input[name=template][value=cgpst-release]")
    with admin.expect_navigation():
        admin.click("#study-create button[type=submit]")
    assert "Study Ocean lab created." in admin.inner_text(".messages")
    study = Study.objects.get(name="Ocean lab")
    with admin.expect_navigation():
        admin.click("text=Invite raters (CSV)")
    csv_path = tmp_path / "raters.csv"
    csv_path.write_text(CSV, encoding="utf-8")
    admin.set_input_files("#id_file", str(csv_path))
    with admin.expect_navigation():
        admin.click("#invite-form button[type=submit]")
    links = {
        row.get_attribute("data-username"): row.query_selector("input").input_value()
        for row in admin.query_selector_all("#links tbody tr")
    }
    assert set(links) == {"ada", "ben"}

    # no page for these two: the release's expert sheets (for the default training copy)
    # and the live response, by command
    data_a = tmp_path / "data_A.json"
    data_a.write_text(json.dumps(json.loads(_release_data_a())), encoding="utf-8")
    call_command("import_scores", str(data_a), "--study", "Ocean lab", "--create-missing")
    original = Response.objects.get(study=study, research_id="A05_FS10")
    live_file = tmp_path / "live.jsonl"
    record = {"research_id": "B05_FS10", "scenario": "FS10", "model": "05", "condition": "B",
              "steps": [getattr(original, f"step{n}") for n in range(1, 7)]}  # fmt: skip
    live_file.write_text(json.dumps(record) + "\n", encoding="utf-8")
    call_command("import_responses", str(live_file), "--study", "Ocean lab")

    admin.goto(f"{base}/manage/training/?study={study.pk}")
    with admin.expect_navigation():
        admin.click("text=Add the default: A05_FS10, mean of H01 and H02")
    assert "A05_FS10 is in the training set" in admin.inner_text(".messages")
    admin.goto(f"{base}/manage/assignments/")  # nobody has qualified yet: nobody can be chosen
    ada_option = admin.locator("#id_rater_a option", has_text="ada")
    assert ada_option.is_disabled() and "not qualified yet (Ocean lab)" in ada_option.inner_text()

    # both raters set their passwords through their links and train
    raters = {}
    for username in ("ada", "ben"):
        page = browser.new_context().new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(links[username])
        page.fill("#id_new_password1", PASSWORDS[username])
        page.fill("#id_new_password2", PASSWORDS[username])
        with page.expect_navigation():
            page.click("#set-password button[type=submit]")
        login(page, base, username, PASSWORDS[username])
        raters[username] = page
    ada, ben = raters["ada"], raters["ben"]

    _train(ada, base, mirrored_changes(reference_changes(3), rubric))  # a rater who misread the rubric
    assert "Below the threshold" in ada.inner_text("#training-pcc")
    assert "Not yet qualified" in ada.inner_text("main")
    assert ada.locator("#missed-most .guideline").count() == 3  # why: the three dimensions missed most
    assert ada.locator("#training-dimensions tr.differs").count() > 0
    with ada.expect_navigation():
        ada.click("text=Score this response again")
    ada.wait_for_selector("html[data-sheet-ready]")
    _score(ada, reference_changes(3))
    assert "Passed" in ada.inner_text("#training-pcc")
    assert "You are qualified for live scoring in this study." in ada.inner_text("main")
    _train(ben, base, reference_changes(4))
    assert "Passed" in ben.inner_text("#training-pcc")
    assert set(
        RaterQualification.objects.filter(study=study, qualified_at__isnull=False).values_list(
            "rater__username", flat=True
        )
    ) == {"ada", "ben"}

    # the admin assigns the pair to FS10 under condition B: the live response B05_FS10
    admin.goto(f"{base}/manage/assignments/")
    admin.select_option("#id_study", str(study.pk))
    # the study's choices arrive by htmx: choosing before they land, the swap undoes the choice
    admin.wait_for_load_state("networkidle")
    admin.select_option("#id_scenario", label=str(Scenario.objects.get(code="FS10")))
    admin.check(f"input[name=conditions][value='{Condition.objects.get(letter='B').pk}']")
    admin.select_option("#id_rater_a", label=_label(admin, "#id_rater_a", "ada"))
    admin.select_option("#id_rater_b", label=_label(admin, "#id_rater_b", "ben"))
    with admin.expect_navigation():
        admin.click("text=Assign the pair")
    assert "Pair assigned to 1 scenario group." in admin.inner_text(".messages")

    # both score the live sheet from their queue
    live = Response.objects.get(study=study, research_id="B05_FS10")
    for page, changes, name in ((ada, reference_changes(3), "ada"), (ben, reference_changes(4), "ben")):
        page.goto(f"{base}/scoring/")
        with page.expect_navigation():
            page.click(f"a[href='/scoring/{code_for(name, live)}/']")
        page.wait_for_selector("html[data-sheet-ready]")
        _score(page, changes)
    sheets = ScoreSheet.objects.filter(assignment__response=live, assignment__role="primary")
    assert sorted(sheets.values_list("status", flat=True)) == ["submitted", "submitted"]
    assert not Assignment.objects.filter(response=original, rater__username__in=["ada", "ben"]).exists()

    # the worker computes the pair's agreement; the researcher sees both raters' drift
    agreement = _wait_for(lambda: ResponseAgreement.objects.filter(response=live).first())
    researcher = browser.new_context().new_page()
    login(researcher, base, "rae", "Research-pass-2026")
    researcher.goto(f"{base}/research/drift/?study={study.pk}")
    table = researcher.inner_text("#drift")
    assert "H11" in table and "H12" in table
    pcc = f"{agreement.pcc:.3f}"
    assert table.count(pcc) >= 2, (pcc, table)  # each rater's PCC with the partner


def _label(page, select: str, username: str) -> str:
    labels = page.eval_on_selector_all(f"{select} option", "options => options.map(o => o.textContent)")
    return next(label for label in labels if username in label)


def _release_data_a() -> str:
    from tests.conftest import REFERENCE

    return (REFERENCE / "data_A.json").read_text(encoding="utf-8")


def _wait_for(find, timeout: float = 30.0):
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (found := find()) is not None:
            return found
        time.sleep(0.2)
    raise AssertionError("the worker did not compute the agreement in time")
