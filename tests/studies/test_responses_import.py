import json

import pytest
from django.core.management import CommandError, call_command

from studies.models import Response, ResponseItem, Scenario
from tests.factories import SAMPLE_ANSWERS, code_for

DATA_A = "studies/data/data_A.json"


def _jsonl(tmp_path, records):
    path = tmp_path / "responses.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records), encoding="utf-8")
    return path


def _record(rid="B05_FS10", **kw):
    return {
        "research_id": rid,
        "scenario": "FS10",
        "model": "kimi-k2",
        "condition": rid[0],
        "steps": SAMPLE_ANSWERS,
        **kw,
    }


@pytest.mark.django_db
def test_import_responses_data_a_twice_never_duplicates(demo, capsys):
    assert Response.objects.count() == 1
    call_command("import_responses", DATA_A, "--study", "CGPST demo")
    assert "1 already present and identical" in capsys.readouterr().out
    assert Response.objects.count() == 1
    response = Response.objects.get()
    assert response.research_id == "A05_FS10"
    assert response.model.name == "kimi-k2" and response.condition.letter == "A"
    assert ResponseItem.objects.filter(response=response, step=1).count() == 8
    assert response.implied_correctly_used == 4


@pytest.mark.django_db
def test_import_responses_jsonl_creates_and_parses(demo, tmp_path):
    call_command(
        "import_responses", str(_jsonl(tmp_path, [_record("B05_FS10"), _record("A07_FS10", model="gpt-4o")]))
    )
    assert set(Response.objects.values_list("research_id", flat=True)) == {"A05_FS10", "B05_FS10", "A07_FS10"}
    b05 = Response.objects.get(research_id="B05_FS10")
    assert b05.items.filter(step=4).count() == 5
    assert b05.step1_blank_items == 5
    assert (
        len(b05.blind_code) == 10
        and b05.blind_code != Response.objects.get(research_id="A07_FS10").blind_code
    )


@pytest.mark.django_db
def test_import_responses_one_bad_record_rolls_back_all(demo, tmp_path):
    bad = _record("B07_FS10", model="gpt-4o", steps=["only", "five", "steps", "here", "x"])
    with pytest.raises(CommandError) as exc:
        call_command("import_responses", str(_jsonl(tmp_path, [_record("B05_FS10"), bad])))
    assert "line 2" in str(exc.value) and "steps" in str(exc.value)
    assert Response.objects.count() == 1  # B05_FS10 was rolled back too


@pytest.mark.django_db
def test_import_responses_unknown_scenario_needs_create_missing(demo, tmp_path):
    path = _jsonl(tmp_path, [_record("B05_FS99", scenario="FS99")])
    with pytest.raises(CommandError, match="unknown scenario 'FS99'"):
        call_command("import_responses", str(path))
    call_command("import_responses", str(path), "--create-missing")
    assert Scenario.objects.filter(code="FS99").exists()
    assert Response.objects.filter(research_id="B05_FS99").exists()


@pytest.mark.django_db
def test_import_responses_unknown_model_is_a_clear_error(demo, tmp_path):
    with pytest.raises(CommandError, match="unknown model 'mystery-llm'"):
        call_command("import_responses", str(_jsonl(tmp_path, [_record("B55_FS10", model="mystery-llm")])))
    assert Response.objects.count() == 1


@pytest.mark.django_db
def test_import_responses_refuses_changed_text_under_existing_id(demo, tmp_path):
    call_command("import_responses", str(_jsonl(tmp_path, [_record("B05_FS10")])))
    changed = _record("B05_FS10", steps=[s + " (edited)" for s in SAMPLE_ANSWERS])
    with pytest.raises(CommandError, match="different response with this research ID"):
        call_command("import_responses", str(_jsonl(tmp_path, [changed])))
    assert "(edited)" not in Response.objects.get(research_id="B05_FS10").step1


