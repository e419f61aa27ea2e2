"""A judge's settings are changed on its page, through the service, audited (the Django
admin no longer edits judges)."""

import pytest

from judging.models import Judge
from judging.services.judges import JudgeError, judge_create, judge_update
from studies.models import AuditEvent, ModelEndpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def judge(demo):
    return judge_create(name="Edited judge", endpoint=ModelEndpoint.objects.get(name="stub"))


def test_the_page_changes_the_settings_and_records_who_changed_what(client, demo, judge):
    client.login(username="admin", password="demo-pass-2026")
    page = client.get(f"/manage/judges/{judge.pk}/edit/")
    assert page.status_code == 200 and b"judge-edit-form" in page.content
    reply = client.post(
        f"/manage/judges/{judge.pk}/edit/",
        {
            "temperature": "0.7",
            "samples": "3",
            "structured_output": "on",
            "provider_family": " qwen ",
            "is_active": "on",
        },
    )
    assert reply.status_code == 302
    judge.refresh_from_db()
    assert (judge.temperature, judge.samples, judge.provider_family) == (0.7, 3, "qwen")
    event = AuditEvent.objects.get(action="judge.update")
    assert event.actor.username == "admin" and event.target == f"judging.judge:{judge.pk}"
    assert event.changes == {"temperature": [0.0, 0.7], "samples": [1, 3], "provider_family": ["", "qwen"]}


def test_bad_values_are_refused_with_a_message_and_change_nothing(client, demo, judge):
    client.login(username="researcher", password="demo-pass-2026")
    reply = client.post(f"/manage/judges/{judge.pk}/edit/", {"temperature": "9", "samples": "0"})
    assert reply.status_code == 400 and b"errorlist" in reply.content
    assert Judge.objects.get(pk=judge.pk).temperature == 0.0
    assert not AuditEvent.objects.exclude(action="judge.create").exists()  # the fixture made it
    with pytest.raises(JudgeError):
        judge_update(judge=judge, actor=None, endpoint=None)  # the endpoint defines the judge


def test_raters_cannot_open_the_page(client, demo, judge):
    client.login(username="rater1", password="demo-pass-2026")
    assert client.get(f"/manage/judges/{judge.pk}/edit/").status_code == 403
    assert client.post(f"/manage/judges/{judge.pk}/edit/", {"temperature": "1"}).status_code == 403
    assert Judge.objects.get(pk=judge.pk).temperature == 0.0
