"""The scoring page in a real browser: a full sheet by keyboard only, live totals,
reload, submit; a second tab's conflict; the Chinese UI."""

import pytest

from scoring.models import ScoreSheet
from scoring.score_files import data_a_changes
from scoring.selectors import sheet_entries_get
from studies.models import Response
from studies.rubric import load_rubric
from tests.browser import login, open_sheet
from tests.factories import code_for


def _stored(sheet):
    """The sheet's entries as stored now (a draft's are on the sheet, its rows come at submit)."""
    return sheet_entries_get(sheet=ScoreSheet.all_objects.get(pk=sheet.pk))


pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "texts.condition_phrase": "Given that microplastics exceed plankton tenfold",
    "texts.stem": "How might we",
    "texts.kvp": "reduce microplastics at the bottom of the food chain",
    "texts.purpose": "restore the energy flow of the ocean",
}
ACTIVE = """() => { const e = document.activeElement; const control = ["INPUT", "SELECT", "TEXTAREA"].includes(e.tagName);
  return {tag: e.tagName, type: e.type || "", path: control ? (e.dataset.path || e.name || "") : "", id: e.id || "",
          options: e.tagName === "SELECT" ? Array.from(e.options).map(o => [o.value, o.text]) : []}; }"""


def type_value(page, info, value):
    """Enter a value into the focused control with the keyboard only."""
    if info["tag"] == "SELECT":
        label = next(text for v, text in info["options"] if v == value)
        page.keyboard.type(label.split(" — ")[0])  # type-ahead selects the option
    elif info["type"] == "radio":
        page.keyboard.press("0" if value == 10 else str(value))
    else:
        page.keyboard.type(value)


def score_by_keyboard(page, values, skip=()):
    """Tab through the whole sheet from the first control, entering ``values``; a
    comment is reached from its item or step with Alt+C (comments are not Tab stops).
    Returns the paths entered and the number of Tab presses."""
    page.focus("#f-items-1-1-classification")
    done, checked_live, tabs = set(), False, 0
    for _ in range(800):
        info = page.evaluate(ACTIVE)
        path = info["path"]
        if path in values and path not in done and path not in skip:
            type_value(page, info, values[path])
            assert page.evaluate(ACTIVE)["path"] == path
            done.add(path)
            comment = _comment_of(path)
            row = comment.removesuffix("comment")
            row_done = not row or all(p in done for p in values if p.startswith(row) and p != comment)
            if comment in values and comment not in done and comment not in skip and row_done:
                page.keyboard.press("Alt+c")
                assert page.evaluate(ACTIVE)["path"] == comment
                page.keyboard.type(values[comment])
                done.add(comment)
        if (
            not checked_live
            and {"items.1.1.classification", "items.1.1.elaboration", "items.1.1.originality"} <= done
        ):
            # live totals, before any save has come back: fluency + flexibility + elaboration + originality
            expected = 2 + values["items.1.1.elaboration"] + values["items.1.1.originality"]
            assert page.text_content("#total-step-1") == str(expected)
            checked_live = True
        if not page.evaluate("() => document.getElementById('sheet-form').contains(document.activeElement)"):
            break  # past the last control of the sheet
        page.keyboard.press("Tab")
        tabs += 1
    for path in sorted(set(values) - done - set(skip)):  # step comments: Alt+C from the step
        assert path.startswith("comments."), path
        step = path.removeprefix("comments.")
        page.focus(f"#step-{step} :is(select, input[type=radio]:not([disabled]))")
        for _ in range(2):
            if page.evaluate(ACTIVE)["path"] != path:
                page.keyboard.press("Alt+c")
        assert page.evaluate(ACTIVE)["path"] == path
        page.keyboard.type(values[path])
        done.add(path)
    return done, tabs


def _comment_of(path: str) -> str:
    """The comment that belongs with an entry: its item's, or its step's."""
    parts = path.split(".")
    if parts[0] == "items":
        return ".".join([*parts[:3], "comment"])
    if parts[0] == "dims":
        return f"comments.{parts[1].removeprefix('s')}"
    return ""


