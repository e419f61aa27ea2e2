"""import_scenarios and the scenario import page: released JSON, JSON Lines, xlsx;
all-or-nothing with line and field; identical re-import a no-op; scored texts only when forced."""

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from openpyxl import Workbook

from scoring.models import Assignment
from studies.models import Response, Scenario, ScenarioTextChange, Study
from tests.conftest import REFERENCE
from tests.factories import UserFactory, code_for, reference_changes, sheet_submitted

pytestmark = pytest.mark.django_db
RELEASED = REFERENCE / "future_scenarios_en.json"


@pytest.fixture
def study():
    return Study.objects.create(name="Lab")


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _jsonl(records):
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n"


def _xlsx(rows) -> bytes:
    workbook = Workbook()
    for row in rows:
        workbook.active.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def test_released_json_imports_and_reimport_changes_nothing(study, capsys):
    call_command("import_scenarios", str(RELEASED), "--study", "Lab")
    fs10 = Scenario.objects.get(study=study, code="FS10")
    assert fs10.theme == "Ocean Soup" and "Jobie Sakai" in fs10.text
    created_at = fs10.created_at
    call_command("import_scenarios", str(RELEASED), "--study", "Lab")
    assert "0 scenario(s) created, 0 updated, 1 already present and identical" in capsys.readouterr().out
    assert Scenario.objects.get(pk=fs10.pk).created_at == created_at
    assert not ScenarioTextChange.objects.exists()


def test_json_lines_with_chinese_text(study, tmp_path):
    path = _write(
        tmp_path,
        "lab.jsonl",
        _jsonl(
            [
                {
                    "code": "FS1",
                    "theme": "Water",
                    "text": "In 2050 ...",
                    "theme_zh": "水",
                    "text_zh": "2050年……",
                },
                {"code": "FS2", "theme": "Cities", "text": "Cities float."},
            ]
        ),
    )
    call_command("import_scenarios", path, "--study", "Lab")
    fs1 = Scenario.objects.get(study=study, code="FS1")
    assert (fs1.text_for("zh-hans"), fs1.text_for("en"), fs1.theme_for("zh-hans")) == (
        "2050年……",
        "In 2050 ...",
        "水",
    )
    fs2 = Scenario.objects.get(study=study, code="FS2")
    assert fs2.text_for("zh-hans") == "Cities float."  # no Chinese version: the English one


def test_xlsx_sheet_with_header_row(study, tmp_path):
    path = tmp_path / "lab.xlsx"
    path.write_bytes(
        _xlsx(
            [
                ["Code", "Theme", "Text", "Text_zh-Hans"],
                ["FS3", "Forests", "Trees talk.", "树木会说话。"],
                [None, None],
            ]
        )
    )
    call_command("import_scenarios", str(path), "--study", "Lab")
    fs3 = Scenario.objects.get(study=study, code="FS3")
    assert (fs3.theme, fs3.text, fs3.text_zh) == ("Forests", "Trees talk.", "树木会说话。")


