"""The accessibility gate: axe-core on every page a rater or a calibrator reaches, in
light and dark (prefers-color-scheme), English and Chinese, at 1366 and 390 px wide (the four
looks of ``tests.a11y.LOOKS`` hold every pair of those values). Any serious or critical
violation fails; so does a page wider than the window."""

import pytest

from calibration.services.calibration import response_scores_recompute
from scoring.models import Assignment
from tests.a11y import LOOKS, axe_violations
from tests.browser import PASSWORD, login, shot
from tests.calibration.test_calibration_views import flagged  # noqa: F401  (fixture: A05_FS10 sent to calibrator)
from tests.factories import rater, reference_changes, sheet_submitted
from tests.training.conftest import gold, scored_demo  # noqa: F401  (fixtures)
from training.services.training_set import training_enroll

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDER = "() => document.documentElement.scrollWidth - window.innerWidth"
# the outermost elements that stick out on the right, to say what made a page too wide
STICKING_OUT = """() => Array.from(document.querySelectorAll("body *")).filter(el => {
  const r = el.getBoundingClientRect(), p = el.parentElement.getBoundingClientRect();
  return r.right > window.innerWidth + 1 && p.right <= window.innerWidth + 1;
}).slice(0, 4).map(el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + el.className)"""


def _check(page, url: str, name: str, problems: list[str]) -> None:
    page.goto(url)
    page.wait_for_load_state("load")  # the deferred scripts have run
    found = axe_violations(page)
    problems.extend(f"{name}: {line}" for line in found)
    overflow = page.evaluate(WIDER)
    if overflow > 1:
        problems.append(
            f"{name}: the page is {overflow} px wider than the window: {page.evaluate(STICKING_OUT)}"
        )
    shot(page, name)


def _shot_of(page, selector: str, name: str) -> None:
    """A second look, scrolled to a part of the page further down (the item tables)."""
    page.locator(selector).first.scroll_into_view_if_needed()
    page.evaluate("s => document.querySelector(s).scrollIntoView({block: 'start'})", selector)
    shot(page, name)


@pytest.mark.parametrize(("lang", "scheme", "width"), LOOKS)
def test_rater_and_calibrator_pages_pass_axe(live_server, flagged, browser, width, scheme, lang):  # noqa: F811
    response, calibration, users = flagged
    code, base = calibration.blind_code, live_server.url
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 800 else 768}, color_scheme=scheme
    )
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page = context.new_page()
    tag = f"{lang}-{scheme}-{width}"
    problems: list[str] = []

    login(page, base, "calibrator")
    _check(page, f"{base}/scoring/", f"queue-{tag}", problems)
    _check(page, f"{base}/scoring/{code}/", f"sheet-{tag}", problems)
    page.click("#submit-sheet")  # the list of what is missing, in the bar
    page.wait_for_selector("#banner[data-kind=incomplete]:not([hidden])")
    problems.extend(f"sheet-missing-{tag}: {line}" for line in axe_violations(page))
    shot(page, f"sheet-missing-{tag}")
    _check(page, f"{base}/calibration/", f"calibrations-{tag}", problems)

    sheet_submitted(users["calibrator"], response, reference_changes(4), assignment=calibration)
    response_scores_recompute(response_id=response.pk)
    _check(page, f"{base}/scoring/{code}/", f"sheet-submitted-{tag}", problems)
    _check(page, f"{base}/scoring/", f"queue-calibrated-{tag}", problems)  # "Compare the three sheets"
    _check(page, f"{base}/calibration/{code}/", f"comparison-{tag}", problems)
    _shot_of(page, "#cmp-step-1", f"comparison-items-{tag}")
    _check(page, f"{base}/scoring/workbooks/", f"workbooks-{tag}", problems)
    context.clear_cookies()
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])

    login(page, base, "rater1")
    _check(page, f"{base}/scoring/", f"queue-done-{tag}", problems)
    context.close()
    assert not problems, "\n".join(problems)


def _modes(browser, base: str, username: str):
    """A logged-in page in each of the four looks, with its tag."""
    for lang, scheme, width in LOOKS:
        context = browser.new_context(
            viewport={"width": width, "height": 844 if width < 800 else 768}, color_scheme=scheme
        )
        context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
        page = context.new_page()
        login(page, base, username)
        yield page, f"{lang}-{scheme}-{width}"
        context.close()


def test_training_pages_pass_axe(live_server, gold, browser):  # noqa: F811
    trainee = rater("trainee", "H09")
    trainee.set_password(PASSWORD)
    trainee.save()
    base = live_server.url
    problems: list[str] = []
    for page, tag in _modes(browser, base, "trainee"):
        _check(page, f"{base}/scoring/", f"queue-next-step-{tag}", problems)  # "Your next step: the training"
        _check(page, f"{base}/training/", f"training-home-{tag}", problems)
    training_enroll(rater=trainee, study=gold.study)
    assignment = Assignment.objects.get(rater=trainee, role="training")
    code = assignment.blind_code
    for page, tag in _modes(browser, base, "trainee"):
        _check(page, f"{base}/training/{code}/", f"training-sheet-{tag}", problems)
    sheet_submitted(trainee, gold.response, reference_changes(4), assignment=assignment)
    for page, tag in _modes(browser, base, "trainee"):
        _check(page, f"{base}/training/", f"training-home-enrolled-{tag}", problems)
        _check(page, f"{base}/training/{code}/feedback/", f"training-feedback-{tag}", problems)
        _shot_of(page, "#training-items", f"training-feedback-items-{tag}")
    assert not problems, "\n".join(problems)
