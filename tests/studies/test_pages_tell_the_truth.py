"""Pages that tell the truth (issue 26): boards count against what exists, imports into a
paired group assign or say why not, research pages name one study and carry it, and the
import pages speak of their own checkbox, not of a command-line flag."""

import json
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from scoring.models import Assignment
from studies.models import Condition, Response, Scenario, Study
from studies.services.studies import study_create
from tests.factories import ModelEndpointFactory, make_response

DATA_A = Path(__file__).resolve().parents[2] / "studies" / "data" / "data_A.json"


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


@pytest.fixture
def researcher_client(client, demo):
    client.login(username="researcher", password="demo-pass-2026")
    return client


def _fs10(study):
    return Scenario.objects.get(study=study, code="FS10")


def test_a_groups_response_without_its_pairs_sheets_is_never_done(admin_client, demo):
    a = Condition.objects.get(letter="A")
    # a response of the paired group (FS10, A) that the pair was not given (e.g. made
    # before a pair existed and never synced): the board must not call the group done
    response = make_response(
        study=demo.study, scenario=_fs10(demo.study), condition=a, research_id="A77_FS10"
    )
    Assignment.objects.filter(response=response).delete()
    page = admin_client.get(reverse("scoring:workload"), {"study": demo.study.pk}).content.decode()
    assert "0 / 4" in page and "2 sheets not assigned" in page


def test_importing_scores_gives_a_new_pair_the_groups_earlier_responses(admin_client):
    study = study_create(name="Replication", template="cgpst-release")
    earlier = make_response(
        study=study,
        scenario=_fs10(study),
        condition=Condition.objects.get(letter="A"),
        model=ModelEndpointFactory(model_number="77"),
    )
    assert not Assignment.objects.filter(response=earlier).exists()
    reply = admin_client.post(
        reverse("calibration:scores_import", args=[study.pk]),
        {
            "file": SimpleUploadedFile("data_A.json", DATA_A.read_bytes()),
            "create_missing": "on",
            "raters": "",
        },
        follow=True,
    )
    assert reply.status_code == 200
    live = Assignment.objects.filter(response=earlier, archived_at__isnull=True, role="primary")
    assert live.count() == 2
    assert "FS10/A: 2 assignment(s) of responses already in the study given to the pair" in (
        reply.content.decode()
    )


def _import_one(client, study, research_id: str, model: str) -> str:
    """Import one response (A05_FS10's text) of FS10 on the study's page; the page shown after."""
    record = {
        "research_id": research_id, "scenario": "FS10", "model": model, "condition": research_id[0],
        "steps": Response.objects.get(research_id="A05_FS10").answers,
    }  # fmt: skip
    upload = SimpleUploadedFile("r.jsonl", json.dumps(record, ensure_ascii=False).encode())
    url = reverse("studies:responses_import", args=[study.pk])
    return client.post(url, {"file": upload}, follow=True).content.decode()


def test_importing_responses_without_a_pair_says_so(admin_client, demo):
    page = _import_one(admin_client, demo.study, "B05_FS10", "kimi-k2")
    assert "1 new response has no rater pair" in page and "B05_FS10" in page


def test_importing_responses_into_a_paired_group_gives_them_to_the_pair(admin_client, demo):
    page = _import_one(admin_client, demo.study, "A07_FS10", "07")
    assert "no rater pair" not in page
    live = Assignment.objects.filter(
        response__research_id="A07_FS10", archived_at__isnull=True, role="primary"
    )
    assert sorted(live.values_list("rater__username", flat=True)) == ["rater1", "rater2"]  # FS10/A's pair


def test_the_scores_import_page_does_not_speak_of_a_command_line_flag(admin_client):
    study = Study.objects.create(name="Empty")
    reply = admin_client.post(
        reverse("calibration:scores_import", args=[study.pk]),
        {"file": SimpleUploadedFile("data_A.json", DATA_A.read_bytes()), "raters": ""},
    )
    page = reply.content.decode()
    assert reply.status_code == 400 and "no response A05_FS10" in page
    assert "--create-missing" not in page and "allow creating missing ones" in page


