"""A study's admin edits guidelines and level texts: a new rubric version; sheets keep theirs."""

import pytest
from django.core.management import call_command

from scoring.models import Assignment, ScoreSheet
from scoring.services.sheets import sheet_open
from studies.models import AuditEvent, Study
from studies.rubric import load_rubric
from tests.factories import code_for, make_response, rater
from training.models import RubricRevision
from training.services.rubric import rubric_revise
from training.services.training_set import TrainingError

pytestmark = pytest.mark.django_db
FOCUS_3 = "level|2|s2.focus|3|"
NEW_EN, NEW_ZH = "A weak KVP-purpose link (our lab wording).", "KVP 与目的联系较弱（本实验室的表述）。"


def test_an_edit_makes_a_new_version_and_opened_sheets_keep_theirs(demo, client):
    study = demo.study
    one = rater("one", "H11")
    one.set_password("pw-edit-2026")
    one.save()
    first, second = (
        make_response(study=study, research_id="B01_FS10"),
        make_response(study=study, research_id="B02_FS10"),
    )
    before = sheet_open(assignment=Assignment.objects.create(rater=one, response=first), actor=one)
    assert before.rubric_version == "cgpst-v1"

    revision = rubric_revise(
        study=study,
        changes={
            FOCUS_3 + "en": NEW_EN,
            FOCUS_3 + "zh": NEW_ZH,
            "step|3|en": "Our Step-3 guideline.",
            "step|3|zh": "我们的第三步指南。",
        },  # fmt: skip
        actor=None,
    )
    study.refresh_from_db()
    assert revision.version == study.rubric_version == f"cgpst-v1.s{study.pk}.r1"
    assert revision.based_on == "cgpst-v1" and len(revision.changes) == 4
    edited = load_rubric(revision.version)
    focus = edited.dimension("s2.focus")
    assert (
        focus.levels[2].en == NEW_EN
        and focus.levels[2].source == "edited"
        and focus.levels_source == "edited"
    )
    assert focus.levels[3].source == "platform"  # the other levels keep their provenance
    assert edited.step(3).guideline.zh == "我们的第三步指南。"
    assert load_rubric("cgpst-v1").dimension("s2.focus").levels[2].en != NEW_EN  # the file is untouched

    after = sheet_open(assignment=Assignment.objects.create(rater=one, response=second), actor=one)
    assert after.rubric_version == revision.version
    client.login(username="one", password="pw-edit-2026")
    old_page = client.get(f"/scoring/{code_for('one', first)}/").content.decode()
    new_page = client.get(f"/scoring/{code_for('one', second)}/").content.decode()
    assert NEW_EN not in old_page and "edited for this study" not in old_page
    assert NEW_EN in new_page and "Our Step-3 guideline." in new_page and "edited for this study" in new_page
    assert ScoreSheet.objects.get(pk=before.pk).rubric_version == "cgpst-v1"
    # the statistics read the study's (edited) version too
    call_command("agreement", "--recompute")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"step|4|en": "Only in English."}, "Give every text in English and in Chinese"),
        ({FOCUS_3 + "en": "  "}, "Give every text in English and in Chinese"),
        ({"level|2|s2.focus|3|en": load_rubric().dimension("s2.focus").levels[2].en}, "Nothing was changed."),
        ({"level|2|s2.nope|3|en": "x"}, "Unknown rubric text"),
    ],
)
def test_bad_edits_are_refused_and_change_nothing(demo, changes, message):
    with pytest.raises(TrainingError, match=message):
        rubric_revise(study=demo.study, changes=changes, actor=None)
    assert Study.objects.get(pk=demo.study.pk).rubric_version == "cgpst-v1"
    assert not RubricRevision.objects.exists()


def test_the_admin_page_edits_one_step(demo, admin_client, client):
    study = demo.study
    page = admin_client.get(f"/manage/training/rubric/?study={study.pk}&step=2")
    assert page.status_code == 200 and f'name="{FOCUS_3}en"' in page.content.decode()
    data = {name: field.initial for name, field in page.context["form"].fields.items()}
    data.update({"study": study.pk, "step": 2, FOCUS_3 + "en": NEW_EN, FOCUS_3 + "zh": NEW_ZH})
    reply = admin_client.post("/manage/training/rubric/", data, follow=True)
    assert f"Saved as rubric version cgpst-v1.s{study.pk}.r1" in reply.content.decode()
    reply = admin_client.post("/manage/training/rubric/", data, follow=True)  # the same again
    assert "Nothing was changed." in reply.content.decode()
    assert RubricRevision.objects.count() == 1
    [event] = AuditEvent.objects.filter(action="rubric.revise")  # the refused second edit: none
    assert event.actor.username == "admin" and event.study == study
    assert event.changes["rubric_version"] == ["cgpst-v1", f"cgpst-v1.s{study.pk}.r1"]
    assert [event.changes["texts"][0][0], event.changes["texts"][0][2]] == [FOCUS_3 + "en", NEW_EN]
    client.force_login(rater("viewer", "H13"))
    assert client.get("/manage/training/rubric/").status_code == 403
