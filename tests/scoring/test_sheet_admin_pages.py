"""The admin's audit trail of a sheet, a page at a time (a hostile pass: a rater saving within the
ceiling for two minutes buried the sheet's first events behind the 500 the page showed, with no
word that any were left out). Every event stays reachable, newest first."""

import re

import pytest

from scoring.models import ScoreSheet, SheetEvent
from scoring.services.sheets import sheet_apply_changes
from scoring.views.assignments import SHEET_EVENTS_PER_PAGE
from studies.models import Response
from tests.factories import code_for, own_sheet_id

pytestmark = pytest.mark.django_db

SAVES = 2 * SHEET_EVENTS_PER_PAGE + 30


def _versions_shown(html: str) -> list[int]:
    """The version of each event row of the audit trail (its last two cells: version, note)."""
    trail = html.split("Audit trail", 1)[1]
    return [int(v) for v in re.findall(r'<td class="num">(\d+)</td><td>[^<]*</td></tr>', trail)]


def test_every_event_of_a_long_trail_is_on_a_page_and_the_count_is_said(client, demo):
    client.login(username="rater1", password="demo-pass-2026")
    sheet = ScoreSheet.objects.get(
        pk=own_sheet_id(client, code_for("rater1", Response.objects.get(research_id="A05_FS10")))
    )
    rater = sheet.assignment.rater
    version = sheet.version
    for n in range(SAVES):
        version = sheet_apply_changes(
            sheet_id=sheet.pk, actor=rater, changes=[("comments.1", f"save {n}")], expected_version=version
        ).version
    total = SheetEvent.objects.filter(sheet=sheet).count()
    assert total >= SAVES
    client.login(username="admin", password="demo-pass-2026")
    pages = -(-total // SHEET_EVENTS_PER_PAGE)
    shown: list[int] = []
    for number in range(1, pages + 1):
        html = client.get(f"/manage/sheets/{sheet.pk}/?page={number}").content.decode()
        assert f"Page {number} of {pages}" in html and f"{total} events, newest first" in html
        shown += _versions_shown(html)
    # newest first, each event once, the first one (the sheet's opening) on the last page
    expected = list(SheetEvent.objects.filter(sheet=sheet).order_by("-id").values_list("version", flat=True))
    assert shown == expected
    last = client.get(f"/manage/sheets/{sheet.pk}/?page={pages}").content.decode()
    assert 'rel="prev"' in last and 'rel="next"' not in last
    # a page past the end or not a number shows the last or the first page, never an error
    assert (
        _versions_shown(client.get(f"/manage/sheets/{sheet.pk}/?page=999").content.decode())
        == shown[(pages - 1) * SHEET_EVENTS_PER_PAGE :]
    )
    assert client.get(f"/manage/sheets/{sheet.pk}/?page=x").status_code == 200


def test_a_short_trail_says_its_count_without_pages(client, demo):
    client.login(username="rater1", password="demo-pass-2026")
    sheet = ScoreSheet.objects.get(
        pk=own_sheet_id(client, code_for("rater1", Response.objects.get(research_id="A05_FS10")))
    )
    sheet_apply_changes(
        sheet_id=sheet.pk, actor=sheet.assignment.rater, changes=[("comments.1", "a")], expected_version=0
    )
    total = SheetEvent.objects.filter(sheet=sheet).count()
    client.login(username="admin", password="demo-pass-2026")
    html = client.get(f"/manage/sheets/{sheet.pk}/").content.decode()
    label = f"{total} event, newest first" if total == 1 else f"{total} events, newest first"
    assert label in html and 'class="pages"' not in html
    assert len(_versions_shown(html)) == total
