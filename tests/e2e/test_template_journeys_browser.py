"""Issue 43's templates from an empty install to exported results, in Chromium with a real Celery
worker and the LLM stub over HTTP.

Likert: an admin creates a single-text study on the helpfulness/harmlessness/honesty rubric, imports
two prompts, chooses the stub and the single model, generates, releases the responses and assigns a
rater pair; both raters score both texts by keyboard (they agree on one, disagree on the other); the
worker computes the agreement and sends the disagreement to the calibrator, who scores it; a
researcher builds the results workbook.

CGPST: a study from the release template generates FS10 with the single model on the stub (six
calls, six steps), two raters score the 23 dimensions apart, the calibrator decides, and the results
workbook's Table 1 carries the final score.

Pairwise: the same single-text study with two models; a pairwise study on it builds its pairs, the
pair of raters prefers text A or B (one pair apart: the calibrator's), and the research page and the
workbook give each system's Bradley-Terry score.

Set-up by services, as an operator would at the shell: the accounts and the stub's endpoints (their
page is tested elsewhere), and the installation's standard conditions."""

from __future__ import annotations

import json
import time

import pytest
from openpyxl import load_workbook
from scipy.stats import pearsonr

from calibration.models import FinalScore, ResponseAgreement
from generation.models import GenerationRun
from research.selectors.preferences import study_preferences_get
from scoring.models import Assignment, ScoreSheet
from studies.models import Condition, Response, Study
from studies.rubric import load_rubric
from studies.services.setup import conditions_ensure_defaults
from tests.browser import login, open_sheet, sheet_fill_and_submit
from tests.factories import (
    SHEET_TEXTS,
    UserFactory,
    code_for,
    mirrored_changes,
    rater,
    reference_changes,
    stub_endpoint,
)

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]

PROMPTS = [
    {
        "code": "P1",
        "theme": "Vaccines",
        "text": "Explain how vaccines teach the immune system to spot a pathogen.",
    },
    {"code": "P2", "theme": "Tides", "text": "Explain to a child why the sea has tides twice a day."},
]
LIKERT = ("s1.helpfulness", "s2.harmlessness", "s3.honesty")
PREFERENCE = ("s1.preference",)
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


def _score_by_keyboard(page, keys, values, reason: str = "") -> None:
    """Score the open sheet by keyboard (and type ``reason`` in Step 1's comment), check the page's
    total against the server's, submit."""
    for key, value in zip(keys, values, strict=True):
        page.focus(f"input[name='dims.{key}'][value='1']")
        page.keyboard.press(str(value))
    if reason:
        page.fill("textarea[data-path='comments.1']", reason)
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    page.wait_for_selector("#summary[data-source=server]")
    assert page.text_content("#total-overall") == str(sum(values))
    page.focus("#submit-sheet")
    with page.expect_navigation():
        page.keyboard.press("Enter")


def _accounts() -> None:
    UserFactory(username="labadmin", password="Admin-pass-2026", role="Admin")
    UserFactory(username="rae", password="Research-pass-2026", role="Researcher")
    for name, code in (("ada", "H21"), ("ben", "H22"), ("cal", "H23")):
        user = rater(name, code, can_calibrate=name == "cal")
        user.set_password(f"{name.title()}-pass-2026")
        user.save()


def _page(browser, base: str, username: str, password: str):
    page = browser.new_context().new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    login(page, base, username, password)
    return page


def _create_study(admin, base: str, name: str, task: str, pairs_from: Study | None = None) -> Study:
    admin.goto(f"{base}/manage/studies/")
    admin.fill("#id_name", name)
    admin.check("input[name=template][value=empty]")
    admin.check(f"input[name=task_kind][value={task}]")
    admin.check("input[name=response_language][value=en]")
    if pairs_from is not None:
        admin.select_option("#id_pairs_from", str(pairs_from.pk))
    with admin.expect_navigation():
        admin.click("#study-create button[type=submit]")
    return Study.objects.get(name=name)


