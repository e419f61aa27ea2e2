"""Issue 26, import errors all at once, for scores: a data_A.json file with several
problems on several records is refused whole, and the command and the page list every
problem of every record, in record order, each naming its record and field; nothing is
stored. Before, the import stopped at the first record whose shape was wrong."""

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from scoring.models import Assignment, RaterProfile, ScoreSheet, ScoringGroup
from studies.models import Response

# every problem the file below has, in the order the import must list them
EXPECTED = [
    "record 1 (A05_FS10), rater H01, field 'Step-1 item 2': needs Category or Invalid",
    "record 1 (A05_FS10), rater H01, field 'Step-2': missing dimension s2.focus",
    "record 1 (A05_FS10), rater H02: total: the file says 120, the scores add up to 117",
    "record 2 (XX), field 'response_id': not a research ID like A05_FS10",
    "record 2 (XX), field 'raters': expected two rater IDs",
    "record 2 (XX), scores1, field 'Step-1': missing or not a list",
    "record 2 (XX), scores2, field 'scores': expected an object",
    "record 3, field 'record': expected [response_id, [rater1, rater2], scenario_id, scores1, scores2]",
    "record 4 (A05_FS10), field 'scenario_id': does not match the research ID",
    "record 4 (A05_FS10), field 'response_id': appears twice in the file (first at record 1)",
    "record 5 (B05_FS10), field 'response_id': no response B05_FS10 in study",
    "record 5 (B05_FS10), rater H02: 'admin' is not a rater",
]


def _bad_file(data_a) -> list:
    good = data_a[0]
    first = copy.deepcopy(good)
    del first[3]["Step-1"][1]["Category"]  # H01: an idea with neither Category nor Invalid
    del first[3]["Step-2"][0]["Focus"]  # H01: a dimension left out
    first[4]["Total Score"] = 120  # H02: the file's total differs from its items (117)
    second = ["XX", ["H01"], "FS10", {"Step-1": "none"}, []]
    third = "not a record"
    fourth = copy.deepcopy(good)
    fourth[2] = "FS11"
    fifth = copy.deepcopy(good)
    fifth[0] = "B05_FS10"  # well formed, but the study has no such response
    return [first, second, third, fourth, fifth]


def _in_order(text: str) -> list[int]:
    """Where each expected problem starts in ``text`` (-1 when absent)."""
    return [text.find(problem) for problem in EXPECTED]


def _nothing_stored(before: dict) -> None:
    assert ScoreSheet.objects.count() == 0
    assert ScoringGroup.objects.count() == before["groups"]
    assert Assignment.objects.count() == before["assignments"]
    assert RaterProfile.objects.count() == before["profiles"]
    assert Response.objects.count() == before["responses"]


def _counts() -> dict:
    return {
        "groups": ScoringGroup.objects.count(),
        "assignments": Assignment.objects.count(),
        "profiles": RaterProfile.objects.count(),
        "responses": Response.objects.count(),
    }


def test_the_command_lists_every_problem_of_every_record_in_order(demo, data_a, tmp_path):
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(_bad_file(data_a), ensure_ascii=False), encoding="utf-8")
    before = _counts()
    with pytest.raises(CommandError) as excinfo:
        call_command("import_scores", str(path), "--rater", "H02=admin")
    message = str(excinfo.value)
    places = _in_order(message)
    assert -1 not in places, [p for p, at in zip(EXPECTED, places, strict=True) if at < 0]
    assert places == sorted(places)
    # record 2's other steps are named too, each once, in step order
    assert [message.count(f"(XX), scores1, field 'Step-{n}'") == 1 for n in range(1, 7)] == [True] * 6
    assert "(XX), field 'Step-" not in message  # once per rater, not again for the record
    assert message.startswith("Nothing imported (")
    _nothing_stored(before)


def test_the_page_lists_every_problem_of_every_record_in_order(demo, data_a, client):
    client.login(username="admin", password="demo-pass-2026")
    before = _counts()
    upload = SimpleUploadedFile("scores.json", json.dumps(_bad_file(data_a), ensure_ascii=False).encode())
    reply = client.post(
        reverse("calibration:scores_import", args=[demo.study.pk]),
        {"file": upload, "raters": "H02=admin"},
    )
    assert reply.status_code == 400
    page = reply.content.decode()
    problems = page[page.index('id="import-problems"') :]
    places = _in_order(problems.replace("&#x27;", "'").replace("&quot;", '"'))
    assert -1 not in places, [p for p, at in zip(EXPECTED, places, strict=True) if at < 0]
    assert places == sorted(places)
    _nothing_stored(before)


def test_the_page_lists_them_in_the_reader_s_language(demo, data_a, client):
    client.login(username="admin", password="demo-pass-2026")
    client.cookies["django_language"] = "zh-hans"
    upload = SimpleUploadedFile("scores.json", json.dumps(_bad_file(data_a), ensure_ascii=False).encode())
    reply = client.post(
        reverse("calibration:scores_import", args=[demo.study.pk]),
        {"file": upload, "raters": "H02=admin"},
    )
    page = reply.content.decode().replace("&#x27;", "'")
    assert reply.status_code == 400
    # the places and fields too: record, rater, field
    for text in (
        "第 1 条记录 (A05_FS10)，评分者 H01，字段 'Step-2'：缺少维度 s2.focus",
        "第 1 条记录 (A05_FS10)，评分者 H02：总分：文件写的是 120，分数合计为 117",
        "第 2 条记录 (XX)，字段 'raters'：应为两个评分者编号",
        "第 2 条记录 (XX)，scores1，字段 'Step-1'：",
        "第 5 条记录 (B05_FS10)，字段 'response_id'：研究 CGPST demo 中没有回答 B05_FS10",
        "第 5 条记录 (B05_FS10)，评分者 H02：'admin' 不是评分者",
    ):
        assert text in page, text
    assert "record " not in page and "field '" not in page


def test_a_record_with_problems_of_its_own_is_also_named_unknown(demo, data_a, tmp_path):
    """A record whose own scores are wrong is still checked against the study: its unknown
    response and scenario are listed after its own problems, not left for the next upload."""
    record = copy.deepcopy(data_a[0])
    record[0], record[1], record[2] = "B05_FS77", ["H01", "H01"], "FS77"
    del record[3]["Step-3"]
    path = tmp_path / "scores.json"
    path.write_text(json.dumps([record], ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CommandError) as excinfo:
        call_command("import_scores", str(path))
    message = str(excinfo.value)
    expected = [
        "record 1 (B05_FS77), field 'raters': the two raters must differ",
        "record 1 (B05_FS77), rater H01, field 'Step-3': missing or not a list",
        "record 1 (B05_FS77), field 'response_id': no response B05_FS77 in study",
        "record 1 (B05_FS77), field 'scenario': unknown scenario 'FS77'",
    ]
    places = [message.find(problem) for problem in expected]
    assert -1 not in places, [p for p, at in zip(expected, places, strict=True) if at < 0]
    assert places == sorted(places)
    assert Response.objects.filter(research_id="B05_FS77").count() == 0
