"""Issue 43's Likert template from an empty install to exported results, in Chromium with a real
Celery worker and the LLM stub over HTTP: an admin creates a single-text study on the
helpfulness/harmlessness/honesty rubric, imports two prompts, chooses the stub and the single
model, generates, releases the responses and assigns a rater pair; both raters score both texts by
keyboard (they agree on one, disagree on the other); the worker computes the agreement and sends
the disagreement to the calibrator, who scores it; a researcher builds the results workbook.

Set-up by services, as an operator would at the shell: the accounts and the stub's endpoint (its
page is tested elsewhere), and the installation's standard conditions."""

from __future__ import annotations

import json
import time

import pytest
from openpyxl import load_workbook
from scipy.stats import pearsonr

from calibration.models import FinalScore, ResponseAgreement
from generation.models import GenerationRun
from scoring.models import Assignment, ScoreSheet
from studies.models import Condition, Response, Study
from studies.services.setup import conditions_ensure_defaults
from tests.browser import login, open_sheet
from tests.factories import UserFactory, code_for, rater, stub_endpoint

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

PROMPTS = [
    {
        "code": "P1",
        "theme": "Vaccines",
        "text": "Explain how vaccines teach the immune system to spot a pathogen.",
    },
    {"code": "P2", "theme": "Tides", "text": "Explain to a child why the sea has tides twice a day."},
]
DIMENSIONS = ("s1.helpfulness", "s2.harmlessness", "s3.honesty")
# the pair agrees on P1 (PCC 1) and reads P2 the other way round (PCC -0.97: the calibrator's)
SCORES = {
    ("ada", "P1"): (6, 7, 3),
    ("ben", "P1"): (5, 6, 2),
    ("ada", "P2"): (2, 5, 7),
    ("ben", "P2"): (7, 5, 2),
    ("cal", "P2"): (4, 5, 6),
}