def test_rater_scores_a_full_sheet_with_the_keyboard_reloads_and_submits(live_server, demo, data_a, browser):
    response = Response.objects.get(research_id="A05_FS10")
    values = {p: v for p, v in data_a_changes(data_a[0][3], load_rubric())}  # H01's scores
    values.update(TEXTS)
    values["comments.1"] = "Items 6-8 overlap"
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "rater1")
    page.goto(f"{live_server.url}/scoring/")
    page.focus(f"a[href='/scoring/{code_for('rater1', response)}/']")
    page.keyboard.press("Enter")
    page.wait_for_selector("html[data-sheet-ready]")

    done, _tabs = score_by_keyboard(page, values, skip={"texts.purpose"})
    assert done == set(values) - {"texts.purpose"}  # every control was reachable by keyboard
    page.wait_for_selector("#summary[data-source=server]")
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    shown = [page.text_content(f"#total-step-{n}") for n in range(1, 7)]
    assert shown == ["24", "22", "30", "11", "4", "25"]
    assert page.text_content("#total-overall") == "116"
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater1")
    assert sheet.overall == 116 and sheet.status == "draft"

    # reload: the draft is there
    page.reload()
    page.wait_for_selector("html[data-sheet-ready]")
    assert page.input_value("#f-items-1-1-classification") == values["items.1.1.classification"]
    development = values["dims.s6.development"]
    assert page.is_checked(f"input[name='dims.s6.development'][value='{development}']")
    assert page.input_value("#f-texts-kvp") == TEXTS["texts.kvp"]
    assert page.text_content("#total-overall") == "116"
    assert page.text_content("[data-mirror='texts.kvp']") == TEXTS["texts.kvp"]  # shown above Step 6

    # submit: the missing Purpose is listed with a link that takes the keyboard there
    page.on("dialog", lambda dialog: dialog.accept())
    page.focus("#submit-sheet")
    page.keyboard.press("Enter")
    page.wait_for_selector("#banner[data-kind=incomplete]")
    link = page.locator("#banner-list a")
    assert link.count() == 1 and "Purpose" in link.text_content()
    link.focus()
    page.keyboard.press("Enter")
    assert page.evaluate(ACTIVE)["path"] == "texts.purpose"
    page.keyboard.type(TEXTS["texts.purpose"])
    page.focus("#submit-sheet")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_selector("text=read-only")
    assert page.is_disabled("#f-texts-purpose")
    sheet.refresh_from_db()
    assert sheet.status == "submitted" and sheet.overall == 116 and sheet.purpose == TEXTS["texts.purpose"]
    context.close()


def test_a_second_tab_gets_a_conflict_and_never_overwrites(live_server, demo, browser):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context()
    first, second = context.new_page(), context.new_page()
    login(first, live_server.url, "rater2")
    open_sheet(first, live_server.url, code_for("rater2", response))
    open_sheet(second, live_server.url, code_for("rater2", response))

    first.focus("input[name='dims.s2.focus'][value='1']")
    first.keyboard.press("7")
    first.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")

    second.focus("input[name='dims.s2.focus'][value='1']")
    second.keyboard.press("3")
    second.wait_for_selector("#banner[data-kind=conflict]")
    assert "changed elsewhere" in second.text_content("#banner")
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater2")
    assert _stored(sheet).dimensions["s2.focus"] == 7  # not overwritten

    second.click("#banner-reload")
    second.wait_for_selector("html[data-sheet-ready]")
    assert second.is_checked("input[name='dims.s2.focus'][value='7']")
    assert second.is_hidden("#banner")
    context.close()


def test_the_chinese_ui_renders_and_is_remembered(live_server, demo, browser):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "rater1")
    page.goto(f"{live_server.url}/scoring/")
    page.select_option("#language-select", "zh-hans")
    page.wait_for_selector("html[lang=zh-hans]")
    assert "我的评分队列" in page.text_content("h1")
    open_sheet(page, live_server.url, code_for("rater1", response))
    body = page.text_content("body")
    for text in ("第一步：识别挑战", "第六步：制定行动计划", "提交评分表", "总分", "情境"):
        assert text in body, text
    assert "第 1 步" in page.text_content("#summary")
    page.select_option("#f-items-1-1-classification", "Technology")
    page.wait_for_function("document.getElementById('save-status').textContent.includes('保存于')")
    context.close()
    # a new browser session comes back in Chinese (remembered on the profile)
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "rater1")
    page.goto(f"{live_server.url}/scoring/")
    assert page.get_attribute("html", "lang") == "zh-hans"
    context.close()


