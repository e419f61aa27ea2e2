"""The API serves a single-text study's response as its one text (``text``, no ``steps``),
says which kind a study is (``task_kind``), and documents both in its OpenAPI description; a
CGPST study's responses are served as they always were."""

from __future__ import annotations

import pytest

from tests.factories import SINGLE_TEXT, StudyFactory, UserFactory, make_response, text_response

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    return client


def test_a_text_response_is_served_as_its_one_text(admin_client):
    response = text_response()
    studies = {s["id"]: s for s in admin_client.get("/api/v1/studies").json()}
    assert studies[response.study_id]["task_kind"] == "text"
    (row,) = admin_client.get(f"/api/v1/studies/{response.study_id}/responses").json()
    assert (row["research_id"], row["text"], row["steps"], row["items"]) == (
        response.research_id,
        SINGLE_TEXT,
        None,
        [],
    )


def test_a_cgpst_response_keeps_its_six_steps_and_no_text(admin_client):
    response = make_response(study=StudyFactory())
    assert {s["id"]: s for s in admin_client.get("/api/v1/studies").json()}[response.study_id][
        "task_kind"
    ] == "cgpst"
    (row,) = admin_client.get(f"/api/v1/studies/{response.study_id}/responses").json()
    assert "text" not in row and row["steps"] == {str(n): response.answer(n) for n in range(1, 7)}
    assert row["items"]


def test_the_openapi_description_says_where_a_text_is(admin_client):
    schema = admin_client.get("/api/v1/openapi.json").json()
    description = schema["paths"]["/api/v1/studies/{study_id}/responses"]["get"]["description"]
    assert "`task_kind` `text`" in description and "has that text in `text`, `steps` null" in description
