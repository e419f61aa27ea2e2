"""In Chromium, the Chinese results page shows its figures drawn in Chinese: every figure
image loads, and the figure's own words are the page's language. Screenshots of the page and
of a figure where TEST_SHOTS names a folder (``tests.browser.shot``)."""

from pathlib import Path

import pytest

from tests.browser import SHOTS, login, shot
from tests.paper_table4 import load_table4

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_chinese_results_page_shows_figures_drawn_in_chinese(live_server, demo, browser):
    study = load_table4()
    base = live_server.url
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": base}])
    page = context.new_page()
    login(page, base, "researcher")
    page.goto(f"{base}/research/?study={study.pk}&a=A&b=B")
    figures = page.locator("img[src*='/research/figures/']")
    assert figures.count() >= 5
    figures.last.scroll_into_view_if_needed()
    page.wait_for_function(
        """() => [...document.querySelectorAll("img[src*='/research/figures/']")]
                 .every(img => img.complete && img.naturalWidth > 0)""",
        timeout=60_000,
    )  # lazy images: each figure drawn and loaded
    shot(page, "research-figures-zh-1366", full_page=True)
    svg = page.request.get(f"{base}/research/figures/ablation.svg?study={study.pk}").text()
    assert "总分：TeamLLM、无角色 TeamLLM 与基线" in svg and "平均分" in svg and "Overall score" not in svg
    png = page.request.get(f"{base}/research/figures/ablation.png?study={study.pk}")
    assert png.ok and png.body().startswith(b"\x89PNG")
    if SHOTS:
        (Path(SHOTS) / "figure-ablation-zh.png").write_bytes(png.body())
    context.close()