def test_unsaved_changes_of_a_stale_page_are_not_applied_over_newer_scores(live_server, demo, browser):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context()
    stale, fresh = context.new_page(), context.new_page()
    login(stale, live_server.url, "rater2")
    open_sheet(stale, live_server.url, code_for("rater2", response))
    stale.route("**/save/", lambda route: route.abort())  # this tab's saves never arrive
    stale.focus("input[name='dims.s2.focus'][value='1']")
    stale.keyboard.press("2")
    stale.wait_for_selector("#banner[data-kind=warn]:not([hidden])")

    open_sheet(fresh, live_server.url, code_for("rater2", response))
    fresh.focus("input[name='dims.s2.focus'][value='1']")
    fresh.keyboard.press("9")
    fresh.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")

    stale.unroute("**/save/")
    stale.reload()  # its kept change was made against an older version
    stale.wait_for_selector("#banner[data-kind=conflict]")
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater2")
    assert _stored(sheet).dimensions["s2.focus"] == 9
    stale.click("#banner-reload")
    stale.wait_for_selector("html[data-sheet-ready]")
    assert stale.is_hidden("#banner")
    assert stale.is_checked("input[name='dims.s2.focus'][value='9']")
    assert (
        stale.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('teamllm.draft.')).length")
        == 0
    )
    context.close()


TAB_STOPS = """() => {
  const form = document.getElementById("sheet-form");
  const stops = new Set();
  form.querySelectorAll("select, textarea, input, button").forEach(el => {
    if (el.disabled || el.tabIndex < 0 || el.closest("fieldset:disabled")) return;
    // a radio group is one stop
    stops.add(el.type === "radio" ? "radio:" + el.name : el.id || el.className);
  });
  return stops.size;
}"""


COMMENT_STOPS = """() => Array.from(document.getElementById("sheet-form").querySelectorAll("textarea, input, select"))
  .filter(el => !el.disabled && el.tabIndex >= 0 && /(^comments\\.|\\.comment$)/.test(el.dataset.path || el.name || ""))
  .map(el => el.dataset.path || el.name)"""


BUTTON_STOPS = """() => Array.from(document.getElementById("sheet-form").querySelectorAll("button"))
  .filter(el => !el.disabled && el.tabIndex >= 0).map(el => el.className || el.id)"""


def _scoring_controls(rubric) -> int:
    """The sheet's scoring controls from the rubric: per Step-1/3 item its category and item
    scores, per Step-4 criterion its scores, every Step-2 text and directly scored dimension."""
    n = 0
    for step in rubric.steps:
        if step.kind == "ideas":
            n += step.item_count * (1 + len(step.item_scores))
        elif step.kind == "criteria":
            n += step.item_count * len(step.item_scores)
        n += len(step.texts) + len(step.scored_dimensions)
    return n


def test_a_whole_sheet_by_keyboard_takes_one_tab_per_scoring_control(live_server, demo, data_a, browser):
    """Comments, level texts and guidelines are off the Tab path (Alt+C, Alt+L, Alt+G);
    every Tab lands on the next scoring control, and the sheet is submitted with
    Ctrl+Enter after Alt+N found the last empty field."""
    response = Response.objects.get(research_id="A05_FS10")
    values = {p: v for p, v in data_a_changes(data_a[0][4], load_rubric())}  # H02's scores
    values.update(TEXTS)
    values["items.3.2.comment"] = "close to solution 1"
    values["comments.4"] = "criterion 5 is vague"
    Response.objects.filter(pk=response.pk).update(implied_correctly_used=4)  # Step 5 offers "Use 4"
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    login(page, live_server.url, "rater2")
    open_sheet(page, live_server.url, code_for("rater2", response))
    done, tabs = score_by_keyboard(page, values, skip={"dims.s6.impact"})
    controls = page.evaluate(TAB_STOPS)
    # from the first control to past the last: one Tab per scoring control, nothing else
    assert tabs == controls, (tabs, controls)
    assert controls < 100 and done == set(values) - {"dims.s6.impact"}
    # counted apart from the page: no comment is a Tab stop, and the Tabs are at most the
    # rubric's scoring controls (a radio group is one; scores of an invalid item are disabled)
    assert page.evaluate(COMMENT_STOPS) == []
    # nor a button: Step 5's "Use n" is a click, the keyboard types the score (issue 42)
    assert page.evaluate(BUTTON_STOPS) == [] and page.locator("button.use-implied").count() == 1
    assert tabs <= _scoring_controls(load_rubric()), (tabs, _scoring_controls(load_rubric()))

    page.keyboard.press("Alt+n")  # the one empty field
    assert page.evaluate(ACTIVE)["path"] == "dims.s6.impact"
    page.keyboard.press("3")
    page.keyboard.press("Alt+k")  # the item before, in reading order
    assert page.evaluate(ACTIVE)["path"].startswith("dims.s6.")
    page.keyboard.press("Alt+j")
    assert page.evaluate(ACTIVE)["path"] == "dims.s6.impact"
    page.keyboard.press("?")
    assert page.is_visible("#keymap") and "Alt" in page.text_content("#keymap")
    page.keyboard.press("?")
    assert page.is_hidden("#keymap")
    page.on("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater2")
    assert sheet.status == "submitted" and sheet.totals["dimensions"]["s6.impact"] == 3
    assert sheet.comments.get("4") == "criterion 5 is vague"
    context.close()