@pytest.mark.parametrize(
    "name, content, expected",
    [
        (
            "dup.json",
            '{\n  "FS1": {"theme": "A", "text": "one"},\n  "FS1": {"theme": "B", "text": "two"}\n}\n',
            ["line 3, field 'code': FS1 appears twice in the file (first at line 2)"],
        ),
        (
            "dup-bad.jsonl",
            _jsonl(
                [{"code": "FS2", "theme": "", "text": "one"}, {"code": "fs2", "theme": "B", "text": "two"}]
            ),
            [
                "line 1, field 'theme': missing or empty",
                "line 2, field 'code': fs2 appears twice in the file (first at line 1)",
            ],
        ),
        (
            "empty.jsonl",
            _jsonl(
                [{"code": "FS1", "theme": "A", "text": "ok"}, {"code": "FS2", "theme": "B", "text": "  "}]
            ),
            ["line 2, field 'text': missing or empty"],
        ),
        (
            "html.jsonl",
            _jsonl(
                [
                    {"code": "FS1", "theme": "A", "text": "Read <b>this</b>"},
                    {"code": "FS2", "theme": "<i>B</i>", "text": "x"},
                ]
            ),
            [
                "line 1, field 'text': contains HTML (<b>); scenario texts are plain text",
                "line 2, field 'theme': contains HTML (<i>); scenario texts are plain text",
            ],
        ),
        (
            "typo.jsonl",
            _jsonl([{"code": "FS1", "theme": "A", "txet": "x"}]),
            ["line 1, field 'txet': unknown field"],
        ),
        (
            "broken.json",
            '{\n  "FS1": {"theme": "A", "text": "x"\n}\n',
            ["line 4, field 'json': not valid JSON (Expecting ',' or '}')"],
        ),
    ],
)
def test_bad_files_list_every_problem_with_line_and_field_and_change_nothing(
    study, tmp_path, name, content, expected
):
    Scenario.objects.create(study=study, code="FS1", theme="Old", text="old text")
    with pytest.raises(CommandError) as excinfo:
        call_command("import_scenarios", _write(tmp_path, name, content), "--study", "Lab")
    message = str(excinfo.value)
    assert message.startswith("Nothing imported")
    for part in expected:
        assert part in message
    assert list(Scenario.objects.values_list("code", "theme", "text")) == [("FS1", "Old", "old text")]


def test_xlsx_problems_name_the_row(study, tmp_path):
    path = tmp_path / "bad.xlsx"
    path.write_bytes(_xlsx([["code", "theme", "text"], ["FS1", "A", "fine"], ["FS 2", "B", ""]]))
    with pytest.raises(CommandError) as excinfo:
        call_command("import_scenarios", str(path), "--study", "Lab")
    assert "row 3, field 'text': missing or empty" in str(excinfo.value)
    assert "row 3, field 'code': letters, digits and dashes only" in str(excinfo.value)
    assert not Scenario.objects.exists()


def test_a_csv_imports_like_the_xlsx_sheet(study, tmp_path):
    """Issue 42: a .csv was refused as "not valid JSON"."""
    text = 'code;theme;text;text_zh\nFS3;Forests;"Trees talk; they listen.";树木会说话。\n'
    call_command("import_scenarios", _write(tmp_path, "lab.csv", text), "--study", "Lab")
    fs3 = Scenario.objects.get(study=study, code="FS3")
    assert (fs3.theme, fs3.text, fs3.text_zh) == ("Forests", "Trees talk; they listen.", "树木会说话。")
    with pytest.raises(CommandError) as excinfo:
        call_command(
            "import_scenarios", _write(tmp_path, "bad.csv", "code,theme,text\nFS4,,x\n"), "--study", "Lab"
        )
    assert "line 2, field 'theme': missing or empty" in str(excinfo.value)


@pytest.mark.parametrize("suffix", ["xlsx", "csv"])
def test_a_header_problem_is_named_on_the_header_row_once(study, tmp_path, suffix):
    """Issue 42: an xlsx header problem was blamed on row 2 (and on every row after it)."""
    rows = [["code", "theme", "txet"], ["FS1", "A", "one"], ["FS2", "B", "two"]]
    path = tmp_path / f"bad.{suffix}"
    if suffix == "xlsx":
        path.write_bytes(_xlsx(rows))
    else:
        path.write_text("\n".join(",".join(r) for r in rows) + "\n", encoding="utf-8")
    with pytest.raises(CommandError) as excinfo:
        call_command("import_scenarios", str(path), "--study", "Lab")
    message = str(excinfo.value)
    first = "row 1" if suffix == "xlsx" else "line 1"
    assert f"{first}, field 'txet': unknown column" in message
    assert f"{first}, field 'text': column missing" in message
    assert " 2, " not in message and " 3, " not in message
    assert not Scenario.objects.exists()


