"""The import pages for responses and scores: what the commands do, from an admin's
browser upload, all-or-nothing, with every problem listed and nothing changed."""

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from scoring.models import ScoreSheet
from studies.models import Response, Study
from tests.factories import UserFactory, rater

pytestmark = pytest.mark.django_db


def _upload(data, name="data_A.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, json.dumps(data, ensure_ascii=False).encode(), "application/json")


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    return client


@pytest.fixture
def empty_study():
    return Study.objects.create(name="Lab study")


def test_responses_from_data_a_on_an_empty_study_then_again_changes_nothing(
    admin_client, empty_study, data_a
):
    url = reverse("studies:responses_import", args=[empty_study.pk])
    reply = admin_client.post(url, {"file": _upload(data_a), "create_missing": "on"})
    assert reply.status_code == 302
    research_ids = {row[0] for row in data_a}
    assert (
        set(Response.objects.filter(study=empty_study).values_list("research_id", flat=True)) == research_ids
    )
    page = admin_client.get(reverse("studies:study", args=[empty_study.pk])).content.decode()
    n = len(research_ids)
    assert (f"{n} response in this study" if n == 1 else f"{n} responses in this study") in page
    again = admin_client.post(url, {"file": _upload(data_a), "create_missing": "on"}, follow=True)
    assert f"{len(research_ids)} already present and identical" in again.content.decode()
    assert Response.objects.filter(study=empty_study).count() == len(research_ids)


def test_responses_naming_unknown_models_are_refused_with_every_name(admin_client, empty_study, data_a):
    url = reverse("studies:responses_import", args=[empty_study.pk])
    reply = admin_client.post(url, {"file": _upload(data_a)})
    assert reply.status_code == 400
    page = reply.content.decode()
    assert 'id="import-problems"' in page and "Nothing was imported" in page
    assert "FS10" in page  # the unknown scenario is named
    assert not Response.objects.filter(study=empty_study).exists()


@pytest.mark.parametrize(
    "content,expected",
    [
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"[1, 2,", "not valid JSON"),
        (b'{"research_id": "A05_FS10"}\n', "field"),
    ],
)
def test_a_broken_response_file_says_why_and_changes_nothing(admin_client, empty_study, content, expected):
    url = reverse("studies:responses_import", args=[empty_study.pk])
    reply = admin_client.post(url, {"file": SimpleUploadedFile("x.json", content)})
    assert reply.status_code == 400
    assert expected in reply.content.decode()
    assert not Response.objects.exists()


def test_a_response_file_s_problems_are_listed_in_the_reader_s_language(admin_client, empty_study):
    admin_client.cookies["django_language"] = "zh-hans"
    lines = b'{"research_id": "A05_FS10"}\n["not an object"]\n'
    url = reverse("studies:responses_import", args=[empty_study.pk])
    reply = admin_client.post(url, {"file": SimpleUploadedFile("x.jsonl", lines)})
    page = reply.content.decode().replace("&#x27;", "'")
    assert reply.status_code == 400
    # every part in Chinese: the line, the field and what is wrong
    assert "第 1 行 (A05_FS10)，字段 'scenario'：缺失" in page
    assert "第 2 行，字段 'record'：应为 JSON 对象" in page
    assert "line " not in page and "field '" not in page
    assert not Response.objects.exists()


def test_scores_from_data_a_become_submitted_sheets(admin_client, empty_study, data_a):
    url = reverse("calibration:scores_import", args=[empty_study.pk])
    reply = admin_client.post(url, {"file": _upload(data_a), "create_missing": "on", "raters": ""})
    assert reply.status_code == 302, reply.content.decode()[:2000]
    sheets = ScoreSheet.objects.filter(assignment__response__study=empty_study)
    assert sheets.count() == 2 * len(data_a)
    assert set(sheets.values_list("status", "source").distinct()) == {("submitted", "import")}
    a05 = sheets.filter(assignment__response__research_id="A05_FS10")
    assert sorted(a05.values_list("overall", flat=True)) == [116, 117]


def test_scores_can_go_to_existing_users_by_mapping(admin_client, empty_study, data_a):
    alice = rater("alice")
    url = reverse("calibration:scores_import", args=[empty_study.pk])
    first = data_a[0]
    reply = admin_client.post(
        url, {"file": _upload([first]), "create_missing": "on", "raters": f"{first[1][0]}=alice\n"}
    )
    assert reply.status_code == 302
    assert ScoreSheet.objects.filter(assignment__rater=alice).count() == 1


def test_a_tampered_total_refuses_the_whole_file(admin_client, empty_study, data_a):
    tampered = copy.deepcopy(data_a)
    tampered[-1][3]["Total Score"] += 7  # the file's own total no longer matches its items
    url = reverse("calibration:scores_import", args=[empty_study.pk])
    reply = admin_client.post(url, {"file": _upload(tampered), "create_missing": "on"})
    assert reply.status_code == 400
    assert "Nothing was imported" in reply.content.decode()
    assert not ScoreSheet.objects.exists()
    assert not Response.objects.exists()


@pytest.mark.parametrize("raters", ["H01 alice", "=bob", "H02="])
def test_a_bad_rater_mapping_line_is_a_form_error(admin_client, empty_study, data_a, raters):
    url = reverse("calibration:scores_import", args=[empty_study.pk])
    reply = admin_client.post(url, {"file": _upload(data_a), "create_missing": "on", "raters": raters})
    assert reply.status_code == 400
    assert "expected CODE=USERNAME" in reply.content.decode()
    assert not ScoreSheet.objects.exists()


def test_not_json_scores_say_so(admin_client, empty_study):
    url = reverse("calibration:scores_import", args=[empty_study.pk])
    reply = admin_client.post(url, {"file": SimpleUploadedFile("s.json", b"{oops")})
    assert reply.status_code == 400
    assert "not valid JSON" in reply.content.decode()


@pytest.mark.parametrize("name", ["studies:responses_import", "calibration:scores_import"])
def test_raters_and_researchers_cannot_import(client, empty_study, data_a, name):
    url = reverse(name, args=[empty_study.pk])
    for user in (rater("r1", "H05"), UserFactory(username="res", role="Researcher")):
        client.force_login(user)
        assert client.post(url, {"file": _upload(data_a), "create_missing": "on"}).status_code == 403
    assert not Response.objects.exists()
