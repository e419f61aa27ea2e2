"""Imports work on an empty install with --create-missing; without it, every unknown
name is listed at once."""

import json

import pytest
from django.core.management import CommandError, call_command

from calibration.models import FinalScore
from studies.models import Condition, ModelEndpoint, Response, Scenario, Study
from tests.conftest import REFERENCE
from tests.factories import SAMPLE_ANSWERS

pytestmark = pytest.mark.django_db
DATA_A = str(REFERENCE / "data_A.json")


def test_import_scores_create_missing_of_data_a_into_an_empty_database(capsys):
    assert not (Study.objects.exists() or Condition.objects.exists() or ModelEndpoint.objects.exists())
    call_command("import_scores", DATA_A, "--study", "Replication", "--create-missing")
    response = Response.objects.select_related("scenario", "model", "condition", "study").get()
    assert response.research_id == "A05_FS10" and response.study.name == "Replication"
    # the paper's numbering, the standard condition, the release's scenario text
    assert (response.model.model_number, response.model.name) == ("05", "kimi-k2")
    assert (response.condition.letter, response.condition.name, response.condition.strategy) == (
        "A",
        "TeamLLM",
        "teamllm",
    )
    released = json.loads((REFERENCE / "future_scenarios_en.json").read_text(encoding="utf-8"))["FS10"]
    assert response.scenario.theme == "Ocean Soup" and response.scenario.text == released["text"].strip(
        "\n\r "
    )
    assert str(FinalScore.objects.get(response=response).overall) == "116.50"
    out = capsys.readouterr()
    assert (
        "also created: condition A (TeamLLM), scenario FS10 (text from the release), model 05 kimi-k2"
        in out.out
    )
    assert "Warning" not in out.err


def test_without_create_missing_every_unknown_name_is_listed_at_once(tmp_path):
    Study.objects.create(name="Empty")
    records = [
        {
            "research_id": "G42_FS77",
            "scenario": "FS77",
            "model": "mystery",
            "condition": "G",
            "steps": SAMPLE_ANSWERS,
        },
        {
            "research_id": "A05_FS10",
            "scenario": "FS10",
            "model": "kimi-k2",
            "condition": "A",
            "steps": SAMPLE_ANSWERS,
        },
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    with pytest.raises(CommandError) as excinfo:
        call_command("import_responses", str(path), "--study", "Empty")
    message = str(excinfo.value)
    assert "6 problem(s)" in message
    parts = [
        "line 1 (G42_FS77), field 'scenario': unknown scenario 'FS77'",
        "line 1 (G42_FS77), field 'model': unknown model 'mystery'",
        "line 1 (G42_FS77), field 'condition': unknown condition 'G'",
        "line 2 (A05_FS10), field 'scenario': unknown scenario 'FS10'",
        "line 2 (A05_FS10), field 'model': unknown model 'kimi-k2'",
        "line 2 (A05_FS10), field 'condition': unknown condition 'A'",
    ]
    # every problem, with its field, in line order
    assert [message.index(part) for part in parts] == sorted(message.index(part) for part in parts)
    assert not (Response.objects.exists() or Scenario.objects.exists() or Condition.objects.exists())


def test_import_scores_without_create_missing_lists_responses_and_names(capsys):
    Study.objects.create(name="Empty")
    with pytest.raises(CommandError) as excinfo:
        call_command("import_scores", DATA_A, "--study", "Empty")
    message = str(excinfo.value)
    assert "no response A05_FS10 in study Empty" in message
    assert (
        "unknown condition 'A'" in message
        and "unknown scenario 'FS10'" in message
        and "unknown model '05'" in message
    )
    assert not Response.objects.exists()


def test_create_missing_warns_about_scenarios_without_text(tmp_path, capsys):
    record = {
        "research_id": "B03_FS77",
        "scenario": "FS77",
        "model": "03",
        "condition": "B",
        "steps": SAMPLE_ANSWERS,
    }
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(record), encoding="utf-8")
    call_command("import_responses", str(path), "--study", "New", "--create-missing")
    scenario = Scenario.objects.get(code="FS77")
    assert scenario.text == "" and scenario.study.name == "New"
    assert "scenario FS77 was created with an empty text" in capsys.readouterr().err
    response = Response.objects.get()
    assert (response.model.name, response.condition.name) == ("deepseek-v3", "Single model (baseline)")