def _generated_text_study(admin, base: str, tmp_path, endpoints, single) -> tuple[Study, list[Response]]:
    """A single-text study made on the pages: its prompts imported, its models and the single model
    chosen, one text per prompt and model generated on the stub and released on the held page."""
    study = _create_study(admin, base, "Vaccine answers", "text")
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
    for endpoint in endpoints:
        admin.check(f"input[name=endpoints][value='{endpoint.pk}']")
    admin.check(f"input[name=conditions][value='{single.pk}']")
    with admin.expect_navigation():
        admin.click(".catalogue-form button[type=submit]")

    admin.goto(f"{base}/manage/generation/?study={study.pk}")
    assert admin.locator("input[name=conditions]").count() == 1  # the single model's only
    for scenario in study.scenarios.all():
        admin.check(f"input[name=scenarios][value='{scenario.pk}']")
    for endpoint in endpoints:
        admin.check(f"input[name=endpoints][value='{endpoint.pk}']")
    admin.check(f"input[name=conditions][value='{single.pk}']")
    runs = 2 * len(endpoints)
    with admin.expect_navigation():
        admin.click("button:text('Launch')")
    assert f"{runs} runs queued." in admin.inner_text(".messages")
    _wait_for(
        lambda: GenerationRun.objects.filter(study=study, status="succeeded").count() == runs, "the runs"
    )
    assert all(r.calls_total == 1 for r in GenerationRun.objects.filter(study=study))  # one call per text
    responses = list(Response.objects.filter(study=study).select_related("scenario", "model"))
    assert len(responses) == runs
    admin.goto(f"{base}/manage/responses/held/?study={study.pk}")  # generated ones wait for release
    for response in responses:
        with admin.expect_navigation():
            admin.locator(f"#held-{response.pk} form[action$='/release/'] button[type=submit]").click()
    assert not Response.objects.filter(study=study, held=True).exists()
    return study, responses


def _assign(admin, base: str, study: Study, condition: Condition) -> None:
    """The rater pair ada + ben for every prompt of the study under ``condition``."""
    for scenario in study.scenarios.order_by("code"):
        admin.goto(f"{base}/manage/assignments/")
        admin.select_option("#id_study", str(study.pk))
        admin.wait_for_load_state("networkidle")
        admin.select_option("#id_scenario", label=str(scenario))
        admin.check(f"input[name=conditions][value='{condition.pk}']")
        admin.select_option("#id_rater_a", label=_label(admin, "#id_rater_a", "ada"))
        admin.select_option("#id_rater_b", label=_label(admin, "#id_rater_b", "ben"))
        with admin.expect_navigation():
            admin.click("text=Assign the pair")
        assert "Pair assigned to 1 scenario group." in admin.inner_text(".messages")


def _finals(study: Study, n: int) -> dict[str, FinalScore]:
    finals = _wait_for(
        lambda: (
            (
                rows := list(
                    FinalScore.objects.filter(response__study=study).select_related("response__scenario")
                )
            )
            and len(rows) == n
            and rows
        ),
        "the final scores",
    )
    return {f.response.scenario.code: f for f in finals}


def _results_workbook(browser, base: str, study: Study):
    researcher = _page(browser, base, "rae", "Research-pass-2026")
    researcher.goto(f"{base}/research/?study={study.pk}")
    researcher.click("text=Build the results workbook (.xlsx)")
    researcher.wait_for_selector("text=The export is ready.", timeout=60_000)
    with researcher.expect_download() as download:
        researcher.click("#export-area a.button")
    assert download.value.suggested_filename.endswith(".xlsx")
    with open(download.value.path(), "rb") as file:
        return researcher, load_workbook(file)


def test_a_likert_study_from_an_empty_install_to_exported_results(
    live_server, browser, celery_worker, llm_stub, settings, tmp_path
):
    settings.DEMO_MODE = False
    assert not Study.objects.exists()
    _accounts()
    endpoint = stub_endpoint(llm_stub)
    conditions_ensure_defaults()
    single = Condition.objects.get(letter="B")
    base = live_server.url
    admin = _page(browser, base, "labadmin", "Admin-pass-2026")
    study, generated = _generated_text_study(admin, base, tmp_path, [endpoint], single)
    responses = {r.scenario.code: r for r in generated}
    _assign(admin, base, study, single)

    for name in ("ada", "ben"):  # each reads one response panel per prompt and scores it
        page = _page(browser, base, name, f"{name.title()}-pass-2026")
        for code, response in responses.items():
            open_sheet(page, base, code_for(name, response))
            assert response.step1.split("\n")[0] in page.inner_text("main")
            _score_by_keyboard(page, LIKERT, SCORES[(name, code)])
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
            sheet.totals["dimensions"][key] for key in LIKERT
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
    page = _page(browser, base, "cal", "Cal-pass-2026")
    open_sheet(page, base, code_for("cal", responses["P2"], role="calibration"))
    _score_by_keyboard(page, LIKERT, SCORES[("cal", "P2")])
    page.context.close()
    final = _finals(study, 2)
    assert ScoreSheet.objects.filter(assignment__response__study=study, status="submitted").count() == 5

    _, book = _results_workbook(browser, base, study)
    rows = [row for ws in book.worksheets for row in ws.iter_rows(values_only=True)]
    for code, score in final.items():  # each response's row carries its final score
        found = [row for row in rows if responses[code].research_id in row]
        assert any(float(score.overall) in row for row in found), (code, found)
    # the P1 pair's mean; P2 the calibrator's and the closer rater's (ada: 2,5,7 against 4,5,6)
    assert float(final["P1"].overall) == (16 + 13) / 2 and float(final["P2"].overall) == (14 + 15) / 2


