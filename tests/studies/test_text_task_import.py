"""Importing responses into a single-text study ("one prompt, one text"): each JSON Lines record
gives its one text as ``text``; step fields are refused there, ``text`` is refused in a six-step
study, and a data_A.json file (six steps per response) is refused whole. All or nothing, every
problem at once, through the service, the command, the import page and a worker's job."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from studies.models import Response, ResponseImportJob, ResponseItem, Scenario, Strategy
from studies.response_files import (
    MAX_STEP_CHARS,
    RecordError,
    RecordProblems,
    records_from_data_a,
    records_from_text,
)
from studies.services.import_jobs import response_import_job_run
from studies.services.responses import responses_import
from studies.services.studies import study_create
from tests.factories import SAMPLE_ANSWERS, ConditionFactory, ModelEndpointFactory, UserFactory

pytestmark = pytest.mark.django_db

PROMPT = "Explain to a new parent how vaccines teach the immune system to recognise a pathogen."
# as a model wrote it: a line's trailing spaces and the final newline are kept as given
TEXT = "Vaccines show the body a harmless part of a pathogen.  \nIt then remembers it.\n"


@pytest.fixture
def text_study():
    study = study_create(
        name="Vaccine answers", template="empty", task_kind="text", rubric_version="likert-hhh-v1"
    )
    for n in range(1, 6):  # its prompts
        Scenario.objects.create(study=study, code=f"P{n}", theme=f"Vaccines {n}", text=f"{PROMPT} ({n})")
    ModelEndpointFactory(name="kimi-k2", model_number="05")
    ConditionFactory(letter="B", name="Single", strategy=Strategy.SINGLE)
    return study


@pytest.fixture
def cgpst_study(text_study):
    study = study_create(name="Six steps", template="empty")
    Scenario.objects.create(study=study, code="P1", theme="Oceans", text="In 2040, the oceans ...")
    return study


def _line(rid: str = "B05_P1", **fields) -> str:
    record = {"research_id": rid, "scenario": rid.split("_")[1], "model": "kimi-k2", "condition": "B"}
    return json.dumps({**record, **fields}, ensure_ascii=False)


def _jsonl(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def _import(study, content: str):
    return responses_import(
        records=records_from_text(content, text_task=study.task_kind == "text"), study=study, source="test"
    )


def _problems(study, content: str) -> list[str]:
    with pytest.raises(RecordProblems) as exc:
        _import(study, content)
    return exc.value.problems


def test_a_record_s_text_is_the_response_s_one_text_kept_as_given(text_study):
    report = _import(text_study, _jsonl(_line(text=TEXT)))
    assert report.created == ["B05_P1"] and report.held == []
    response = Response.objects.get(study=text_study)
    assert response.is_text_task and response.research_id == "B05_P1"
    assert response.step1 == TEXT  # not trimmed
    assert response.answers == [TEXT, "", "", "", "", ""]
    assert not response.held and response.hold_reasons == []
    assert not ResponseItem.objects.filter(response=response).exists()  # one text: no items, no grid
    assert response.grid is None and response.source == "imported"


def test_an_empty_text_is_imported_and_held_with_its_parse_warning(text_study):
    report = _import(text_study, _jsonl(_line(text=TEXT), _line("B05_P2", text="  \n")))
    assert report.created == ["B05_P1", "B05_P2"] and report.held == ["B05_P2"]
    empty = Response.objects.get(research_id="B05_P2")
    assert empty.held and [r["code"] for r in empty.hold_reasons] == ["empty_text"]
    assert "The response's text is empty." in report.held_texts()[0]
    assert not Response.objects.get(research_id="B05_P1").held


def test_importing_the_same_text_again_changes_nothing(text_study):
    _import(text_study, _jsonl(_line(text=TEXT)))
    before = Response.objects.get(research_id="B05_P1")
    again = _import(text_study, _jsonl(_line(text=TEXT)))
    assert again.unchanged == ["B05_P1"] and again.created == [] and again.restored == []
    after = Response.objects.get(research_id="B05_P1")
    assert Response.objects.filter(study=text_study).count() == 1
    assert (after.pk, after.blind_code, after.updated_at) == (before.pk, before.blind_code, before.updated_at)


def test_a_text_that_differs_only_in_whitespace_is_restored_as_given(text_study):
    _import(text_study, _jsonl(_line(text=TEXT)))
    trimmed = "\n".join(line.rstrip() for line in TEXT.splitlines())  # what an earlier version kept
    Response.objects.filter(research_id="B05_P1").update(step1=trimmed)
    report = _import(text_study, _jsonl(_line(text=TEXT)))
    assert report.restored == ["B05_P1"] and report.created == []
    assert Response.objects.get(research_id="B05_P1").answers == [TEXT, "", "", "", "", ""]


def test_a_different_text_under_an_existing_research_id_is_refused(text_study):
    _import(text_study, _jsonl(_line(text=TEXT)))
    problems = _problems(text_study, _jsonl(_line("B05_P2", text="New."), _line(text="Another text.")))
    assert problems == [
        "line 2 (B05_P1), field 'research_id': "
        "a different response with this research ID already exists in the study"
    ]
    assert Response.objects.get(research_id="B05_P1").step1 == TEXT
    assert not Response.objects.filter(research_id="B05_P2").exists()  # nothing of the file


def test_step_fields_are_refused_in_a_text_study_each_named_all_at_once(text_study):
    problems = _problems(
        text_study,
        _jsonl(
            _line(text=TEXT),
            _line("B05_P2", steps=SAMPLE_ANSWERS),
            _line("B05_P3", text="x", step3="y"),
            _line("B05_P4"),
            _line("B05_P5", text=["a list"]),
        ),
    )
    one_text = "this study's responses are one text: give it as text"
    assert problems == [
        f"line 2 (B05_P2), field 'steps': {one_text}",
        f"line 3 (B05_P3), field 'step3': {one_text}",
        "line 4 (B05_P4), field 'text': missing",
        "line 5 (B05_P5), field 'text': must be a string",
    ]
    assert not Response.objects.exists()  # line 1 was fine: nothing of the file is imported


def test_text_is_refused_in_a_six_step_study(cgpst_study):
    problems = _problems(
        cgpst_study, _jsonl(_line(text=TEXT), _line("B05_P2", text="x", steps=SAMPLE_ANSWERS))
    )
    six_steps = "this study's responses are six steps: give them as steps"
    assert f"line 1 (B05_P1), field 'text': {six_steps}" in problems
    assert "line 1 (B05_P1), field 'steps': missing" in problems
    assert f"line 2 (B05_P2), field 'text': {six_steps}" in problems
    assert not Response.objects.exists()


def test_a_text_longer_than_a_step_may_be_is_refused(text_study):
    problems = _problems(text_study, _jsonl(_line(text="x" * (MAX_STEP_CHARS + 1))))
    assert problems[0].startswith(f"line 1 (B05_P1), field 'text': longer than {MAX_STEP_CHARS} characters")
    assert _import(text_study, _jsonl(_line(text="x" * MAX_STEP_CHARS))).created == ["B05_P1"]


def test_a_data_a_file_is_refused_for_a_text_study(text_study, data_a):
    with pytest.raises(RecordError, match=r"data_A\.json kind hold six steps .* one text"):
        records_from_text(json.dumps(data_a), text_task=True)
    # records read as six steps by another caller (the score import, the demo) are refused too
    with pytest.raises(RecordProblems) as exc:
        responses_import(records=records_from_data_a(data_a), study=text_study, create_missing=True)
    assert (
        f"record 1 ({data_a[0][0]}), field 'steps': this study's responses are one text"
        in exc.value.problems[0]
    )
    assert not Response.objects.exists()


def test_the_command_imports_a_text_study_s_file(text_study, tmp_path, capsys):
    path = tmp_path / "texts.jsonl"
    path.write_text(_jsonl(_line(text=TEXT)), encoding="utf-8")
    call_command("import_responses", str(path), "--study", text_study.name)
    assert Response.objects.get(research_id="B05_P1").step1 == TEXT
    path.write_text(_jsonl(_line(steps=SAMPLE_ANSWERS)), encoding="utf-8")
    with pytest.raises(CommandError, match="field 'steps': this study's responses are one text"):
        call_command("import_responses", str(path), "--study", text_study.name)


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    return client


def _upload(content: str, name: str = "texts.jsonl") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content.encode(), "application/json")


def test_an_admin_imports_a_text_study_s_file_on_the_page(admin_client, text_study):
    url = reverse("studies:responses_import", args=[text_study.pk])
    assert "research_id, scenario, model, condition, text" in admin_client.get(url).content.decode()
    reply = admin_client.post(url, {"file": _upload(_jsonl(_line(text=TEXT), _line("B05_P2", text="")))})
    assert reply.status_code == 302
    assert Response.objects.get(research_id="B05_P1").step1 == TEXT
    assert Response.objects.get(research_id="B05_P2").held
    again = admin_client.post(url, {"file": _upload(_jsonl(_line(text=TEXT)))}, follow=True)
    assert "1 already present and identical" in again.content.decode()
    assert Response.objects.filter(study=text_study).count() == 2


@pytest.mark.parametrize(
    "content,expected",
    [
        (_jsonl(_line(steps=SAMPLE_ANSWERS)), "field 'steps': this study's responses are one text"),
        (_jsonl(_line(text="Another text.")), "a different response with this research ID"),
        ("[]", "data_A.json kind hold six steps per response"),
    ],
)
def test_the_page_refuses_what_a_text_study_cannot_take(admin_client, text_study, content, expected):
    _import(text_study, _jsonl(_line(text=TEXT)))
    reply = admin_client.post(
        reverse("studies:responses_import", args=[text_study.pk]), {"file": _upload(content)}
    )
    assert reply.status_code == 400
    assert expected in reply.content.decode().replace("&#x27;", "'")
    assert Response.objects.get().step1 == TEXT


def test_the_page_refuses_text_in_a_six_step_study(admin_client, cgpst_study):
    reply = admin_client.post(
        reverse("studies:responses_import", args=[cgpst_study.pk]),
        {"file": _upload(_jsonl(_line(text=TEXT)))},
    )
    assert reply.status_code == 400
    assert "field 'text': this study's responses are six steps" in reply.content.decode().replace(
        "&#x27;", "'"
    )
    assert not Response.objects.exists()


def test_a_worker_s_job_reads_a_text_study_s_file_as_texts(admin_client, text_study, monkeypatch):
    monkeypatch.setattr("studies.services.import_jobs.IMPORT_IN_REQUEST_MAX", 1)
    url = reverse("studies:responses_import", args=[text_study.pk])
    reply = admin_client.post(url, {"file": _upload(_jsonl(_line(text=TEXT), _line("B05_P2", text="Two.")))})
    job = ResponseImportJob.objects.get()
    assert reply.status_code == 302 and job.status == "queued"
    assert response_import_job_run(job_id=job.pk).status == "done"
    assert Response.objects.get(research_id="B05_P1").step1 == TEXT
    assert Response.objects.get(research_id="B05_P2").step1 == "Two."