def _wait_for(find, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := find():
            return found
        time.sleep(0.25)
    raise AssertionError(f"waited {timeout:g} s for {what}")


def _score_by_keyboard(page, values) -> None:
    """Score the open sheet by keyboard, check the page's totals against the server's, submit."""
    for key, value in zip(DIMENSIONS, values, strict=True):
        page.focus(f"input[name='dims.{key}'][value='1']")
        page.keyboard.press(str(value))
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    page.wait_for_selector("#summary[data-source=server]")
    assert page.text_content("#total-overall") == str(sum(values))
    page.focus("#submit-sheet")
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_a_likert_study_from_an_empty_install_to_exported_results(
    live_server, browser, celery_worker, llm_stub, settings, tmp_path
):
    settings.DEMO_MODE = False
    assert not Study.objects.exists()
    UserFactory(username="labadmin", password="Admin-pass-2026", role="Admin")
    UserFactory(username="rae", password="Research-pass-2026", role="Researcher")
    for name, code in (("ada", "H21"), ("ben", "H22"), ("cal", "H23")):
        user = rater(name, code, can_calibrate=name == "cal")
        user.set_password(f"{name.title()}-pass-2026")
        user.save()
    endpoint = stub_endpoint(llm_stub)
    conditions_ensure_defaults()
    single = Condition.objects.get(letter="B")
    base = live_server.url

    # the admin: a single-text study on the Likert rubric, its prompts, its model and condition
    admin = browser.new_context().new_page()
    admin.on("dialog", lambda dialog: dialog.accept())
    login(admin, base, "labadmin", "Admin-pass-2026")
    admin.goto(f"{base}/manage/studies/")
    admin.fill("#id_name", "Vaccine answers")
    admin.check("input[name=template][value=empty]")
    admin.check("input[name=task_kind][value=text]")
    admin.check("input[name=response_language][value=en]")
    with admin.expect_navigation():
        admin.click("#study-create button[type=submit]")
    study = Study.objects.get(name="Vaccine answers")
    assert (study.task_kind, study.rubric_version) == ("text", "likert-hhh-v1")
    assert "One prompt, one text" in admin.inner_text("#study-task")
    prompts = tmp_path / "prompts.json"
    prompts.write_text(json.dumps(PROMPTS), encoding="utf-8")
    admin.goto(f"{base}/manage/studies/{study.pk}/scenarios/import/")
    admin.set_input_files("#id_file", str(prompts))
    with admin.expect_navigation():
        admin.click("button[type=submit].primary")
    assert sorted(study.scenarios.values_list("code", flat=True)) == ["P1", "P2"]
    admin.goto(f"{base}/manage/studies/{study.pk}/catalogue/")
    admin.check(f"input[name=endpoints][value='{endpoint.pk}']")
    admin.check(f"input[name=conditions][value='{single.pk}']")
    with admin.expect_navigation():
        admin.click(".catalogue-form button[type=submit]")

    # generation on the stub: one call per prompt
    admin.goto(f"{base}/manage/generation/?study={study.pk}")
    assert admin.locator("input[name=conditions]").count() == 1  # the single model's only
    for scenario in study.scenarios.all():
        admin.check(f"input[name=scenarios][value='{scenario.pk}']")
    admin.check(f"input[name=endpoints][value='{endpoint.pk}']")
    admin.check(f"input[name=conditions][value='{single.pk}']")
    with admin.expect_navigation():
        admin.click("button:text('Launch')")
    assert "2 runs queued." in admin.inner_text(".messages")
    _wait_for(
        lambda: GenerationRun.objects.filter(study=study, status="succeeded").count() == 2, "the two runs"
    )
    responses = {r.scenario.code: r for r in Response.objects.filter(study=study).select_related("scenario")}
    assert set(responses) == {"P1", "P2"}
    assert all(r.calls_total == 1 for r in GenerationRun.objects.filter(study=study))

    # the study holds generated responses: released on the held page
    admin.goto(f"{base}/manage/responses/held/?study={study.pk}")
    for response in responses.values():
        with admin.expect_navigation():
            admin.locator(f"#held-{response.pk} form[action$='/release/'] button[type=submit]").click()
    assert not Response.objects.filter(study=study, held=True).exists()

    # the pair, for both prompts under the single model
    for code in ("P1", "P2"):
        admin.goto(f"{base}/manage/assignments/")
        admin.select_option("#id_study", str(study.pk))
        admin.wait_for_load_state("networkidle")
        admin.select_option("#id_scenario", label=str(responses[code].scenario))
        admin.check(f"input[name=conditions][value='{single.pk}']")
        admin.select_option("#id_rater_a", label=_label(admin, "#id_rater_a", "ada"))
        admin.select_option("#id_rater_b", label=_label(admin, "#id_rater_b", "ben"))
        with admin.expect_navigation():
            admin.click("text=Assign the pair")
        assert "Pair assigned to 1 scenario group." in admin.inner_text(".messages")

    # both raters score both texts, reading one response panel each
    for name in ("ada", "ben"):
        page = browser.new_context().new_page()
        page.on("dialog", lambda dialog: dialog.accept())
        login(page, base, name, f"{name.title()}-pass-2026")
        for code, response in responses.items():
            open_sheet(page, base, code_for(name, response))
            assert response.step1.split("\n")[0] in page.inner_text("main")
            _score_by_keyboard(page, SCORES[(name, code)])
        page.context.close()

    # the worker's agreement: P1 agrees, P2 goes to the calibrator
    agreements = _wait_for(
        lambda: (
            (rows := list(ResponseAgreement.objects.filter(response__study=study, pcc__isnull=False)))
            and len(rows) == 2
            and rows
        ),
        "the agreement of both responses",
    )
    entered = {
        (sheet.assignment.rater.username, sheet.assignment.response.scenario.code): tuple(
            sheet.totals["dimensions"][key] for key in DIMENSIONS
        )
        for sheet in ScoreSheet.objects.filter(assignment__response__study=study).select_related(
            "assignment__rater", "assignment__response__scenario"
        )
    }
    assert entered == {k: v for k, v in SCORES.items() if k[0] != "cal"}
    pcc = {a.response.scenario.code: a.pcc for a in agreements}
    # Pearson's r of the raters' scores over their maxima (all 7 here: of the scores themselves)
    expected = {
        code: pearsonr(SCORES[("ada", code)], SCORES[("ben", code)]).statistic for code in ("P1", "P2")
    }
    assert pcc == pytest.approx(expected) and expected["P1"] == pytest.approx(1.0) and expected["P2"] < 0
    calibration = _wait_for(
        lambda: Assignment.objects.filter(response=responses["P2"], role="calibration").first(),
        "the calibrator's assignment",
    )
    assert calibration.rater.username == "cal"
    page = browser.new_context().new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    login(page, base, "cal", "Cal-pass-2026")
    open_sheet(page, base, code_for("cal", responses["P2"], role="calibration"))
    _score_by_keyboard(page, SCORES[("cal", "P2")])
    page.context.close()
    finals = _wait_for(
        lambda: (rows := list(FinalScore.objects.filter(response__study=study))) and len(rows) == 2 and rows,
        "both final scores",
    )
    final = {f.response.scenario.code: f for f in finals}
    assert ScoreSheet.objects.filter(assignment__response__study=study, status="submitted").count() == 5

    # the researcher's results workbook holds both final scores
    researcher = browser.new_context().new_page()
    login(researcher, base, "rae", "Research-pass-2026")
    researcher.goto(f"{base}/research/?study={study.pk}")
    researcher.click("text=Build the results workbook (.xlsx)")
    researcher.wait_for_selector("text=The export is ready.", timeout=60_000)
    with researcher.expect_download() as download:
        researcher.click("#export-area a.button")
    assert download.value.suggested_filename.endswith(".xlsx")
    with open(download.value.path(), "rb") as file:
        book = load_workbook(file)
    rows = [row for ws in book.worksheets for row in ws.iter_rows(values_only=True)]
    for code, score in final.items():  # each response's row carries its final score
        found = [row for row in rows if responses[code].research_id in row]
        assert any(float(score.overall) in row for row in found), (code, found)
    # the P1 pair's mean; P2 the calibrator's and the closer rater's (ada: 2,5,7 against 4,5,6)
    assert float(final["P1"].overall) == (16 + 13) / 2 and float(final["P2"].overall) == (14 + 15) / 2

def _label(page, select: str, username: str) -> str:
    labels = page.eval_on_selector_all(f"{select} option", "options => options.map(o => o.textContent)")
    return next(label for label in labels if username in label)
