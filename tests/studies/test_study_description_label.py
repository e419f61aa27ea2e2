"""A study made from the CGPST template keeps the template's description in the language of the
admin who made it; its page says it in the reader's language. A lab's own description stays as
typed in every language."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.html import escape

from core.accounts.roles import ADMIN
from studies.condition_labels import CGPST_DESCRIPTION
from studies.services.studies import CGPST_RELEASE, EMPTY, study_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _page(client, study, language: str) -> str:
    client.cookies["django_language"] = language
    return client.get(f"/manage/studies/{study.pk}/").content.decode()


def test_the_templates_description_is_shown_in_the_readers_language(client):
    admin = UserFactory(username="desc-admin", role=ADMIN)
    with translation.override("zh-hans"):
        study = study_create(name="复现研究", template=CGPST_RELEASE, actor=admin)
        chinese = translation.gettext(CGPST_DESCRIPTION)
    assert study.description == chinese != CGPST_DESCRIPTION  # stored as its maker read it
    client.force_login(admin)
    assert escape(CGPST_DESCRIPTION) in _page(client, study, "en")
    assert escape(chinese) in _page(client, study, "zh-hans")


def test_a_labs_own_description_stays_as_typed(client):
    admin = UserFactory(username="desc-admin2", role=ADMIN)
    study = study_create(name="Own", template=EMPTY, description="Our pilot, 2027.", actor=admin)
    client.force_login(admin)
    assert "Our pilot, 2027." in _page(client, study, "zh-hans")
    assert "Our pilot, 2027." in _page(client, study, "en")