@pytest.fixture
def scored(demo):
    """The demo study's own FS10 with a submitted sheet on a response of it."""
    study = Study.objects.get(name="CGPST demo")
    response = Response.objects.get(research_id="A05_FS10")
    own = Scenario.objects.get(study=study, code="FS10")
    Scenario.objects.filter(pk=own.pk).update(text="Original text.")
    own.refresh_from_db()
    rater1 = Assignment.objects.get(response=response, rater__username="rater1").rater
    sheet_submitted(rater1, Response.objects.get(pk=response.pk), reference_changes(3))
    return study, own


def test_changed_text_of_a_scored_scenario_needs_force_and_is_audited(scored, tmp_path):
    study, fs10 = scored
    path = _write(
        tmp_path, "new.jsonl", _jsonl([{"code": "FS10", "theme": "Ocean Soup", "text": "Rewritten text."}])
    )
    with pytest.raises(
        CommandError, match="scenario FS10 already has scores; its text is replaced only when forced"
    ):
        call_command("import_scenarios", path, "--study", study.name)
    assert Scenario.objects.get(pk=fs10.pk).text == "Original text."
    assert not ScenarioTextChange.objects.exists()
    call_command("import_scenarios", path, "--study", study.name, "--force")
    assert Scenario.objects.get(pk=fs10.pk).text == "Rewritten text."
    change = ScenarioTextChange.objects.get()
    assert (change.field_name, change.old_value, change.new_value, change.forced) == (
        "text",
        "Original text.",
        "Rewritten text.",
        True,
    )
    assert "new.jsonl" in change.note


def test_filling_an_empty_text_is_allowed_without_force(scored, tmp_path):
    study, fs10 = scored
    Scenario.objects.filter(pk=fs10.pk).update(text="")
    path = _write(
        tmp_path, "fill.jsonl", _jsonl([{"code": "FS10", "theme": "Ocean Soup", "text": "Now filled."}])
    )
    call_command("import_scenarios", path, "--study", study.name)
    assert Scenario.objects.get(pk=fs10.pk).text == "Now filled."
    assert ScenarioTextChange.objects.get().forced is False


def test_unscored_scenario_updates_are_recorded(study, tmp_path):
    Scenario.objects.create(study=study, code="FS1", theme="A", text="old")
    call_command(
        "import_scenarios",
        _write(tmp_path, "a.jsonl", _jsonl([{"code": "FS1", "theme": "A", "text": "new"}])),
        "--study",
        "Lab",
    )
    change = ScenarioTextChange.objects.get()
    assert (change.old_value, change.new_value, change.forced) == ("old", "new", False)


