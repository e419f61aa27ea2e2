"""The rater choices of the assignment pages: raters a study with a training set will not
give live work to say so (with the study), and are disabled where the study is known."""

import re

import pytest

from scoring.models import ScoringGroup
from studies.models import Study
from tests.factories import rater
from training.services.qualification import qualification_override

pytestmark = pytest.mark.django_db


def _tag(html: str, element: str, pk: int) -> str:
    """The opening tag of the option or checkbox with value ``pk``, and its label text."""
    match = re.search(rf'<{element}[^>]*value="{pk}"[^>]*>([^<]*)', html)
    assert match, (element, pk)
    return match.group(0)


@pytest.fixture
def raters(gold, admin_user):
    fresh = rater("fresh", "H09")
    cleared = rater("cleared", "H10")
    qualification_override(rater=cleared, study=gold.study, actor=admin_user, reason="senior rater")
    return fresh, cleared


def test_the_pair_form_disables_and_marks_unqualified_raters(client, gold, raters, admin_user):
    fresh, cleared = raters
    client.force_login(admin_user)
    html = client.get("/manage/assignments/").content.decode()  # a single study: it is preselected
    tag = _tag(html, "option", fresh.pk)
    assert "disabled" in tag and f"not qualified yet ({gold.study.name})" in tag
    tag = _tag(html, "option", cleared.pk)
    assert "disabled" not in tag and "not qualified" not in tag


def test_the_automatic_plan_and_the_group_page_mark_them_too(client, gold, raters, admin_user):
    fresh, cleared = raters
    client.force_login(admin_user)
    html = client.get("/manage/assignments/auto/").content.decode()
    assert "disabled" in _tag(html, "input", fresh.pk)
    assert "disabled" not in _tag(html, "input", cleared.pk)
    group = ScoringGroup.objects.filter(study=gold.study, archived_at__isnull=True).first()
    html = client.get(f"/manage/assignments/groups/{group.pk}/").content.decode()
    assert "disabled" in _tag(html, "option", fresh.pk)
    assert "disabled" not in _tag(html, "option", cleared.pk)


def test_with_several_studies_and_none_chosen_the_label_names_the_study(client, gold, raters, admin_user):
    fresh, cleared = raters
    other = Study.objects.create(name="Other lab")
    client.force_login(admin_user)
    html = client.get("/manage/assignments/").content.decode()
    tag = _tag(html, "option", fresh.pk)
    assert f"not qualified yet ({gold.study.name})" in tag and "disabled" not in tag  # for this study only
    # the page for the other study (no training set) offers everyone
    html = client.get(f"/manage/assignments/?study={other.pk}").content.decode()
    assert "not qualified" not in _tag(html, "option", fresh.pk)
    assert "disabled" not in _tag(html, "option", fresh.pk)