def test_categories_are_picked_by_typing_in_chinese(live_server, demo, browser):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context()
    context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": live_server.url}])
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", response))
    page.focus("#f-items-1-1-classification")
    page.keyboard.type("kj")  # pinyin initials of 科技
    assert page.input_value("#f-items-1-1-classification") == "Technology"
    page.wait_for_timeout(1100)
    page.keyboard.type("environment")  # the English name works in Chinese too
    assert page.input_value("#f-items-1-1-classification") == "Environment"
    page.wait_for_timeout(1100)
    page.keyboard.type("iwh")  # i and the pinyin initials of 为何: Why, an invalid type
    assert page.input_value("#f-items-1-1-classification") == "invalid:why"
    page.wait_for_timeout(1100)
    page.keyboard.type("lj")  # Law & Justice by its initials
    assert page.input_value("#f-items-1-1-classification") == "Law & Justice"
    page.wait_for_function("document.getElementById('save-status').className.includes('save-saved')")
    context.close()


def test_the_first_scoring_control_is_a_few_keys_from_the_top_of_the_page(live_server, demo, browser):
    """From a freshly opened sheet: Alt+N lands on the first empty field, and the second
    skip link ("Skip to the scoring") leads past the header, the bar and the scenario:
    Tab, Tab, Enter, Tab reach the first scoring control (it took 19 Tabs without it)."""
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", response))
    page.keyboard.press("Alt+n")
    assert page.evaluate(ACTIVE)["path"] == "items.1.1.classification"
    open_sheet(page, live_server.url, code_for("rater1", response))
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == "#sheet-form"
    assert page.is_visible("a.skip-link[href='#sheet-form']")  # shown while it has the focus
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE)["path"] == "items.1.1.classification"
    box = page.locator("#f-items-1-1-classification").bounding_box()
    bar = page.locator("#summary").bounding_box()
    assert box["y"] >= bar["y"] + bar["height"] - 1 and box["y"] + box["height"] <= 768  # in view
    context.close()


def test_alt_v_puts_the_text_selected_in_the_response_into_a_copied_text(live_server, demo, browser):
    """Issue 42: Step 2's texts had to be retyped from the response."""
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", response))
    chosen = page.evaluate(
        """() => {
          const text = document.querySelector("#step-2 .answer-text");
          const node = text.firstChild;
          const range = document.createRange();
          range.setStart(node, 0);
          range.setEnd(node, Math.min(40, node.length));
          const sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
          return sel.toString().trim();
        }"""
    )
    assert len(chosen) > 10
    page.focus("#f-texts-kvp")
    page.keyboard.press("Alt+v")
    assert page.input_value("#f-texts-kvp") == chosen
    page.wait_for_function("document.getElementById('save-status').className.includes('save-saved')")
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater1")
    assert sheet_entries_get(sheet=sheet, rubric=load_rubric()).texts["kvp"] == chosen
    page.focus("#f-items-1-1-classification")
    page.keyboard.press("Alt+v")  # nothing happens outside a copied text
    assert page.input_value("#f-items-1-1-classification") == ""
    context.close()
