"""The study's page shows its first scoring groups and says how many there are, with a link to the
assignments page, which pages and filters them all: at 600 groups (the 10x study) the page drew
every one of them."""

from __future__ import annotations

import pytest

from scoring.models import ScoringGroup
from studies.selectors import PAIRS_SHOWN
from tests.factories import ConditionFactory, ScenarioFactory, StudyFactory, rater

pytestmark = pytest.mark.django_db


def _groups(study, n):
    condition = ConditionFactory()
    first, second = rater("pairs-a", code="H31"), rater("pairs-b", code="H32")
    for i in range(n):
        ScoringGroup.objects.create(
            study=study, scenario=ScenarioFactory(study=study, code=f"FS{i:03d}"), condition=condition,
            rater_a=first, rater_b=second,
        )  # fmt: skip


def test_the_first_groups_are_shown_with_the_count_and_a_link_to_them_all(admin_client):
    study = StudyFactory()
    _groups(study, PAIRS_SHOWN + 3)

    page = admin_client.get(f"/manage/studies/{study.pk}/").content.decode()

    pairs = page.split('id="pairs"', 1)[1].split("</section>", 1)[0]
    assert pairs.count("/manage/assignments/groups/") == PAIRS_SHOWN
    assert "FS000" in pairs and f"FS{PAIRS_SHOWN - 1:03d}" in pairs and f"FS{PAIRS_SHOWN:03d}" not in pairs
    assert f"The first {PAIRS_SHOWN} of {PAIRS_SHOWN + 3} scoring groups" in pairs
    assert f'href="/manage/assignments/?study={study.pk}"' in pairs


def test_a_study_with_few_groups_shows_them_all_without_the_note(admin_client):
    study = StudyFactory()
    _groups(study, 3)

    page = admin_client.get(f"/manage/studies/{study.pk}/").content.decode()

    assert "FS002" in page
    assert 'id="pairs-more"' not in page
