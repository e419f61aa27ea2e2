"""``seed_demo`` also makes a single-text (Likert) and a pairwise demo study, assigned to the demo
raters, so every kind of sheet can be tried at once; running it twice leaves the same data."""

import pytest
from django.core.management import call_command

from demo.templates_seed import PAIR_STUDY, TEXT_STUDY
from scoring.models import Assignment
from studies.models import Response, Study

pytestmark = pytest.mark.django_db


def test_seed_demo_makes_the_other_templates_once(settings, capsys):
    settings.DEMO_MODE = True
    call_command("seed_demo")
    assert f"Other templates: {TEXT_STUDY}, {PAIR_STUDY}" in capsys.readouterr().out
    texts, pairs = Study.objects.get(name=TEXT_STUDY), Study.objects.get(name=PAIR_STUDY)
    assert (texts.task_kind, texts.rubric_version) == ("text", "likert-hhh-v1")
    assert (pairs.task_kind, pairs.rubric_version, pairs.pairs_from) == (
        "pair",
        "pairwise-preference-v1",
        texts,
    )
    assert (
        Response.objects.filter(study=texts).count() == 4
        and Response.objects.filter(study=pairs).count() == 2
    )
    for study in (texts, pairs):
        raters = set(
            Assignment.objects.filter(response__study=study).values_list("rater__username", flat=True)
        )
        assert raters == {"rater1", "rater2"}
        assert not Response.objects.filter(study=study, held=True).exists()
    before = (Response.objects.count(), Assignment.objects.count())
    call_command("seed_demo")
    assert (Response.objects.count(), Assignment.objects.count()) == before
