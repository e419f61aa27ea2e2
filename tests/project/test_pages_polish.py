"""Small things a new user notices: plural forms, no "---------" choices, Table 6 to
three places like the other PCC tables, and styled error pages with the way back."""

import re

import pytest
from django.test import RequestFactory
from django.views.defaults import server_error

from calibration.services.calibration import response_scores_recompute
from scoring.models import ScoringGroup
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import mirrored_changes, reference_changes, sheet_submitted

pytestmark = pytest.mark.django_db


def _login(client, username):
    assert client.login(username=username, password="demo-pass-2026")


def test_counts_use_plural_forms(client, demo):
    _login(client, "admin")
    html = client.get("/manage/").content.decode()
    n = Response.objects.count()
    assert n == 1
    assert re.search(r'stat-n">1</span>\s*response\s*</div>', html), html
    assert "1</span> responses" not in html
    _login(client, "rater1")
    assert "0 of 1 sheet submitted" in client.get("/scoring/").content.decode()


def test_no_choice_shows_dashes(client, demo):
    _login(client, "admin")
    for url in ["/manage/assignments/", "/manage/assignments/auto/", "/research/", "/manage/generation/"]:
        page = client.get(url)
        assert page.status_code == 200, url
        assert "---------" not in page.content.decode(), url
    # with one study it is preselected on the assignment form
    html = client.get("/manage/assignments/").content.decode()
    assert re.search(r'<option value="\d+" selected>CGPST demo</option>', html)


def test_table6_rounds_pcc_to_three_places(client, demo, django_user_model):
    users = {u.username: u for u in django_user_model.objects.all()}
    response = Response.objects.get(research_id="A05_FS10")
    group = ScoringGroup.objects.get(
        study=response.study, scenario=response.scenario, condition=response.condition
    )
    sheet_submitted(users["rater1"], response, reference_changes(3), group=group)
    sheet_submitted(
        users["rater2"], response, mirrored_changes(reference_changes(3), load_rubric()), group=group
    )
    response_scores_recompute(response_id=response.pk)
    _login(client, "researcher")
    html = client.get("/research/agreement/").content.decode()
    table6 = html.split('id="table6"', 1)[1].split("</table>", 1)[0]
    row = table6.split(">PCC (", 1)[1].split("</tr>", 1)[0]
    values = re.findall(r'class="num">([^<]+)</td>', row)
    assert re.fullmatch(r"-?\d\.\d{3}", values[0].strip()), values


def test_error_pages_are_styled_and_lead_back(client, demo):
    _login(client, "rater1")
    missing = client.get("/scoring/NOSUCHCODE/")
    assert missing.status_code == 404
    html = missing.content.decode()
    assert "css/app.css" in html and "Page not found" in html and 'href="/"' in html
    forbidden = client.get("/manage/")
    assert forbidden.status_code == 403
    html = forbidden.content.decode()
    assert "css/app.css" in html and "You cannot open this page" in html and "Go to your start page" in html
    broken = server_error(RequestFactory().get("/"))
    assert broken.status_code == 500
    html = broken.content.decode()
    assert "css/app.css" in html and "Go to your start page" in html and 'href="/"' in html


def test_every_page_names_an_icon_that_is_served(client, demo):
    """Without an icon link browsers fetch /favicon.ico, a 404 in every page's console."""
    for username, url in (("rater1", "/scoring/"), ("admin", "/manage/"), (None, "/accounts/login/")):
        if username:
            _login(client, username)
        html = client.get(url).content.decode()
        icon = re.search(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)"', html)
        assert icon, url
        served = client.get(icon.group(1))
        assert served.status_code == 200 and b"<svg" in b"".join(served.streaming_content), url
        client.logout()