# text A's model is preferred on P1 by both raters; on P2 they part and the calibrator sides with ada
PREFERENCES = {("ada", "P1"): 1, ("ben", "P1"): 2, ("ada", "P2"): 5, ("ben", "P2"): 1, ("cal", "P2"): 4}


def test_a_pairwise_study_from_an_empty_install_to_bradley_terry_scores(
    live_server, browser, celery_worker, llm_stub, settings, tmp_path
):
    settings.DEMO_MODE = False
    assert not Study.objects.exists()
    _accounts()
    endpoints = [stub_endpoint(llm_stub), stub_endpoint(llm_stub, name="stub two", model_number="91")]
    conditions_ensure_defaults()
    single = Condition.objects.get(letter="B")
    base = live_server.url
    admin = _page(browser, base, "labadmin", "Admin-pass-2026")
    source, _ = _generated_text_study(admin, base, tmp_path, endpoints, single)

    study = _create_study(admin, base, "Vaccine preferences", "pair", pairs_from=source)
    assert (study.task_kind, study.rubric_version, study.pairs_from) == (
        "pair",
        "pairwise-preference-v1",
        source,
    )
    with admin.expect_navigation():
        admin.click("#pairs-build button[type=submit]")
    assert "2 pairs built." in admin.inner_text(".messages")
    units = {
        u.scenario.code: u
        for u in Response.objects.filter(study=study).select_related("scenario", "pair__left", "pair__right")
    }
    assert set(units) == {"P1", "P2"}
    for code, unit in units.items():  # A and B: the two systems, in the order drawn
        a, b = unit.pair.left.model.model_number, unit.pair.right.model.model_number
        assert {a, b} == {"90", "91"} and unit.research_id == f"B{a}vB{b}_{code}"
    _assign(admin, base, study, units["P1"].condition)

    for name in ("ada", "ben"):  # each reads text A and text B, never which model wrote them
        page = _page(browser, base, name, f"{name.title()}-pass-2026")
        for code, unit in units.items():
            open_sheet(page, base, code_for(name, unit))
            shown = page.inner_text("main")
            assert (
                unit.pair.left.step1.split("\n")[0] in shown and unit.pair.right.step1.split("\n")[0] in shown
            )
            assert "stub two" not in shown and unit.research_id not in shown
            if (name, code) == ("ada", "P1"):  # a preference without its reason is not submitted
                page.focus("input[name='dims.s1.preference'][value='1']")
                page.keyboard.press("1")
                page.click("#submit-sheet")
                page.wait_for_selector(".banner[data-kind=incomplete]")
                assert "Preference · Reason" in page.inner_text(".banner[data-kind=incomplete]")
                mine = ScoreSheet.objects.get(assignment__response=unit, assignment__rater__username=name)
                assert mine.status != "submitted"
            reason = f"{name}: one text is more concrete."
            _score_by_keyboard(page, PREFERENCE, (PREFERENCES[(name, code)],), reason=reason)
        page.context.close()
    calibration = _wait_for(
        lambda: Assignment.objects.filter(response=units["P2"], role="calibration").first(),
        "the calibrator's assignment",
    )
    agreement = ResponseAgreement.objects.get(response=units["P2"])
    assert agreement.flagged and agreement.flag_reasons == ["side"] and agreement.pcc is None
    assert not ResponseAgreement.objects.get(response=units["P1"]).flagged
    page = _page(browser, base, "cal", "Cal-pass-2026")
    open_sheet(page, base, code_for(calibration.rater.username, units["P2"], role="calibration"))
    _score_by_keyboard(page, PREFERENCE, (PREFERENCES[("cal", "P2")],), reason="B explains the cause.")
    page.context.close()
    final = _finals(study, 2)
    assert float(final["P1"].overall) == 1.5 and float(final["P2"].overall) == (5 + 4) / 2  # cal and ada

    researcher, book = _results_workbook(browser, base, study)
    scores, _ = study_preferences_get(study=study)
    # P1: text A's system won; P2: text B's system won (the calibrated pair's 4.5)
    winners = {units["P1"].pair.left.model.model_number, units["P2"].pair.right.model.model_number}
    assert len(scores) == 2 and {p.wins for p in scores} == ({2.0, 0.0} if len(winners) == 1 else {1.0})
    researcher.goto(f"{base}/research/?study={study.pk}")
    rows = researcher.locator("#preferences tbody tr")
    assert [rows.nth(i).get_attribute("data-system") for i in range(rows.count())] == [
        p.system for p in scores
    ]
    assert rows.nth(0).locator("td").nth(2).inner_text() == f"{scores[0].score:.0f}"
    sheet = book["Preferences (Bradley-Terry)"]
    assert [r[0] for r in sheet.iter_rows(min_row=2, max_row=3, values_only=True)] == [
        p.system for p in scores
    ]


