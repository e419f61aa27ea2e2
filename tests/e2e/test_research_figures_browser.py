"""Issue 26, figures on the page: in Chromium, the research page of the demo study (with
data_A.json's scores imported) shows every figure inline beside its SVG and PNG links,
each preview a decoded image (not a broken one), each link naming the study shown; at
390 px the previews fit their card, in English and in Chinese."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import call_command

from research.figures import FIGURES
from tests.browser import SHOTS, login, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _previews(page) -> list[dict]:
    """Each figure preview once the browser has fetched and decoded it."""
    images = page.locator("figure.result-figure img")
    out = []
    for i in range(images.count()):
        img = images.nth(i)
        img.scroll_into_view_if_needed()  # the previews load lazily
        page.wait_for_function("(el) => el.complete", arg=img.element_handle())
        out.append(
            img.evaluate(
                "(el) => ({src: el.getAttribute('src'), width: el.naturalWidth, height: el.naturalHeight,"
                " shown: el.getBoundingClientRect().width, card: el.closest('.card').clientWidth})"
            )
        )
    return out


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_every_figure_is_previewed_beside_its_downloads(live_server, browser, demo, data_a, tmp_path, lang):
    scores = tmp_path / "data_A.json"
    scores.write_text(json.dumps(data_a, ensure_ascii=False), encoding="utf-8")
    call_command("import_scores", str(scores), "--study", demo.study.name)
    base = live_server.url
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page = context.new_page()
    login(page, base, "researcher")
    page.goto(f"{base}/research/?study={demo.study.pk}")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        previews = _previews(page)
        assert [p["src"].split("?")[0] for p in previews] == [f"/research/figures/{n}.svg" for n in FIGURES]
        for preview in previews:
            assert f"study={demo.study.pk}" in preview["src"]
            assert preview["width"] > 0 and preview["height"] > 0, preview  # decoded, not broken
            assert preview["shown"] <= preview["card"], preview  # fits its card
        links = page.locator("figure.result-figure figcaption a")
        hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
        assert len(hrefs) == 2 * len(FIGURES)
        assert all(f"study={demo.study.pk}" in h and "download=1" in h for h in hrefs)
        # each preview opens the figure at full size; its caption says what it shows, in the
        # page's language (not the internal name)
        opens = page.locator("figure.result-figure > a")
        assert [opens.nth(i).get_attribute("href") for i in range(opens.count())] == [
            p["src"] for p in previews
        ]
        captions = page.locator("figure.result-figure figcaption").all_inner_texts()
        assert not any(name in text for name, text in zip(FIGURES, captions, strict=True))
        if lang == "zh-hans":
            assert all(re.search("[\u4e00-\u9fff]", text) for text in captions), captions
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # Table 6's long metric labels (the PCC both ways, the ICC forms) wrap on a phone:
        # each row's before-calibration value stays inside its card, not scrolled away
        values = page.locator("table.table6 tbody tr td:nth-of-type(1)")
        assert values.count() == 4
        for i in range(values.count()):
            right, card = values.nth(i).evaluate(
                "(el) => [el.getBoundingClientRect().right, el.closest('.card').getBoundingClientRect().right]"
            )
            assert right <= card, (i, right, card)
        if SHOTS:
            page.locator("figure.result-figure").first.scroll_into_view_if_needed()
            shot(page, f"research-figures-{lang}-{width}", full_page=True)
    context.close()
