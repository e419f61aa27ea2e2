"""A method an endpoint does not take (issue 36, hostile pass 15, finding 8): ninja answered
405 with the text "Method not allowed" to anyone, so an anonymous caller learnt which
addresses are endpoints. Now the answer is JSON with ``Allow``, and 401 to an anonymous
caller whatever the method, as on an address that is no endpoint."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from api.services.tokens import token_create

pytestmark = pytest.mark.django_db

WRONG = ("delete", "put", "patch", "post")


@pytest.mark.parametrize("method", WRONG)
def test_a_wrong_method_answers_json_with_what_is_allowed(demo, method):
    owner = get_user_model().objects.get(username="researcher")
    token = token_create(user=owner, name="m", scope="read", days=1).plain
    answer = getattr(Client(), method)("/api/v1/studies", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert answer.status_code == 405 and answer["Content-Type"] == "application/json"
    assert answer["Allow"] == "GET"
    assert answer.json()["detail"] == f"Method {method.upper()} not allowed here; use GET."


@pytest.mark.parametrize("method", WRONG)
def test_an_anonymous_caller_gets_401_on_an_endpoint_as_on_a_made_up_address(demo, method):
    real = getattr(Client(), method)("/api/v1/studies")
    made_up = getattr(Client(), method)("/api/v1/no-such-thing")
    assert real.status_code == made_up.status_code == 401
    assert real.json() == made_up.json()


def test_a_session_caller_gets_the_json_405_too(demo):
    client = Client()
    client.force_login(get_user_model().objects.get(username="researcher"))
    answer = client.delete("/api/v1/studies")
    assert answer.status_code == 405 and answer.json()["detail"].endswith("use GET.")


def test_pages_outside_the_api_keep_their_own_405(demo):
    client = Client()
    client.force_login(get_user_model().objects.get(username="researcher"))
    answer = client.delete("/research/")
    assert answer.status_code == 405 and answer["Content-Type"].startswith("text/html")
