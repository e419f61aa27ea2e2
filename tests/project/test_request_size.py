"""Issue 36, findings 3 and 7: a body larger than the upload limit is answered 413 before
anything reads it, on pages (a page) and on the API (JSON); never a 500."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from api.services.tokens import token_create

pytestmark = pytest.mark.django_db


def test_an_oversized_page_upload_is_413_before_it_is_read(client, demo, settings):
    settings.REQUEST_MAX_BYTES = 1000
    client.login(username="rater1", password="demo-pass-2026")
    # the declared length decides: a 2,000-byte body is never parsed
    reply = client.post("/scoring/workbooks/", data=b"x" * 2000, content_type="application/octet-stream")
    assert reply.status_code == 413
    page = reply.content.decode()
    assert 'data-status="413"' in page and "Nothing was stored" in page


def test_an_oversized_autosave_is_413_json_as_the_page_reads_its_answers(client, demo, settings):
    """Hostile pass 24: a 30 MB save answered the 413 page; the saves read JSON."""
    from scoring.models import Assignment

    settings.REQUEST_MAX_BYTES = 1000
    rater = get_user_model().objects.get(username="rater1")
    client.force_login(rater)
    code = Assignment.objects.filter(rater=rater).first().blind_code
    body = json.dumps({"sheet": 1, "batch_id": "b", "expected_version": 0, "changes": [["x", "y" * 2000]]})
    reply = client.post(f"/scoring/{code}/save/", body, content_type="application/json")
    assert reply.status_code == 413 and "too large" in reply.json()["detail"]


def test_an_oversized_api_body_is_413_json(demo, settings):
    """The exploit: a 30 MB JSON import body answered 500."""
    admin = get_user_model().objects.get(username="admin")
    client = Client(
        HTTP_AUTHORIZATION=f"Bearer {token_create(user=admin, name='t', scope='write', days=1).plain}"
    )
    body = json.dumps({"content": "x" * (30 * 1024 * 1024), "format": "jsonl"})
    reply = client.post(
        f"/api/v1/studies/{demo.study.pk}/responses/import", body, content_type="application/json"
    )
    assert reply.status_code == 413 and "too large" in reply.json()["detail"]


def test_a_body_under_the_request_limit_but_over_djangos_is_413_json_too(demo, settings):
    """Between Django's DATA_UPLOAD_MAX_MEMORY_SIZE and the request limit, Django itself refuses
    reading the body (RequestDataTooBig): the API answers 413 JSON, not a 500."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    settings.REQUEST_MAX_BYTES = 10_000_000
    admin = get_user_model().objects.get(username="admin")
    client = Client(
        HTTP_AUTHORIZATION=f"Bearer {token_create(user=admin, name='t', scope='write', days=1).plain}"
    )
    body = json.dumps({"content": "x" * 5000, "format": "jsonl"})
    reply = client.post(
        f"/api/v1/studies/{demo.study.pk}/responses/import", body, content_type="application/json"
    )
    assert reply.status_code == 413 and reply["Content-Type"].startswith("application/json")
