"""Hostile pass 12: a double-submitted import, or two admins importing the same file at once, answered
500 (the unique constraint of a research ID or a scenario code); a file of few but long records
held a web thread for 151 s. Now one import wins, the others are told to import again (409 on the
API, the problem on the page) and nothing is written twice; a large file goes to a worker."""

from __future__ import annotations

import json
import threading

import pytest
from django.db import IntegrityError, connection
from django.test import Client
from django.urls import reverse

from core.accounts.roles import ADMIN
from studies.models import Response, ResponseImportJob
from studies.services import import_jobs
from tests.factories import SAMPLE_ANSWERS, UserFactory

RECORDS = [
    {"research_id": f"{letter}05_FS10", "scenario": "FS10", "model": "kimi-k2", "condition": letter,
     "steps": SAMPLE_ANSWERS}
    for letter in "BCD"
]  # fmt: skip
TEXT = "\n".join(json.dumps(record) for record in RECORDS)


@pytest.mark.django_db(transaction=True)
def test_three_imports_of_one_file_at_once_import_it_once_and_answer_no_500(celery_worker, demo):
    """With the worker that runs what an import leaves in the outbox (assignments, diversity): its
    fixture lets it finish before the test's tables are emptied."""
    admin = UserFactory(username="admin-race", role=ADMIN)
    url = f"/api/v1/studies/{demo.study.pk}/responses/import"
    start, statuses = threading.Barrier(3), []

    def send() -> None:
        client = Client()
        client.force_login(admin)
        start.wait()
        reply = client.post(url, {"content": TEXT}, content_type="application/json")
        statuses.append((reply.status_code, reply.json()))
        connection.close()

    threads = [threading.Thread(target=send) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    codes = sorted(code for code, _body in statuses)
    assert codes.count(201) == 1 and set(codes) <= {201, 400, 409}, statuses
    for code, body in statuses:
        if code == 409:
            assert body["problems"] == [import_jobs.CONFLICT_MESSAGE]
    assert Response.objects.filter(research_id__in=[r["research_id"] for r in RECORDS]).count() == 3


@pytest.mark.django_db
def test_a_clash_in_the_request_is_a_409_and_a_message_on_the_page(client, demo, monkeypatch):
    def clash(**kwargs):
        raise IntegrityError('duplicate key value violates unique constraint "research_id_unique_in_study"')

    monkeypatch.setattr(import_jobs, "responses_import", clash)
    client.force_login(UserFactory(username="admin-clash", role=ADMIN))
    api = client.post(
        f"/api/v1/studies/{demo.study.pk}/responses/import",
        {"content": TEXT},
        content_type="application/json",
    )
    assert api.status_code == 409 and "duplicate key" not in api.content.decode()
    from django.core.files.uploadedfile import SimpleUploadedFile

    page = client.post(
        reverse("studies:responses_import", args=[demo.study.pk]),
        {"file": SimpleUploadedFile("r.jsonl", TEXT.encode(), "application/json")},
    )
    html = page.content.decode()
    assert page.status_code in (200, 400) and "Another import changed this study at the same time" in html


@pytest.mark.django_db
def test_a_file_of_few_but_long_records_goes_to_a_worker(client, demo):
    long_steps = [step + " " + "x" * 45_000 for step in SAMPLE_ANSWERS]  # each under the step cap
    records = [
        {**RECORDS[0], "research_id": f"{letter}05_FS10", "steps": long_steps} for letter in "BCDEFGHIJK"
    ]
    text = "\n".join(json.dumps(record) for record in records)
    assert len(text.encode()) > import_jobs.IMPORT_IN_REQUEST_MAX_BYTES and len(records) < 300
    client.force_login(UserFactory(username="admin-long", role=ADMIN))
    reply = client.post(
        f"/api/v1/studies/{demo.study.pk}/responses/import",
        {"content": text},
        content_type="application/json",
    )
    assert reply.status_code == 202 and ResponseImportJob.objects.filter(study=demo.study).count() == 1


@pytest.mark.django_db
def test_a_record_that_names_a_field_twice_is_refused_with_its_line(client, demo):
    """Hostile pass 12, F5: ``"research_id"`` twice was read as the second, unseen."""
    line = json.dumps(RECORDS[0]).replace(
        '"research_id": "B05_FS10"', '"research_id": "A10_FS10", "research_id": "B05_FS10"'
    )
    client.force_login(UserFactory(username="admin-twice", role=ADMIN))
    reply = client.post(
        f"/api/v1/studies/{demo.study.pk}/responses/import",
        {"content": line},
        content_type="application/json",
    )
    assert reply.status_code == 400 and 'the key \\"research_id\\" appears twice' in reply.content.decode()
    assert not Response.objects.filter(research_id__in=["A10_FS10", "B05_FS10"]).exists()
