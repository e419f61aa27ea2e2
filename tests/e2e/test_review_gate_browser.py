"""The review gate in Chromium: a generated response waits on the held responses page;
the rater does not see it; the admin reads why it is held, releases it, and it is in the
rater's queue and opens as a sheet."""

from __future__ import annotations

import pytest

from studies.models import Condition, Response
from tests.a11y import axe_violations
from tests.browser import login, open_sheet, shot
from tests.factories import code_for, generated_response

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_releases_a_held_response_into_the_raters_queue(live_server, demo, browser):
    # condition A: the demo's pair rater1 + rater2; the study's responses need release (the default)
    held = generated_response(study=demo.study, model_number="61")
    assert held.held
    base = live_server.url
    errors: list[str] = []

    rater_context = browser.new_context()
    rater_page = rater_context.new_page()
    login(rater_page, base, "rater1")
    rater_page.goto(f"{base}/scoring/")
    assert held.blind_code not in rater_page.content()
    assert rater_page.goto(f"{base}/manage/responses/held/").status == 403

    admin = browser.new_context().new_page()
    admin.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    login(admin, base, "admin")
    admin.goto(f"{base}/manage/studies/{demo.study.pk}/")
    assert "1 held" in admin.text_content("#held-link")
    with admin.expect_navigation():
        admin.click("#held-link a")
    card = admin.locator(f"#held-{held.pk}")
    assert "The study holds every generated response until it is released." in card.text_content()
    assert "found, 2 rows" in card.text_content()
    with admin.expect_navigation():
        card.get_by_role("button", name="Release to raters").click()
    assert "2 raters of its scenario group's pair have it in their queue" in admin.text_content(".messages")
    assert admin.locator(f"#held-{held.pk}").count() == 0
    assert errors == []

    rater_page.goto(f"{base}/scoring/")
    code = code_for("rater1", held)  # the code of rater1's own assignment, made on release
    assert code in rater_page.content()
    open_sheet(rater_page, base, code)
    assert not Response.objects.get(pk=held.pk).held


def test_the_gates_pages_line_up_their_controls_and_numbers(live_server, demo, browser):
    """Found looking at the pages at 1366 px: the settings page's checkboxes ("Responses need
    release", "Active") sat in the middle of the form, far from their labels; the parse
    result's counts stood right-aligned under left-aligned headers, nearer the next column's."""
    held = generated_response(study=demo.study, model_number="61")
    base = live_server.url
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    login(page, base, "admin")

    page.goto(f"{base}/manage/studies/{demo.study.pk}/settings/")
    for name in ("responses_need_release", "is_active"):
        box = page.locator(f"#id_{name}").bounding_box()
        label = page.locator(f"label[for=id_{name}]").bounding_box()
        assert box and label and box["width"] < 40 and abs(box["x"] - label["x"]) < 8, (name, box, label)

    page.goto(f"{base}/manage/responses/held/")
    table = page.locator(f"#held-{held.pk} table.parse-result")
    for column in (1, 2, 3):
        header = table.locator(f"thead th:nth-child({column})").bounding_box()
        cell = table.locator(f"tbody td:nth-child({column})").bounding_box()
        number = table.locator(f"tbody td:nth-child({column})").evaluate(
            "td => { const r = document.createRange(); r.selectNodeContents(td); return r.getBoundingClientRect().right; }"
        )
        header_text = table.locator(f"thead th:nth-child({column})").evaluate(
            "th => { const r = document.createRange(); r.selectNodeContents(th); return r.getBoundingClientRect().right; }"
        )
        assert header and cell and abs(number - header_text) < 4, (column, number, header_text)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("width", [1366, 390])
