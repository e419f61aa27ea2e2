"""A hostile import file cannot make a page of megabytes or keep a web thread for minutes
(issue 36, pass 5, finding B2: 2,000,000 lines of ``{}`` gave a 570 MB page after 112 s). A
file of more records than one import takes is refused with one message before any record is
read; a refused file lists its first problems and says how many more there are."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from studies.models import Response, Scenario, Study
from studies.response_files import MAX_RECORDS as MAX_RESPONSES
from studies.scenario_files import MAX_RECORDS as MAX_SCENARIOS
from studies.views import PROBLEMS_SHOWN
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(username="bounds-admin", role="Admin"))
    return client


@pytest.fixture
def study():
    return Study.objects.create(name="Bounded study")


def _lines(n, line="{}"):
    return SimpleUploadedFile("many.jsonl", ("\n".join([line] * n) + "\n").encode(), "application/jsonl")


@pytest.mark.parametrize(
    "route, limit, message",
    [
        ("studies:responses_import", MAX_RESPONSES, f"more than {MAX_RESPONSES} responses in one file"),
        ("studies:scenarios_import", MAX_SCENARIOS, f"More than {MAX_SCENARIOS} scenarios in one file."),
        ("calibration:scores_import", MAX_RESPONSES, f"more than {MAX_RESPONSES} responses in one file"),
    ],
)
def test_a_file_of_too_many_records_is_refused_with_one_message(admin_client, study, route, limit, message):
    upload = (
        _lines(limit + 1)
        if route != "calibration:scores_import"
        else SimpleUploadedFile(
            "scores.json", ("[" + ",".join(["[]"] * (limit + 1)) + "]").encode(), "application/json"
        )
    )
    reply = admin_client.post(reverse(route, args=[study.pk]), {"file": upload})
    assert reply.status_code == 400
    page = reply.content.decode()
    assert message in page and "Nothing was imported: 1 problem." in page
    assert len(page) < 50_000
    assert (
        not Response.objects.filter(study=study).exists()
        and not Scenario.objects.filter(study=study).exists()
    )


# a record the file itself finds nothing wrong with, naming a scenario and a model the study lacks:
# its problems are found against the database (by a worker, for a large file)
UNKNOWN = json.dumps(
    {"research_id": "A01_ZZ9", "scenario": "ZZ9", "model": "nobody", "condition": "A", "steps": ["x"] * 6}
)


@pytest.mark.parametrize("records", [250, 1500])
def test_a_refused_file_lists_its_first_problems_and_counts_the_rest(admin_client, study, records):
    """In the request (up to 300 records) or, larger, on the import job's page once a worker has
    read it (here the job's task is run in this process)."""
    from studies.models import ResponseImportJob
    from studies.services.import_jobs import response_import_job_run

    file = _lines(records, UNKNOWN)
    reply = admin_client.post(reverse("studies:responses_import", args=[study.pk]), {"file": file})
    if records > 300:
        assert reply.status_code == 302
        response_import_job_run(job_id=ResponseImportJob.objects.get().pk)
        reply = admin_client.get(reply["Location"])
    else:
        assert reply.status_code == 400
    page = reply.content.decode()
    listed = page.split('id="import-problems"', 1)[1].split("</ul>", 1)[0]
    assert listed.count("<li>") == PROBLEMS_SHOWN
    total = int(page.split("Nothing was imported: ", 1)[1].split(" ", 1)[0])
    assert total >= records and f"… and {total - PROBLEMS_SHOWN} more problems, not listed" in page
    assert not Response.objects.filter(study=study).exists()


def test_a_large_file_whose_lines_are_wrong_in_themselves_is_refused_at_once(admin_client, study):
    """A file for a worker whose own lines are wrong (not JSON, a field missing) is refused in the
    request, with its problems: no job is needed to say so (hostile files of 1 MB went to a worker
    once the request took at most 256 KB)."""
    from studies.models import ResponseImportJob

    reply = admin_client.post(reverse("studies:responses_import", args=[study.pk]), {"file": _lines(1500)})
    assert reply.status_code == 400 and "Nothing was imported: " in reply.content.decode()
    assert not ResponseImportJob.objects.exists() and not Response.objects.filter(study=study).exists()
