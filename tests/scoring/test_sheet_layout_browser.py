"""The scoring page on a 1366x768 laptop, a 1920x1080 screen and a 768 px tablet:
bounding-box checks (no heading under the sticky bar, no label cut, one row of pips
per scale, each item's text once), the scenario panel remembered as read, dark mode.
Screenshots of the key pages at both sizes go to the folder TEST_SHOTS names (``tests.browser.shot``)."""

import pytest

from core.draft_keys import storage_name
from scoring.models import Assignment
from scoring.services.sheets import sheet_apply_changes, sheet_open
from studies.models import Response
from tests.browser import login, open_sheet, shot
from tests.factories import code_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [(1366, 768), (1920, 1080)]


def sized_shot(page, name: str) -> None:
    size = page.viewport_size
    shot(page, f"{name}-{size['width']}x{size['height']}", full_page=True)


@pytest.fixture
def partly_scored(demo):
    response = Response.objects.get(research_id="A05_FS10")
    assignment = Assignment.objects.get(response=response, rater__username="rater1")
    sheet = sheet_open(assignment=assignment, actor=assignment.rater)
    sheet_apply_changes(
        sheet_id=sheet.pk,
        actor=assignment.rater,
        expected_version=0,
        changes=[
            ("items.1.1.classification", "invalid:duplicate"),
            ("items.1.2.classification", "Technology"),
        ],
    )
    return response


@pytest.mark.parametrize("width,height", SIZES)
def test_the_key_pages_and_the_admin_forms_one_style_for_every_select(
    live_server, partly_scored, browser, width, height
):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    login(page, live_server.url, "rater1")
    code = code_for("rater1", partly_scored)
    page.goto(f"{live_server.url}/scoring/")
    assert code in page.content()  # the queue lists the sheet
    sized_shot(page, "queue")
    open_sheet(page, live_server.url, code)
    sized_shot(page, "sheet")
    reply = page.goto(f"{live_server.url}/scoring/NOSUCHCODE/")
    assert reply is not None and reply.status == 404
    sized_shot(page, "404")
    context.close()
    # the admin's forms: one look for every control
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    login(page, live_server.url, "admin")
    styles = []
    for name, url in [("assignments", "/manage/assignments/"), ("generation", "/manage/generation/")]:
        page.goto(f"{live_server.url}{url}")
        sized_shot(page, name)
        styles.append(
            page.evaluate(
                """() => { const s = getComputedStyle(document.querySelector("main select"));
                   return [s.borderTopWidth, s.borderTopStyle, s.borderRadius, s.paddingTop, s.fontSize]; }"""
            )
        )
    assert styles[0] == styles[1], styles
    context.close()


FITS = """() => {
  const out = {cut: [], wrapped: [], overflowX: document.documentElement.scrollWidth - window.innerWidth};
  const canvas = document.createElement("canvas").getContext("2d");
  document.querySelectorAll("#sheet-form select").forEach(sel => {
    canvas.font = getComputedStyle(sel).font;
    const widest = Math.max(...Array.from(sel.options).map(o => canvas.measureText(o.text).width));
    if (widest > sel.clientWidth - 18) out.cut.push(sel.id + " " + Math.round(widest) + ">" + sel.clientWidth);
  });
  document.querySelectorAll("#sheet-form label, #sheet-form th, #sheet-form summary, #sheet-form button, #summary a, .dim-label")
    .forEach(el => { if (el.offsetParent && !el.classList.contains("visually-hidden") && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflow !== "visible")
      out.cut.push(el.textContent.trim().slice(0, 40)); });
  document.querySelectorAll("#sheet-form fieldset.scale").forEach(fs => {
    const tops = new Set(Array.from(fs.querySelectorAll(".pip")).map(p => Math.round(p.getBoundingClientRect().top)));
    if (tops.size > 1) out.wrapped.push(fs.dataset.path);
  });
  return out;
}"""


def _item_texts(response) -> list[tuple[int, str]]:
    return list(response.items.filter(step__in=[1, 3, 4]).values_list("step", "text"))