def test_raters_read_the_scenario_in_their_ui_language(scored, client):
    _, fs10 = scored
    Scenario.objects.filter(pk=fs10.pk).update(text_zh="海洋汤的中文文本。", theme_zh="海洋汤")
    code = code_for("rater2", Response.objects.get(research_id="A05_FS10"))
    client.force_login(Assignment.objects.get(rater__username="rater2").rater)
    english = client.get(f"/scoring/{code}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Original text." in english and "海洋汤的中文文本。" not in english
    assert "Ocean Soup" in client.get("/scoring/").content.decode()
    client.cookies["django_language"] = "zh-hans"
    chinese = client.get(f"/scoring/{code}/").content.decode()
    assert "海洋汤的中文文本。" in chinese and "Original text." not in chinese
    queue = client.get("/scoring/").content.decode()
    assert "海洋汤" in queue and "Ocean Soup" not in queue


def test_import_page_lists_problems_and_changes_nothing(study, client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    url = reverse("studies:scenarios_import", args=[study.pk])
    bad = SimpleUploadedFile(
        "s.jsonl", _jsonl([{"code": "FS1", "theme": "A", "text": "<script>x</script>"}]).encode()
    )
    reply = client.post(url, {"file": bad})
    assert reply.status_code == 400
    assert "line 1, field &#x27;text&#x27;: contains HTML" in reply.content.decode()
    assert not Scenario.objects.exists()
    good = SimpleUploadedFile("s.json", RELEASED.read_bytes())
    reply = client.post(url, {"file": good})
    assert reply.status_code == 302
    assert Scenario.objects.filter(study=study, code="FS10").exists()


def test_import_page_refuses_a_file_that_is_not_a_scenario_file(study, client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    url = reverse("studies:scenarios_import", args=[study.pk])
    reply = client.post(url, {"file": SimpleUploadedFile("x.xlsx", b"PK\x03\x04 not really a zip")})
    assert reply.status_code == 400 and "the file is not a zip archive." in reply.content.decode()
    reply = client.post(url, {"file": SimpleUploadedFile("x.json", b"\xff\xfe\x00garbage")})
    assert reply.status_code == 400 and "not UTF-8" in reply.content.decode()
    assert not Scenario.objects.exists()


def test_forcing_on_the_page_records_the_admin_in_the_audit_trail(scored, client):
    study, fs10 = scored
    admin = UserFactory(username="boss", role="Admin")
    client.force_login(admin)
    url = reverse("studies:scenarios_import", args=[study.pk])
    content = _jsonl([{"code": "FS10", "theme": "Ocean Soup", "text": "Corrected text."}]).encode()
    refused = client.post(url, {"file": SimpleUploadedFile("fix.jsonl", content)})
    assert refused.status_code == 400 and "already has scores" in refused.content.decode()
    assert Scenario.objects.get(pk=fs10.pk).text == "Original text."
    forced = client.post(url, {"file": SimpleUploadedFile("fix.jsonl", content), "force": "on"})
    assert forced.status_code == 302
    change = ScenarioTextChange.objects.get()
    assert (change.actor, change.forced, change.new_value) == (admin, True, "Corrected text.")
    admin.is_staff = True  # the Django admin: staff with the Admin group's permissions
    admin.save(update_fields=["is_staff"])
    audit = client.get(reverse("admin:studies_scenariotextchange_changelist"))
    assert audit.status_code == 200 and "FS10" in audit.content.decode()


def test_a_json_list_of_scenario_objects_is_read_with_its_lines(study, tmp_path):
    text = (
        '[\n  {"code": "FS4", "theme": "Air", "text": "Clean air."},\n  {"code": "FS5", "theme": "Soil"}\n]\n'
    )
    with pytest.raises(CommandError, match="line 3, field 'text': missing or empty"):
        call_command("import_scenarios", _write(tmp_path, "list.json", text), "--study", "Lab")
    assert not Scenario.objects.exists()
    call_command(
        "import_scenarios",
        _write(tmp_path, "list.json", text.replace('"Soil"}', '"Soil", "text": "Deep."}')),
        "--study",
        "Lab",
    )
    assert list(Scenario.objects.order_by("code").values_list("code", "text")) == [
        ("FS4", "Clean air."),
        ("FS5", "Deep."),
    ]


def test_scenario_problems_come_in_line_order_duplicates_included(study, tmp_path):
    content = _jsonl(
        [
            {"code": "FS1", "theme": "A", "text": "ok"},
            {"code": "FS1", "theme": "B", "text": "ok"},  # line 2: a duplicate code
            {"code": "FS3", "theme": "C", "text": " "},  # line 3: no text
        ]
    )
    with pytest.raises(CommandError) as excinfo:
        call_command("import_scenarios", _write(tmp_path, "order.jsonl", content), "--study", "Lab")
    message = str(excinfo.value)
    duplicate = message.index("line 2, field 'code': FS1 appears twice in the file (first at line 1)")
    assert duplicate < message.index("line 3, field 'text': missing or empty")


def test_a_json_file_past_the_cap_is_refused_at_the_first_entry_too_many(study):
    """Hostile pass 9 (F2): 300,000 entries took 118 s, every line counted again per entry and the
    cap checked after all were parsed. Now the cap stops the parse: entries past the 2,001st are
    never read (here they are not even JSON, yet the cap is what the admin is told)."""
    from studies.scenario_files import MAX_RECORDS, ScenarioFileError, records_from_json

    entries = ",\n".join(f'"FS{n}": {{"theme": "t", "text": "x"}}' for n in range(MAX_RECORDS + 1))
    with pytest.raises(ScenarioFileError) as refused:
        records_from_json("{\n" + entries + ",\n" + "not json at all " * 1000 + "}")
    assert refused.value.problems == [f"More than {MAX_RECORDS} scenarios in one file."]
    # at the cap the lines are still right
    entries = ",\n".join(f'"FS{n}": {{"theme": "t", "text": "x"}}' for n in range(MAX_RECORDS - 1))
    with pytest.raises(ScenarioFileError) as refused:
        records_from_json("{\n" + entries + ',\n"FS9999": {"theme": "t"}}')
    assert refused.value.problems == [f"line {MAX_RECORDS + 1}, field 'text': missing or empty"]


def test_an_xlsx_with_a_huge_shared_strings_part_is_refused_before_it_is_read(study, client):
    """Hostile pass 9 (F3): 48 MB of shared strings passed the 50 MB part bound and openpyxl's
    read held the web process 30 s. Parts are now bounded at 8 MB, read from the zip directory."""
    import random

    from tests.hostile_files import _rezip

    words = random.Random(9).choices(["dune", "reef", "tide", "wall", "flood", "marsh"], k=1_900_000)
    strings = f'<sst xmlns="x"><si><t>{" ".join(words)}</t></si></sst>'.encode()
    assert len(strings) > 8 * 1024 * 1024
    content = _rezip({}, add={"xl/sharedStrings.xml": strings})
    client.force_login(UserFactory(username="boss", role="Admin"))
    page = client.post(
        reverse("studies:scenarios_import", args=[study.pk]),
        {"file": SimpleUploadedFile("big.xlsx", content)},
        follow=True,
    ).content.decode()
    assert "A part of the workbook is too large (xl/sharedStrings.xml)." in page
    assert not Scenario.objects.exists()


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        # hostile pass 18: two equal keys of a one-line JSON object answered 500 (the unique code)
        (
            "dup.json",
            '{"FS91": {"theme": "a", "text": "x"}, "FS91": {"theme": "b", "text": "y"}}',
            "FS91 appears twice",
        ),
        # a theme turned around on the raters' queue, an escape sequence, a bell
        ("rtl.jsonl", _jsonl([{"code": "FS85", "theme": "\u202eabc", "text": "x"}]), "U+202E"),
        ("esc.jsonl", _jsonl([{"code": "FS86", "theme": "\x1b[31mred", "text": "x"}]), "U+001B"),
        ("bell.jsonl", _jsonl([{"code": "FS87", "theme": "t", "text": "a\x07b"}]), "U+0007"),
    ],
)
def test_duplicate_keys_and_control_characters_are_refused_on_the_page(study, client, name, content, said):
    client.force_login(UserFactory(username="boss", role="Admin"))
    url = reverse("studies:scenarios_import", args=[study.pk])
    reply = client.post(url, {"file": SimpleUploadedFile(name, content.encode())})
    assert reply.status_code == 400 and said in reply.content.decode()
    assert not Scenario.objects.exists()


def test_a_text_keeps_its_lines_tabs_and_page_breaks(study, tmp_path):
    text = "First line\n\tindented\r\nafter a page break\f end"
    call_command(
        "import_scenarios",
        _write(tmp_path, "ok.jsonl", _jsonl([{"code": "FS88", "theme": "t", "text": text}])),
        "--study",
        "Lab",
    )
    assert Scenario.objects.get(study=study, code="FS88").text == text