def test_an_admin_sees_the_names_that_break_the_blind_redacts_and_releases(
    live_server, demo, browser, language, width
):
    """Issue 36, finding 8: the highlights are the server's spans; redacting makes the text
    raters then read; releasing sends that text, never the names, to the pair."""
    from scoring.models import Assignment
    from studies.blind_text import blind_spans
    from studies.selectors import study_blind_terms
    from studies.services.responses import response_create
    from tests.factories import SAMPLE_ANSWERS, ModelEndpointFactory

    answers = list(SAMPLE_ANSWERS)
    answers[1] = (
        "As the Environmentalist, I frame it.\nPlant: agreed.\n[Reply · Step 2 · Moderator]\n" + answers[1]
    )
    study = demo.study
    study.response_language = "en"
    study.save()
    held = response_create(
        study=study,
        scenario=study.scenarios.get(code="FS10"),
        model=ModelEndpointFactory(model_number="62"),
        condition=Condition.objects.get(letter="A"),
        answers=answers,
        source="imported",
    )
    terms = study_blind_terms(study=study, model=held.model, condition=held.condition)
    expected = [held.shown_answer(2)[s.start : s.end] for s in blind_spans(held.shown_answer(2), terms)]
    assert expected == ["Environmentalist", "Plant", "Moderator"]

    base = live_server.url
    # the phone in the dark scheme, the desktop in the light one: the marks read in both
    scheme = "dark" if width < 800 else "light"
    context = browser.new_context(
        viewport={"width": width, "height": 800}, locale=language, color_scheme=scheme
    )
    admin = context.new_page()
    errors: list[str] = []
    admin.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    login(admin, base, "admin")
    admin.goto(f"{base}/manage/responses/held/?study={study.pk}")
    card = admin.locator(f"#held-{held.pk}")
    marks = card.locator("mark.blind-name")
    assert marks.all_text_contents() == expected  # what the page marks is what the server found
    assert marks.first.is_visible()  # the text is open when it names something
    assert admin.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert axe_violations(admin) == []
    shot(card, f"held-names-{language}-{width}")  # for a look by eye

    card.locator("input[name=words]").fill("frame")
    with admin.expect_navigation():
        card.locator(".redact-form button[type=submit]").click()
    held.refresh_from_db()
    assert held.step2.startswith(
        "As the [redacted], I [redacted] it.\n[redacted]: agreed.\n[Reply · Step 2 · [redacted]]"
    )
    card = admin.locator(f"#held-{held.pk}")
    assert card.locator("mark.blind-name").count() == 0
    assert card.locator(".redacted-note").is_visible()
    assert card.locator(".hold-reasons-none").is_visible()  # its only reason was the names
    assert admin.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert axe_violations(admin) == []
    shot(admin, f"held-redacted-{language}-{width}", full_page=True)

    with admin.expect_navigation():
        card.locator("form[action$='/release/'] button[type=submit]").click()
    assert errors == []
    rater = browser.new_context().new_page()
    login(rater, base, "rater1")
    code = Assignment.objects.get(response=held, rater__username="rater1").blind_code
    open_sheet(rater, base, code)
    text = rater.text_content("body") or ""
    assert "[redacted]" in text
    assert not any(name in text for name in ("Environmentalist", "Moderator", "Plant:"))


def test_an_admin_releases_and_withdraws_several_at_once(live_server, demo, browser):
    """Issue 40: the held responses page's filters, its box that ticks the whole page, the count
    of ticked responses, the question before acting on every matching one, and the bulk actions,
    checked against what the database holds afterwards."""
    held = [generated_response(study=demo.study, model_number=f"{n}") for n in range(61, 66)]
    base = live_server.url
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    login(page, base, "admin")
    page.goto(f"{base}/manage/responses/held/")
    page.select_option("#id_study", str(demo.study.pk))
    with page.expect_navigation():
        page.click("form.list-filters button[type=submit]")
    assert f"study={demo.study.pk}" in page.url
    listed = page.locator("article.held-response").count()
    assert listed == Response.objects.filter(study=demo.study, held=True).count() == 5
    page.check("[data-tick-all]")
    assert page.text_content("[data-ticked-count]") == f"{listed} ticked"
    page.uncheck(f"#tick-{held[0].pk}")
    assert page.text_content("[data-ticked-count]") == f"{listed - 1} ticked"
    assert not page.is_checked("[data-tick-all]")
    with page.expect_navigation():
        page.locator("#bulk-form button[value=release]").click()
    assert "4 responses released; 8 assignments made for raters." in page.text_content(".messages")
    assert f"study={demo.study.pk}" in page.url  # the filters kept
    assert [r.pk for r in Response.objects.filter(pk__in=[r.pk for r in held], held=True)] == [held[0].pk]

    questions: list[str] = []
    answer = {"accept": False}
    page.on(
        "dialog", lambda d: (questions.append(d.message), d.accept() if answer["accept"] else d.dismiss())
    )
    page.check("input[name=scope][value=matching]")
    page.fill("#withdraw-reason", "mock answer")
    page.locator("#bulk-form button[value=withdraw]").click()  # dismissed: nothing is sent
    assert questions == ["This acts on 1 held response that matches the filters, on every page. Go on?"]
    assert Response.objects.get(pk=held[0].pk).status != "withdrawn"
    answer["accept"] = True
    with page.expect_navigation():
        page.locator("#bulk-form button[value=withdraw]").click()
    assert "1 response withdrawn" in page.text_content(".messages")
    assert Response.objects.get(pk=held[0].pk).status == "withdrawn"
    assert page.text_content("#no-held").strip() == "No held response matches these filters."
    assert errors == []