def test_the_sheet_fits_a_laptop_screen(live_server, partly_scored, browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", partly_scored))
    page.evaluate("() => document.getElementById('scenario').open = false")

    # each item's text once on the page, beside its controls
    texts = _item_texts(partly_scored)
    assert len(texts) >= 10
    for step, text in texts:
        shown = page.evaluate(f"() => document.getElementById('step-{step}').innerText")
        assert shown.count(text.strip()[:60]) == 1, text[:60]
    first = page.locator("#step-1 tr[data-item]").first
    text_box = first.locator(".item-text").bounding_box()
    select_box = first.locator("select").bounding_box()
    assert abs(text_box["y"] - select_box["y"]) < 20 and select_box["x"] > text_box["x"]  # side by side
    # the whole response is one click away
    assert not page.is_visible("#step-1 .answer-all .answer-text")
    page.click("#step-1 .answer-all summary")
    assert page.is_visible("#step-1 .answer-all .answer-text")
    assert partly_scored.answer(1)[:40] in page.text_content("#step-1 .answer-all .answer-text")

    # no heading under the sticky summary after following a step link
    for n in range(1, 7):
        page.click(f"#summary a[href='#step-{n}']")
        page.wait_for_timeout(150)
        bar = page.locator("#summary").bounding_box()
        heading = page.locator(f"#step-{n}-title").bounding_box()
        assert heading["y"] >= bar["y"] + bar["height"], (n, heading, bar)
        assert heading["y"] < 768 - heading["height"], n

    # nothing cut, one row of pips per scale, no sideways scrolling
    fits = page.evaluate(FITS)
    assert fits == {"cut": [], "wrapped": [], "overflowX": 0}, fits
    height = page.evaluate("() => document.documentElement.scrollHeight")
    assert height < 8500, height  # was 11,428 px with every item twice and the scenario open
    context.close()


def test_the_scenario_is_collapsed_after_the_raters_first_read(live_server, partly_scored, browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", partly_scored))
    assert page.evaluate("() => document.getElementById('scenario').open")  # first read
    open_sheet(page, live_server.url, code_for("rater1", partly_scored))
    assert not page.evaluate("() => document.getElementById('scenario').open")
    page.click("#scenario summary")
    assert page.is_visible("#scenario .answer-text")
    keys = page.evaluate(
        "() => Object.keys(localStorage).filter(k => k.startsWith('teamllm.scenario-read.'))"
    )
    rater1 = partly_scored.assignments.get(rater__username="rater1").rater
    # no blind code, no research ID, and no account or scenario in clear (hostile pass 15)
    assert keys == [
        "teamllm.scenario-read." + storage_name(user_id=rater1.pk, of=f"scenario:{partly_scored.scenario_id}")
    ]
    # another rater in the same browser reads it for the first time
    page.click("form[action$='/accounts/logout/'] button")
    login(page, live_server.url, "rater2")
    open_sheet(page, live_server.url, code_for("rater2", partly_scored))
    assert page.evaluate("() => document.getElementById('scenario').open")
    context.close()


@pytest.mark.parametrize("width,height", [(768, 1024), (390, 844)])
def test_tablet_and_phone_widths(live_server, partly_scored, browser, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    login(page, live_server.url, "rater1")
    page.goto(f"{live_server.url}/scoring/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # the queue reads on a phone
    sized_shot(page, "queue")
    open_sheet(page, live_server.url, code_for("rater1", partly_scored))
    sized_shot(page, "sheet")
    if width >= 768:
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        for box in [
            page.locator(sel).bounding_box()
            for sel in ("#f-items-1-8-classification", "#f-items-4-5-comment")
        ]:
            assert box["x"] >= 0 and box["x"] + box["width"] <= width
        page.select_option("#f-items-1-3-classification", "Technology")  # usable: scores on a tablet
        page.click("fieldset[data-path='items.1.3.elaboration'] label:has(input[value='2'])")
        page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
        # items 2 and 3 Yes (fluency 2), one category (1), elaboration 2
        assert page.text_content("#total-step-1") == "5"
    context.close()


def test_dark_mode_follows_the_system_setting(live_server, partly_scored, browser):
    def luminance(rgb: str) -> float:
        r, g, b = (int(v) for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3])
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255

    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1366, "height": 768}, color_scheme=scheme)
        page = context.new_page()
        login(page, live_server.url, "rater1")
        open_sheet(page, live_server.url, code_for("rater1", partly_scored))
        colors = page.evaluate(
            """() => ["body", ".step", "#f-comments-1", "#summary"].map(s => {
                 const st = getComputedStyle(document.querySelector(s)); return [st.backgroundColor, st.color]; })"""
        )
        for background, ink in colors:
            if scheme == "dark":
                assert luminance(background) < 0.3 and luminance(ink) > 0.6, (background, ink)
            else:
                assert luminance(background) > 0.7 and luminance(ink) < 0.3, (background, ink)
        if scheme == "dark":
            sized_shot(page, "sheet-dark")
        context.close()