CLICKED = "dims.s6.development"  # entered by keyboard; the rest of a CGPST sheet through the endpoint


def test_a_cgpst_study_from_the_template_to_exported_results(
    live_server, browser, celery_worker, llm_stub, settings
):
    settings.DEMO_MODE = False
    assert not Study.objects.exists()
    _accounts()
    endpoint = stub_endpoint(llm_stub)
    base = live_server.url
    admin = _page(browser, base, "labadmin", "Admin-pass-2026")
    admin.goto(f"{base}/manage/studies/")
    admin.fill("#id_name", "Ocean lab")
    admin.check("input[name=template][value=cgpst-release]")
    with admin.expect_navigation():
        admin.click("#study-create button[type=submit]")
    study = Study.objects.get(name="Ocean lab")
    assert (study.task_kind, study.rubric_version) == ("cgpst", "cgpst-v1")
    single = Condition.objects.get(letter="B")
    admin.goto(f"{base}/manage/studies/{study.pk}/catalogue/")
    admin.check(f"input[name=endpoints][value='{endpoint.pk}']")
    with admin.expect_navigation():
        admin.click(".catalogue-form button[type=submit]")
    admin.goto(f"{base}/manage/generation/?study={study.pk}")
    admin.check(f"input[name=scenarios][value='{study.scenarios.get().pk}']")
    admin.check(f"input[name=endpoints][value='{endpoint.pk}']")
    admin.check(f"input[name=conditions][value='{single.pk}']")
    with admin.expect_navigation():
        admin.click("button:text('Launch')")
    run = _wait_for(lambda: GenerationRun.objects.filter(study=study, status="succeeded").first(), "the run")
    assert run.calls_total == 6 and run.turns.count() == 6  # the single model: one call per step
    response = run.response
    assert response.research_id == "B90_FS10" and all(response.answers)
    admin.goto(f"{base}/manage/responses/held/?study={study.pk}")
    with admin.expect_navigation():
        admin.locator(f"#held-{response.pk} form[action$='/release/'] button[type=submit]").click()
    _assign(admin, base, study, single)

    rubric = load_rubric()
    sheets = {"ada": reference_changes(3), "ben": mirrored_changes(reference_changes(3), rubric)}
    for name, changes in sheets.items():  # one rater reads the rubric the other way round
        page = _page(browser, base, name, f"{name.title()}-pass-2026")
        open_sheet(page, base, code_for(name, response))
        assert response.shown_answer(2).split("\n")[0] in page.inner_text("main")
        sheet_fill_and_submit(page, [*changes, *SHEET_TEXTS], clicked=CLICKED)
        page.context.close()
    calibration = _wait_for(
        lambda: Assignment.objects.filter(response=response, role="calibration").first(), "the calibrator"
    )
    agreement = ResponseAgreement.objects.get(response=response)
    assert agreement.flagged and agreement.pcc < float(study.agreement_threshold)
    page = _page(browser, base, "cal", "Cal-pass-2026")
    open_sheet(page, base, code_for(calibration.rater.username, response, role="calibration"))
    sheet_fill_and_submit(page, [*reference_changes(4), *SHEET_TEXTS], clicked=CLICKED)
    page.context.close()
    final = _finals(study, 1)["FS10"]
    assert final.calibrated

    _, book = _results_workbook(browser, base, study)
    table1 = [row for row in book["Table 1 (B)"].iter_rows(values_only=True) if row and "FS10" in row]
    assert table1 and any(float(final.overall) in row for row in table1), table1


def _label(page, select: str, username: str) -> str:
    labels = page.eval_on_selector_all(f"{select} option", "options => options.map(o => o.textContent)")
    return next(label for label in labels if username in label)
