"""Issue 36, finding 10: who reaches what on the API. An anonymous POST answers 401 JSON (it
answered 403 "CSRF check failed"); the OpenAPI schema opens with a token (it redirected to
the login page); an export job is seen by its owner and admins only (every researcher saw
every job), on the research page and on the API."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from api.services.tokens import token_create
from core.accounts.roles import RESEARCHER
from research.models import ExportJob
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _user(name: str):
    return get_user_model().objects.get(username=name)


def _bearer(user, scope: str = "read") -> Client:
    token = token_create(user=user, name="t", scope=scope, days=1)
    return Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")


@pytest.mark.parametrize(
    "path", ["/api/v1/exports", "/api/v1/generation/batches", "/api/v1/studies/1/responses/import"]
)
def test_an_anonymous_post_is_401_json_not_a_csrf_refusal(demo, path):
    client = Client(enforce_csrf_checks=True)
    reply = client.post(path, json.dumps({"study": 1}), content_type="application/json")
    assert reply.status_code == 401 and reply["Content-Type"].startswith("application/json")
    assert "authentication required" in reply.json()["detail"]


def test_a_logged_in_session_still_needs_its_csrf_token_to_write(demo):
    client = Client(enforce_csrf_checks=True)
    client.force_login(_user("researcher"))
    reply = client.post(
        "/api/v1/exports", json.dumps({"study": demo.study.pk}), content_type="application/json"
    )
    assert reply.status_code == 403 and not ExportJob.objects.exists()


@pytest.mark.parametrize("path", ["/api/v1/openapi.json", "/api/v1/docs"])
def test_the_schema_and_docs_open_with_a_token(demo, path):
    reply = _bearer(_user("researcher")).get(path)
    assert reply.status_code == 200
    if path.endswith(".json"):
        assert "/api/v1/studies/{study_id}/items" in reply.json()["paths"]
    bad = Client(HTTP_AUTHORIZATION="Bearer tlm_not-a-token").get(path)
    assert bad.status_code == 401 and bad.json()["detail"] == "unknown token"
    anonymous = Client().get(path)
    if path.endswith(".json"):  # a client's address: 401 JSON (hostile pass 13), as every endpoint
        assert anonymous.status_code == 401 and anonymous.json()["detail"].startswith(
            "authentication required"
        )
    else:  # the docs page, a browser's: the login page
        assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    rater = Client()
    rater.force_login(_user("rater1"))
    assert rater.get(path).status_code == 403


def test_an_export_job_is_seen_by_its_owner_and_admins_only(demo):
    owner, other = _user("researcher"), UserFactory(username="other-researcher", role=RESEARCHER)
    job = ExportJob.objects.create(kind="results", created_by=owner, params={"study_id": demo.study.pk})
    for user, seen in ((owner, True), (_user("admin"), True), (other, False)):
        page = Client()
        page.force_login(user)
        assert (page.get(f"/research/exports/{job.pk}/").status_code == 200) is seen, user
        assert page.get(f"/research/exports/{job.pk}/download").status_code == 404  # not done: none
        api = _bearer(user)
        assert (api.get(f"/api/v1/exports/{job.pk}").status_code == 200) is seen, user
    hidden = Client()
    hidden.force_login(other)
    assert hidden.get(f"/research/exports/{job.pk}/").status_code == 404


@pytest.mark.parametrize(
    "path", ["/api/v1/nope", "/api/v1/studies/1/nothing", "/api/v1/", "/api/v1/../admin"]
)
def test_no_address_under_the_api_tells_an_anonymous_caller_whether_it_exists(demo, path):
    """Hostile pass 13, finding 8: addresses that were no endpoint answered a 404 page, real ones
    401 JSON, so an anonymous caller could list the endpoints. Now both answer the same 401."""
    real = Client().get("/api/v1/studies")
    reply = Client().get(path)
    if reply.status_code in (301, 302):  # normalised away from /api/v1/ by the client: not the API's
        return
    assert (reply.status_code, reply.json()) == (real.status_code, real.json())
    signed_in = _bearer(_user("researcher")).get("/api/v1/nope")
    assert signed_in.status_code == 404 and signed_in.json() == {"detail": "Not Found"}


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
@pytest.mark.parametrize("path", ["/api/v1/", "/api/v1/nope", "/api/v1/studies/%2e%2e/"])
def test_any_method_on_an_address_that_is_no_endpoint_is_401_json(demo, method, path):
    """Hostile pass 15 (F8): a write method there met Django's CSRF page (403 HTML)."""
    reply = getattr(Client(enforce_csrf_checks=True), method)(path, "{}", content_type="application/json")
    assert reply.status_code == 401 and reply["Content-Type"].startswith("application/json")


def test_no_answer_of_the_api_is_kept_by_a_cache(demo):
    """Hostile pass 24: the API's JSON carried no Cache-Control (pages and downloads did)."""
    client = _bearer(_user("researcher"))
    study = demo.study.pk
    answers = [
        client.get(f"/api/v1/studies/{study}/items"),
        client.get("/api/v1/studies"),
        Client().get("/api/v1/studies"),  # 401
        client.delete("/api/v1/studies"),  # 405
        client.get("/api/v1/no-such-endpoint"),  # 404
    ]
    assert [answer.status_code for answer in answers] == [200, 200, 401, 405, 404]
    for answer in answers:
        directives = {part.strip() for part in answer["Cache-Control"].split(",")}
        assert {"no-store", "private"} <= directives, answer.request["PATH_INFO"]
    tokens_page = Client()
    tokens_page.force_login(_user("researcher"))
    assert "no-store" in tokens_page.get("/api/tokens/")["Cache-Control"]  # a page: never_cache as all


@pytest.mark.parametrize("study", [True, "STUDY", 1.0])
def test_a_body_of_other_json_types_than_documented_is_refused(demo, study):
    """Hostile pass 24: {"study": true} and {"study": "1"} started an export of study 1."""
    client = _bearer(_user("researcher"), scope="write")
    value = str(demo.study.pk) if study == "STUDY" else study
    reply = client.post("/api/v1/exports", json.dumps({"study": value}), content_type="application/json")
    assert reply.status_code == 422 and "study" in json.dumps(reply.json())
    assert not ExportJob.objects.exists()
    good = client.post(
        "/api/v1/exports", json.dumps({"study": demo.study.pk}), content_type="application/json"
    )
    assert good.status_code == 201 and ExportJob.objects.count() == 1