def test_an_admin_renews_expired_invitation_links_at_once(live_server, demo, browser):
    """Issue 40: the invitations table's boxes, the count, the question before renewing every
    expired link, and the links page that follows, against the invitations stored."""
    from datetime import timedelta

    from django.utils import timezone

    from onboarding.csv_files import invitees_from_csv
    from onboarding.models import Invitation
    from onboarding.services import raters_invite

    csv = b"username,name,email,language,roles\n" + b"".join(
        f"{u},{u.title()},{u}@lab.example.org,en,rater\n".encode() for u in ("ann", "bo", "cy")
    )
    raters_invite(
        study=demo.study,
        invitees=invitees_from_csv(csv),
        actor=None,
        link_for=lambda u, t: f"/{u}/{t}",
        email=False,
    )
    long_ago = timezone.now() - timedelta(days=30)
    Invitation.objects.filter(user__username__in=["ann", "bo"]).update(last_link_at=long_ago)
    cy_link = Invitation.objects.get(user__username="cy").last_link_at
    base = live_server.url
    page = browser.new_context().new_page()
    login(page, base, "admin")
    page.goto(f"{base}/manage/studies/{demo.study.pk}/invite/")
    ticks = page.locator("#invitations input.tick")
    assert ticks.count() == Invitation.objects.filter(study=demo.study, accepted_at__isnull=True).count()
    page.check("#renew-form [data-tick-all]")
    assert page.text_content("#renew-form [data-ticked-count]") == f"{ticks.count()} ticked"
    page.uncheck("#renew-form [data-tick-all]")
    assert page.text_content("#renew-form [data-ticked-count]") == "none ticked"
    page.check("input[name=scope][value=expired]")
    page.once("dialog", lambda d: d.accept())
    with page.expect_navigation():
        page.click("#renew-form button[type=submit]")
    rows = page.locator("#links tbody tr")
    assert [rows.nth(i).get_attribute("data-username") for i in range(rows.count())] == ["ann", "bo"]
    assert Invitation.objects.filter(user__username__in=["ann", "bo"], last_link_at__gt=long_ago).count() == 2
    assert Invitation.objects.get(user__username="cy").last_link_at == cy_link  # never expired: untouched


def _auto_assign_page(base: str, demo, browser):
    """The automatic assignment page as the admin sees it with the demo study chosen."""
    page = browser.new_context().new_page()
    login(page, base, "admin")
    page.goto(f"{base}/manage/assignments/auto/")
    # the study's choices arrive by htmx: wait for that answer and its swap, not for a box the
    # first page may already hold (ticked before the swap, it would be replaced unticked)
    with page.expect_response(lambda r: r.request.headers.get("hx-request") == "true"):
        page.select_option("#id_study", str(demo.study.pk))
    page.wait_for_function("!document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")
    page.wait_for_selector('[data-tick-all="conditions"]')
    return page


def test_the_assignment_forms_tick_every_scenario_condition_and_rater(live_server, demo, browser):
    """Issue 40: at a full study's size (100 scenarios, 200 raters) the automatic assignment form
    needs a box that ticks every one; it works on the choices htmx swaps in with the study."""
    page = _auto_assign_page(live_server.url, demo, browser)
    for name in ("scenarios", "conditions", "raters"):
        boxes = page.locator(f'input[type=checkbox][name="{name}"]')
        page.check(f'[data-tick-all="{name}"]')
        assert boxes.count() > 0
        assert all(boxes.nth(i).is_checked() for i in range(boxes.count())), name
    page.uncheck('input[name="conditions"] >> nth=0')
    assert not page.is_checked('[data-tick-all="conditions"]')
    checked = page.locator('input[name="conditions"]:checked').count()
    assert checked == Condition.objects.count() - 1


def test_a_long_action_says_it_is_working_and_cannot_be_sent_twice(live_server, demo, browser):
    """Issue 40: applying an assignment plan (seconds at a full study's size) shows a note while
    the server works and disables the buttons, so a second press sends nothing. The page's first
    submit is stopped here (after the page's own handler ran) so that the note can be read."""
    from scoring.models import ScoringGroup

    page = _auto_assign_page(live_server.url, demo, browser)
    for name in ("scenarios", "conditions", "raters"):
        page.check(f'[data-tick-all="{name}"]')
    with page.expect_navigation():
        page.click("text=Show the plan")
    apply_form = "form[action$='/auto/apply/']"
    page.evaluate(
        """(selector) => {
            window.submits = 0;
            document.querySelector(selector).addEventListener("submit", (event) => {
                window.submits += 1;
                event.preventDefault();
            });
        }""",
        apply_form,
    )
    before = ScoringGroup.objects.filter(study=demo.study, archived_at__isnull=True).count()
    page.click("text=Apply this plan")
    note = page.locator(f"{apply_form} [data-busy]")
    assert note.is_visible()
    assert (
        note.text_content()
        == "Working… every assignment is made and audited; this page reloads when it is done."
    )
    assert page.get_attribute(apply_form, "aria-busy") == "true"
    page.wait_for_function(f'() => document.querySelector("{apply_form} button").disabled')
    page.click("text=Apply this plan", force=True)  # a second press: the button is disabled
    assert page.evaluate("window.submits") == 1
    assert ScoringGroup.objects.filter(study=demo.study, archived_at__isnull=True).count() == before
    with page.expect_navigation():
        page.evaluate("(selector) => document.querySelector(selector).submit()", apply_form)
    groups = ScoringGroup.objects.filter(study=demo.study, archived_at__isnull=True).count()
    assert groups > before
    assert (
        page.text_content(".messages").strip() == f"Plan applied: {groups - before} scenario groups assigned."
    )
