"""(Here, not in tests/e2e: its real worker, started earlier in the run, took the import page
test's outbox tasks during that test's teardown and deadlocked its TRUNCATE.)
A response file too large for the request, imported as an admin would (hostile pass 9, F7): the
upload form sends it, the browser lands on the import's page, htmx polls the real worker's
progress until the page shows what the server recorded; then polling stops."""

from __future__ import annotations

import json

import pytest

from studies.models import Response, ResponseImportJob
from tests.browser import login, shot
from tests.factories import SAMPLE_ANSWERS

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_large_import_runs_in_the_worker_while_its_page_shows_the_progress(
    live_server, browser, celery_worker, demo, monkeypatch, tmp_path
):
    monkeypatch.setattr(
        "studies.services.import_jobs.IMPORT_IN_REQUEST_MAX", 2
    )  # the live server runs in this process
    ids = ["B05_FS10", "C05_FS10", "D05_FS10"]
    path = tmp_path / "responses.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(
                {
                    "research_id": rid,
                    "scenario": "FS10",
                    "model": "kimi-k2",
                    "condition": rid[0],
                    "steps": SAMPLE_ANSWERS,
                }
            )
            for rid in ids
        ),
        encoding="utf-8",
    )
    page = browser.new_context().new_page()
    login(page, live_server.url, "admin")
    page.goto(f"{live_server.url}/manage/studies/{demo.study.pk}/responses/import/")
    page.set_input_files("#id_file", str(path))
    with page.expect_navigation():
        page.click("form[enctype='multipart/form-data'] button[type=submit]")
    job = ResponseImportJob.objects.get()
    assert page.url.endswith(f"/responses/import/{job.pk}/")
    page.wait_for_selector("#import-job[data-status=done]", timeout=60_000)
    shot(page, "import-job-done", full_page=True)
    job.refresh_from_db()
    assert page.inner_text("#import-summary") == job.summary and job.summary.startswith(
        "3 response(s) created"
    )
    assert set(Response.objects.filter(research_id__in=ids).values_list("research_id", flat=True)) == set(ids)
    # the last answer stopped the polling: nothing asks again
    asked: list[str] = []
    page.on(
        "request", lambda request: asked.append(request.url) if "/responses/import/" in request.url else None
    )
    page.wait_for_timeout(4500)
    assert asked == [] and page.get_attribute("#import-job", "hx-trigger") is None
