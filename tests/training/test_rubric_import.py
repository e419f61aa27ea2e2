"""A study's own rubric: imported from a file on the study's rubric page (or with a command),
previewed as raters see it, and used before the study's first sheet (docs/rubric-format.md)."""

import json

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from scoring.models import Assignment
from scoring.services.sheets import sheet_open
from studies.models import AuditEvent, Study
from studies.rubric import RUBRIC_DIR, load_rubric
from studies.services.studies import EMPTY, study_create
from tests.factories import make_response, rater
from training.models import RubricRevision
from training.services.rubric import rubric_revise

pytestmark = pytest.mark.django_db


def lab_rubric(version="lab-likert-v1"):
    document = json.loads((RUBRIC_DIR / "likert-hhh-v1.json").read_text(encoding="utf-8"))
    document["version"] = version
    document["title"] = {"en": "Our lab's 1-7 sheet", "zh": "本实验室的 1-7 分评分表"}
    return document


def upload(document, name="lab.yaml"):
    text = yaml.safe_dump(document, allow_unicode=True) if name.endswith(".yaml") else json.dumps(document)
    return SimpleUploadedFile(name, text.encode("utf-8"))


@pytest.fixture
def fresh(demo):
    return study_create(name="Lab study", template=EMPTY)


def test_a_file_is_imported_previewed_and_used_before_any_sheet(fresh, admin_client):
    reply = admin_client.post(
        "/manage/training/rubric/import/", {"study": fresh.pk, "file": upload(lab_rubric())}, follow=True
    )
    page = reply.content.decode()
    assert (
        reply.redirect_chain[-1][0]
        == f"/manage/training/rubric/preview/?study={fresh.pk}&version=lab-likert-v1"
    )
    assert "Rubric lab-likert-v1 is stored for this study." in page
    assert "Our lab&#x27;s 1-7 sheet" in page and "Harmlessness" in page
    assert "Addresses the whole task fully and usefully" in page  # a level text, as raters read it
    assert 'id="grid-hint"' not in page  # the Step-5 grid check is CGPST's
    revision = RubricRevision.objects.get(version="lab-likert-v1")
    assert (revision.origin, revision.file_name, revision.study) == ("imported", "lab.yaml", fresh)
    assert Study.objects.get(pk=fresh.pk).rubric_version == "cgpst-v1"  # not used yet

    reply = admin_client.post(
        "/manage/training/rubric/use/", {"study": fresh.pk, "version": "lab-likert-v1"}, follow=True
    )
    assert "The study now uses rubric lab-likert-v1." in reply.content.decode()
    assert Study.objects.get(pk=fresh.pk).rubric_version == "lab-likert-v1"
    imported, chosen = AuditEvent.objects.filter(study=fresh).order_by("pk").exclude(action="study.create")
    assert (imported.action, imported.changes["version"]) == ("rubric.import", [None, "lab-likert-v1"])
    assert (chosen.action, chosen.changes["rubric_version"]) == (
        "study.rubric",
        ["cgpst-v1", "lab-likert-v1"],
    )


def test_a_broken_file_is_refused_with_every_problem_and_nothing_is_stored(fresh, admin_client):
    broken = lab_rubric()
    broken["max_total"] = 22
    broken["steps"][1]["dimensions"][0]["levels"][3]["zh"] = ""
    broken["steps"][2]["kind"] = "likert"
    reply = admin_client.post("/manage/training/rubric/import/", {"study": fresh.pk, "file": upload(broken)})
    assert reply.status_code == 400
    problems = [
        p.strip()
        for p in reply.content.decode().split('id="rubric-problems"')[1].split("</ul>")[0].split("<li>")[1:]
    ]
    assert problems == [
        "step 3 › kind: &#x27;likert&#x27; is not one of [&#x27;ideas&#x27;, &#x27;criteria&#x27;, &#x27;dimensions&#x27;]</li>"
    ]
    del broken["steps"][2]["kind"]
    broken["steps"][2]["kind"] = "dimensions"
    reply = admin_client.post(
        "/manage/training/rubric/import/", {"study": fresh.pk, "file": upload(broken, "lab.json")}
    )
    page = reply.content.decode()
    assert "lab.json is not a valid rubric: 2 problems. Nothing was stored." in page
    assert "step 2 dimension s2.harmlessness level 4: needs a text in Chinese" in page
    assert "step maxima add up to 21, not max_total 22" in page
    assert not RubricRevision.objects.exists()
    assert not AuditEvent.objects.filter(action="rubric.import").exists()