@pytest.mark.django_db
def test_import_responses_broken_json_changes_nothing(demo, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[["A05_FS10", ["H01"', encoding="utf-8")
    with pytest.raises(CommandError, match="not valid JSON"):
        call_command("import_responses", str(path))
    path.write_text("not json at all\n", encoding="utf-8")
    with pytest.raises(CommandError, match="line 1"):
        call_command("import_responses", str(path))
    assert Response.objects.count() == 1


@pytest.mark.django_db
def test_import_responses_checks_research_id_matches_record(demo, tmp_path):
    with pytest.raises(CommandError, match="should be B07_FS10"):
        call_command("import_responses", str(_jsonl(tmp_path, [_record("B05_FS10", model="gpt-4o")])))


@pytest.mark.django_db
def test_text_is_kept_as_given_and_a_trimmed_copy_is_restored_on_reimport(demo, capsys, data_a):
    from studies.models import AuditEvent

    response = Response.objects.get(research_id="A05_FS10")
    given = "\n".join(it["Content"] for it in data_a[0][3]["Step-3"] if "Content" in it)
    assert response.step3 == given and "  \n" in given  # the release's trailing spaces are stored
    assert "  \n" not in response.shown_answer(3) and response.shown_answer(3) == given.replace("  \n", "\n")
    # what an earlier version stored: every item stripped
    trimmed = "\n".join(line.strip() for line in given.split("\n"))
    Response.objects.filter(pk=response.pk).update(step3=trimmed)
    call_command("import_responses", DATA_A, "--study", "CGPST demo")
    assert "1 with their whitespace restored as given" in capsys.readouterr().out
    response.refresh_from_db()
    assert response.step3 == given
    event = AuditEvent.objects.get(action="response.text_restored")
    assert event.changes == {"steps": [3]}


@pytest.mark.django_db
def test_raters_read_the_text_trimmed(demo, client):
    response = Response.objects.get(research_id="A05_FS10")
    assert "energy input.  \n" in response.step3
    client.login(username="rater1", password="demo-pass-2026")
    page = client.get(f"/scoring/{code_for('rater1', response)}/").content.decode()
    assert "energy input.\n" in page and "energy input.  " not in page


@pytest.mark.django_db
def test_a_data_a_file_with_problems_on_several_records_lists_them_all_in_order(demo, tmp_path, data_a):
    """Issue 26: a data_A.json file's records each report every problem of their own shape
    and those against the study (before, the first bad record stopped the import)."""
    good = data_a[0]
    steps_gone = [good[0], good[1], good[2], {k: v for k, v in good[3].items() if k != "Step-3"}, good[4]]
    other = ["B99_FS10", good[1], "FS11", good[3], good[4]]  # scenario ID and model both wrong
    path = tmp_path / "responses.json"
    path.write_text(json.dumps([["A05"], steps_gone, other], ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CommandError) as exc:
        call_command("import_responses", str(path))
    expected = [
        "record 1, field 'record': expected [response_id",
        "record 2 (A05_FS10), field 'Step-3': missing or not a list",
        "record 3 (B99_FS10), field 'scenario_id': does not match the research ID",
        "record 3 (B99_FS10), field 'model': unknown model '99'",
    ]
    places = [str(exc.value).find(p) for p in expected]
    assert -1 not in places and places == sorted(places), (places, str(exc.value))
    assert Response.objects.count() == 1


@pytest.mark.parametrize("research_id", ["B１２_FS10", "A٠٥_FS10"])
def test_a_research_id_with_other_digits_than_ascii_is_not_one(research_id):
    """Issue 36, pass 5, B5: "B１２_FS10" was stored beside "B12_FS10" for another model."""
    from studies.response_files import RESEARCH_ID

    assert RESEARCH_ID.match(research_id) is None
    assert RESEARCH_ID.match("B12_FS10") is not None


@pytest.mark.django_db
def test_a_step_longer_than_the_cap_is_refused_with_its_place(demo, tmp_path):
    """Hostile pass 9 (F1): steps had no length bound, and every check a response passes costs
    time in its length. Now a step past 50,000 characters is refused, in both formats."""
    from studies.response_files import MAX_STEP_CHARS

    long_step = "dune " * (MAX_STEP_CHARS // 5 + 1)
    steps = [*SAMPLE_ANSWERS[:2], long_step, *SAMPLE_ANSWERS[3:]]
    with pytest.raises(CommandError) as exc:
        call_command(
            "import_responses",
            str(_jsonl(tmp_path, [_record("B05_FS10"), _record("B07_FS10", model="gpt-4o", steps=steps)])),
        )
    assert (
        f"line 2 (B07_FS10), field 'steps[3]': longer than {MAX_STEP_CHARS} characters ({len(long_step)})"
        in str(exc.value)
    )
    data_a = [
        [
            "B07_FS10",
            ["r1", "r2"],
            "FS10",
            {f"Step-{n}": [{"Content": s}] for n, s in enumerate(steps, 1)},
            {},
        ]
    ]
    path = tmp_path / "data_A.json"
    path.write_text(json.dumps(data_a), encoding="utf-8")
    with pytest.raises(CommandError) as exc:
        call_command("import_responses", str(path))
    assert f"field 'Step-3': longer than {MAX_STEP_CHARS} characters" in str(exc.value)
    assert Response.objects.count() == 1  # the demo's own
    # at the cap it is taken
    steps[2] = "dune " * (MAX_STEP_CHARS // 5)
    call_command(
        "import_responses", str(_jsonl(tmp_path, [_record("B07_FS10", model="gpt-4o", steps=steps)]))
    )
    assert len(Response.objects.get(research_id="B07_FS10").step3) == MAX_STEP_CHARS


@pytest.mark.django_db
@pytest.mark.parametrize("value", [{"a": 1}, 3, None, ["x"]])
def test_steps_given_as_an_object_must_hold_strings(demo, tmp_path, value):
    """Hostile pass 11: steps as an object of non-strings answered 500; now the record's problem."""
    steps = {str(n): value for n in range(1, 7)}
    with pytest.raises(CommandError) as exc:
        call_command("import_responses", str(_jsonl(tmp_path, [_record("B05_FS10", steps=steps)])))
    assert "line 1 (B05_FS10), field 'steps': must be six strings (Steps 1-6)" in str(exc.value)
    assert Response.objects.count() == 1
