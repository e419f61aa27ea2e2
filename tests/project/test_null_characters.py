"""A NUL (%00) in a URL's path or query answers 400, never a 500 (PostgreSQL refuses NUL in
a text lookup): the addresses a hostile rater, calibrator and researcher tried (issue 36)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from api.services.tokens import token_create
from studies.models import Study

PAGES = {
    "rater1": [
        ("get", "/scoring/%00/"),
        ("post", "/scoring/%00/save/"),
        ("post", "/scoring/%00/submit/"),
        ("post", "/scoring/%00/time/"),
        ("post", "/scoring/%00/flag/"),
        ("get", "/training/%00/"),
        ("get", "/training/%00/feedback/"),
        ("post", "/training/%00/save/"),
        ("post", "/training/%00/submit/"),
        ("post", "/training/%00/again/"),
        ("get", "/scoring/?q=%00"),
    ],
    "calibrator": [("get", "/calibration/%00/")],
    "researcher": [("get", "/research/?study=%00")],
}


@pytest.mark.parametrize("username", sorted(PAGES))
def test_pages_answer_400_to_a_nul(demo, username):
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    for method, url in PAGES[username]:
        response = getattr(client, method)(url)
        assert response.status_code == 400, (url, response.status_code)
        assert b'id="bad-request-reason"' in response.content and b"Nothing was changed" in response.content


def test_api_answers_400_json_to_a_nul(demo):
    study = Study.objects.get(name="CGPST demo").pk
    token = token_create(
        user=get_user_model().objects.get(username="researcher"), name="t", scope="read", days=1
    )
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")
    for url in (
        f"/api/v1/studies/{study}/responses?status=%00",
        f"/api/v1/studies/{study}/final-scores?conditions=%00",
        f"/api/v1/studies/{study}/final-scores?models=%00",
        "/api/v1/studies/%00/responses",
    ):
        response = client.get(url)
        assert response.status_code == 400, (url, response.status_code)
        assert "NUL character" in response.json()["detail"]
    # the same addresses without the NUL are served
    assert client.get(f"/api/v1/studies/{study}/responses?status=submitted").status_code in (200, 422)