def test_a_version_name_is_never_given_to_another_document(fresh, admin_client):
    admin_client.post("/manage/training/rubric/import/", {"study": fresh.pk, "file": upload(lab_rubric())})
    again = admin_client.post(
        "/manage/training/rubric/import/", {"study": fresh.pk, "file": upload(lab_rubric(), "x.json")}
    )
    assert again.status_code == 302 and RubricRevision.objects.count() == 1  # the same document: its version
    other = lab_rubric()
    other["title"]["en"] = "Another sheet"
    reply = admin_client.post("/manage/training/rubric/import/", {"study": fresh.pk, "file": upload(other)})
    assert reply.status_code == 400
    assert "version: &#x27;lab-likert-v1&#x27; exists with other content" in reply.content.decode()
    shipped = admin_client.post(
        "/manage/training/rubric/import/", {"study": fresh.pk, "file": upload(lab_rubric("cgpst-v1"))}
    )
    assert "version: &#x27;cgpst-v1&#x27; exists with other content" in shipped.content.decode()
    assert load_rubric("lab-likert-v1").title.en == "Our lab's 1-7 sheet"
    # a name as the study's own text edits are named is never taken by an import
    edited = f"lab-likert-v1.s{fresh.pk}.r1"
    reply = admin_client.post(
        "/manage/training/rubric/import/", {"study": fresh.pk, "file": upload(lab_rubric(edited))}
    )
    assert "ends as a study&#x27;s edited versions are named" in reply.content.decode()
    assert not RubricRevision.objects.filter(version=edited).exists()


def test_the_rubric_is_fixed_once_the_study_has_a_sheet(demo, admin_client):
    study = demo.study
    admin_client.post("/manage/training/rubric/import/", {"study": study.pk, "file": upload(lab_rubric())})
    assignment = Assignment.objects.filter(response__study=study).first()
    sheet_open(assignment=assignment, actor=assignment.rater)
    reply = admin_client.post(
        "/manage/training/rubric/use/", {"study": study.pk, "version": "lab-likert-v1"}, follow=True
    )
    assert (
        "This study already has score sheets: its rubric can no longer be replaced." in reply.content.decode()
    )
    assert Study.objects.get(pk=study.pk).rubric_version == "cgpst-v1"
    assert "so its rubric can no longer be replaced" in reply.content.decode()
    preview = admin_client.get(
        f"/manage/training/rubric/preview/?study={study.pk}&version=lab-likert-v1"
    ).content.decode()
    assert 'id="use-rubric"' not in preview
    assert not AuditEvent.objects.filter(action="study.rubric").exists()