def test_research_pages_name_one_study_and_remember_it(researcher_client, demo):
    other = study_create(name="AAA first by name", template="empty")
    page = researcher_client.get("/research/").content.decode()
    heading = re.search(r"<h1>(.*?)</h1>", page, re.S)[1]
    selected = re.search(r'<option value="(\d+)" selected>([^<]*)</option>', page)
    # with no final scores anywhere, the first study made, not the first by name (a new user's
    # walkthrough: the demo's research page opened on its Likert study)
    assert selected[1] == str(demo.study.pk) and other.pk > demo.study.pk
    # the heading and the selector name the same study; "All studies" is gone
    assert selected[2] in heading and "All studies" not in page
    # figure links and downloads carry the study shown
    assert f"svg?study={selected[1]}" in page
    # choose the other study: every research page opens on it afterwards
    researcher_client.get("/research/", {"study": other.pk})
    page = researcher_client.get("/research/").content.decode()
    assert f'<option value="{other.pk}" selected>' in page
    consistency = researcher_client.get(reverse("calibration:agreement_dashboard")).content.decode()
    assert f'<option value="{other.pk}" selected' in consistency
    judge = researcher_client.get(reverse("research:research_judge")).content.decode()
    assert f'<option value="{other.pk}" selected' in judge
    drift = researcher_client.get(reverse("training:drift")).content.decode()
    assert f'<option value="{other.pk}" selected' in drift
    # and back: the drift page follows a study that is not the first by name too
    researcher_client.get("/research/", {"study": demo.study.pk})
    drift = researcher_client.get(reverse("training:drift")).content.decode()
    assert f'<option value="{demo.study.pk}" selected' in drift


@pytest.mark.worker
def test_generating_into_a_paired_group_assigns_and_elsewhere_says_why_not(
    celery_worker, admin_client, demo, llm_stub, capsys
):
    """A generated response of a scenario and condition with a pair goes to the pair at
    once; one without a pair is named on its batch page with the reason and where to fix it."""
    from generation.models import GenerationRun
    from scoring.services.assignments import group_assign_pair
    from tests.factories import rater, stub_endpoint

    # the review gate off: generated responses go to raters as they arrive (with the gate on
    # they wait for release, tests/studies/test_review_gate.py)
    demo.study.responses_need_release = False
    demo.study.save(update_fields=["responses_need_release"])
    stub_endpoint(llm_stub)
    demo.study.endpoints.add(stub_endpoint(llm_stub, name="stub2", model_number="91"))
    call_command("generate", scenario="FS10", model="stub", strategy="single", wait=True, timeout=120)
    run = GenerationRun.objects.get(response__research_id="B90_FS10")
    assert not Assignment.objects.filter(response=run.response).exists()  # FS10/B has no pair
    page = admin_client.get(reverse("generation:batch_detail", args=[run.batch_id])).content.decode()
    assert 'id="batch-unpaired"' in page
    assert f'href="/manage/assignments/?study={demo.study.pk}"' in page  # where to fix it, study chosen
    assert "1 new response has no rater pair (its scenario and condition have none): B90_FS10" in page

    group_assign_pair(
        study=demo.study, scenario=_fs10(demo.study), conditions=[Condition.objects.get(letter="B")],
        rater_a=rater("ada", "H21"), rater_b=rater("ben", "H22"),
    )  # fmt: skip
    page = admin_client.get(reverse("generation:batch_detail", args=[run.batch_id])).content.decode()
    assert 'id="batch-unpaired"' not in page  # the pair now has it
    call_command("generate", scenario="FS10", model="stub2", strategy="single", wait=True, timeout=120)
    late = GenerationRun.objects.get(response__research_id="B91_FS10")
    live = Assignment.objects.filter(response=late.response, archived_at__isnull=True, role="primary")
    assert sorted(live.values_list("rater__username", flat=True)) == ["ada", "ben"]
    page = admin_client.get(reverse("generation:batch_detail", args=[late.batch_id])).content.decode()
    assert 'id="batch-unpaired"' not in page
    capsys.readouterr()
