"""The calibrator's comparison item by item, in a real browser: reached from the
calibrator's own sheet right after submitting, every item where the demo pair (H01 and
H02 of data_A.json) and the calibrator differ is marked, the Step-2 texts and comments
are there, nothing names a rater or the model; readable in dark mode on a phone."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from calibration.services.calibration import response_scores_recompute
from scoring.models import Assignment, ScoreSheet, ScoringGroup
from scoring.selectors import sheet_entries_get
from scoring.services.sheets import sheet_apply_changes, sheet_open, sheet_submit
from studies.models import Response, Study
from studies.rubric import load_rubric
from tests.browser import login, shot
from tests.factories import SHEET_TEXTS, code_for, reference_changes, sheet_submitted

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SECRETS = ["A05_FS10", "kimi-k2", "TeamLLM", "rater1", "rater2", "H01", "H02"]
WIDER = "() => document.documentElement.scrollWidth - window.innerWidth"


@pytest.fixture
def calibrated(demo):
    """The demo pair (H01 = rater1, H02 = rater2) under a strict threshold, so it goes to
    'calibrator', who submits a sheet of their own (H02's with other Step-1 choices)."""
    users = {u.username: u for u in get_user_model().objects.all()}
    response = Response.objects.get(research_id="A05_FS10")
    Study.objects.filter(pk=response.study_id).update(agreement_threshold=Decimal("0.999"))
    group = ScoringGroup.objects.get(
        study=response.study, scenario=response.scenario, condition=response.condition
    )
    h01 = [*reference_changes(3), ("comments.1", "Items 6-8 overlap")]
    sheet_submitted(users["rater1"], response, h01, group=group)
    sheet_submitted(users["rater2"], response, reference_changes(4), group=group)
    response_scores_recompute(response_id=response.pk)
    calibration = Assignment.objects.get(response=response, role="calibration")
    assert calibration.rater == users["calibrator"]
    own = dict(reference_changes(4))
    own["items.1.2.classification"] = "invalid:why"  # a challenge the pair accepted
    own.pop("items.1.2.elaboration", None)
    own.pop("items.1.2.originality", None)
    own["texts.kvp"] = "the calibrator's own KVP"
    sheet = sheet_open(assignment=calibration, actor=users["calibrator"])
    changes = [*SHEET_TEXTS, *own.items()]  # the calibrator's own KVP last
    saved = sheet_apply_changes(
        sheet_id=sheet.pk, actor=users["calibrator"], changes=changes, expected_version=0
    )
    sheet_submit(sheet_id=sheet.pk, actor=users["calibrator"], expected_version=saved.version)
    response_scores_recompute(response_id=response.pk)
    return response


def _expected_item_differences(response) -> set[str]:
    rubric = load_rubric()
    sheets = ScoreSheet.objects.filter(assignment__response=response, status="submitted")
    entries = [sheet_entries_get(sheet=s, rubric=rubric) for s in sheets]
    assert len(entries) == 3
    out = set()
    for step in rubric.steps:
        for pos in range(1, step.item_count + 1):
            if step.kind == "ideas":
                seen = {
                    (i.classification, i.elaboration, i.originality)
                    for i in (e.ideas[step.number][pos - 1] for e in entries)
                }
            elif step.kind == "criteria":
                seen = {(c.correctly_written, c.relevance) for c in (e.criteria[pos - 1] for e in entries)}
            else:
                continue
            if len(seen) > 1:
                out.add(f"{step.number}.{pos}")
    return out


@pytest.mark.parametrize(("scheme", "width"), [("light", 1366), ("dark", 390)])
def test_the_calibrator_sees_every_item_difference_right_after_submitting(
    live_server, calibrated, browser, scheme, width
):
    response = calibrated
    context = browser.new_context(viewport={"width": width, "height": 844}, color_scheme=scheme)
    page = context.new_page()
    login(page, live_server.url, "calibrator")
    page.goto(f"{live_server.url}/scoring/{code_for('calibrator', response)}/")  # the sheet as after Submit
    page.click("#open-comparison")
    page.wait_for_selector(".cmp-by-item")
    assert page.url.endswith(f"/calibration/{code_for('calibrator', response)}/")

    expected = _expected_item_differences(response)
    shown = set(
        page.eval_on_selector_all("tr[data-item][data-differs='1']", "rows => rows.map(r => r.dataset.item)")
    )
    same = set(
        page.eval_on_selector_all("tr[data-item][data-differs='0']", "rows => rows.map(r => r.dataset.item)")
    )
    assert "1.2" in expected and expected, expected
    assert shown == expected and not (same & expected)
    assert len(shown | same) == 8 + 8 + 5  # every Step-1, Step-3 and Step-4 item has a row

    row = page.locator("tr[data-item='1.2']")
    assert row.locator(".cmp-invalid").count() == 1 and row.locator(".cmp-yes").count() == 2
    row.locator("summary").click()  # the item's text, one click away
    assert row.locator(".answer-text").is_visible()
    step2 = page.locator("#cmp-step-2").text_content()
    assert "the calibrator's own KVP" in step2 and SHEET_TEXTS[2][1] in step2
    assert "Items 6-8 overlap" in page.locator("#cmp-step-1").text_content()
    assert "Rater A" in page.content() and "Rater B" in page.content()
    html = page.content()
    for secret in SECRETS:
        assert secret not in html, secret
    assert page.evaluate(WIDER) <= 1  # the page never scrolls sideways; tables scroll in their box
    shot(page, f"comparison-items-{scheme}-{width}", full_page=True)
    context.close()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_sheets_column_is_in_view_on_a_phone(live_server, calibrated, browser, language):
    """Issue 42: at 390 px the Calibrator's column was off-screen in English and the Chinese
    dimension column one character wide."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    login(page, live_server.url, "calibrator")
    page.goto(f"{live_server.url}/calibration/{code_for('calibrator', calibrated)}/")
    page.wait_for_selector(".cmp-by-item")
    assert page.locator("table.cmp-table").count() == 1 and page.locator("table.cmp-items").count() >= 1
    for table in page.locator("table.cmp-table, table.cmp-items").all():
        last, right, box_right = table.evaluate(
            """t => {
              const shown = Array.from(t.querySelectorAll("thead th")).filter(h => h.offsetWidth > 0);
              const last = shown[shown.length - 1];
              return [last.textContent.trim(), last.getBoundingClientRect().right,
                      t.closest(".table-scroll").getBoundingClientRect().right];
            }"""
        )
        assert last in ("Calibrator", "校准评分者"), last
        assert right <= box_right + 1, (language, right, box_right)  # in view, not scrolled to
    for cell in page.locator("table.cmp-table .cmp-dim").all():
        assert cell.bounding_box()["width"] >= 60  # a name, not a column of single characters
    # every row has as many cells in view as the header: the totals line up with their columns
    shown = page.eval_on_selector_all(
        "table.cmp-table tr",
        "rows => rows.map(r => Array.from(r.cells).filter(c => c.offsetWidth > 0).length)",
    )
    assert set(shown) == {4}, shown  # dimension and the three sheets (the spread is the highlight)
    shot(page, f"comparison-phone-{language}", full_page=True)  # after the checks: a shot scrolls
    shot(page.locator("table.cmp-table"), f"cmp-dims-{language}")
    shot(page.locator("table.cmp-items").first, f"cmp-items-{language}")
    assert page.evaluate(WIDER) <= 1
    context.close()