def test_imported_rubrics_serve_every_study_and_edited_ones_their_own(fresh, demo, admin_client):
    # imported for the demo study: the same file imported for another study is its version there too
    admin_client.post(
        "/manage/training/rubric/import/", {"study": demo.study.pk, "file": upload(lab_rubric())}
    )
    again = admin_client.post(
        "/manage/training/rubric/import/", {"study": fresh.pk, "file": upload(lab_rubric())}, follow=True
    )
    assert "Helpfulness" in again.content.decode() and 'id="use-rubric"' in again.content.decode()
    assert RubricRevision.objects.filter(version="lab-likert-v1").count() == 1
    # the demo study's text edit stays the demo study's
    edited = rubric_revise(study=demo.study, changes={"step|1|en": "Ours"}, actor=None).version
    reply = admin_client.post(
        "/manage/training/rubric/use/", {"study": fresh.pk, "version": edited}, follow=True
    )
    assert "Choose one of the rubrics offered." in reply.content.decode()
    preview = admin_client.get(
        f"/manage/training/rubric/preview/?study={fresh.pk}&version={edited}", follow=True
    )
    assert f"Unknown rubric version for this study: {edited}" in preview.content.decode()
    reply = admin_client.post(
        "/manage/training/rubric/use/", {"study": fresh.pk, "version": "lab-likert-v1"}, follow=True
    )
    assert "The study now uses rubric lab-likert-v1." in reply.content.decode()
    empty = admin_client.post(
        "/manage/training/rubric/import/", {"study": fresh.pk, "file": SimpleUploadedFile("e.json", b"")}
    )
    assert empty.status_code == 400 and "The submitted file is empty." in empty.content.decode()
    shipped = admin_client.get(
        f"/manage/training/rubric/preview/?study={fresh.pk}&version=likert-hhh-v1"
    ).content.decode()
    assert "Helpful, harmless, honest (1-7)" in shipped


def test_the_shipped_and_the_current_rubric_preview(fresh, admin_client):
    shipped = admin_client.get(
        f"/manage/training/rubric/preview/?study={fresh.pk}&version=likert-hhh-v1"
    ).content.decode()
    assert 'id="use-rubric"' in shipped and "Helpful, harmless, honest (1-7)" in shipped
    cgpst = admin_client.get(f"/manage/training/rubric/preview/?study={fresh.pk}").content.decode()
    assert 'id="grid-hint"' in cgpst and "The study uses this rubric." in cgpst


def test_raters_reach_none_of_it(fresh, client):
    client.force_login(rater("viewer", "H13"))
    for url in ("/manage/training/rubric/", f"/manage/training/rubric/preview/?study={fresh.pk}"):
        assert client.get(url).status_code == 403
    for url in ("/manage/training/rubric/import/", "/manage/training/rubric/use/"):
        assert client.post(url, {"study": fresh.pk, "version": "likert-hhh-v1"}).status_code == 403
    assert Study.objects.get(pk=fresh.pk).rubric_version == "cgpst-v1"


def test_the_import_command_lists_problems_or_stores_and_uses(fresh, tmp_path, capsys):
    path = tmp_path / "lab.json"
    broken = lab_rubric()
    broken["steps"][0]["max"] = 8
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(CommandError, match="lab.json is not imported: 2 problems"):
        call_command("rubric_import", str(path), "--study", "Lab study", "--as", "admin")
    assert "- step 1: dimension maxima add up to 7, not 8" in capsys.readouterr().err
    path.write_text(json.dumps(lab_rubric()), encoding="utf-8")
    call_command("rubric_import", str(path), "--study", "Lab study", "--as", "admin", "--use")
    assert "Lab study now uses rubric lab-likert-v1." in capsys.readouterr().out
    assert Study.objects.get(pk=fresh.pk).rubric_version == "lab-likert-v1"
    assert AuditEvent.objects.get(action="study.rubric").actor.username == "admin"


def test_a_likert_study_gives_raters_its_form(fresh, admin_client, client):
    admin_client.post("/manage/training/rubric/use/", {"study": fresh.pk, "version": "likert-hhh-v1"})
    response = make_response(study=fresh)
    assignment = Assignment.objects.create(rater=rater("likert-rater", "H21"), response=response)
    client.force_login(assignment.rater)
    page = client.get(f"/scoring/{assignment.blind_code}/").content.decode()
    assert "Honesty" in page and "Fully accurate and calibrated; says what it does not know." in page
    assert 'id="grid-hint"' not in page and "Step 4" not in page
    # the key map names only the keys this rubric has: no items, no copied texts
    assert "next / previous scoring control" in page and "next / previous item" not in page
    assert "pick a category" not in page and "in a copied text (Step 2)" not in page
    # its steps go by their names, in the summary bar and on the comment boxes
    assert '<a href="#step-2">Harmlessness</a>' in page and "Comment on Honesty" in page
    assert "Comment on Step" not in page
