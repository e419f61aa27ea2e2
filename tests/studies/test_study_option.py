"""Every command's ``--study``: one lookup, by name or id; without it the only study (the
only active one for commands that start work); an unknown or missing choice names the
studies there are; ``--create-missing`` makes an empty study through the product's service."""

import pytest
from django.core.management.base import CommandError

from studies.management.options import study_from_option
from studies.models import Study

pytestmark = pytest.mark.django_db


def test_a_study_is_found_by_name_or_id_and_alone_without_either():
    lab = Study.objects.create(name="Lab")
    assert study_from_option("Lab") == lab
    assert study_from_option(str(lab.pk)) == lab
    assert study_from_option(None) == lab


def test_the_choices_are_named_when_the_study_is_unknown_or_not_unique():
    Study.objects.create(name="Lab")
    Study.objects.create(name="Pilot", is_active=False)
    with pytest.raises(CommandError, match=r"unknown study 'Nope' \(studies: Lab, Pilot\)"):
        study_from_option("Nope")
    with pytest.raises(CommandError, match=r"choose a study with --study \(studies: Lab, Pilot\)"):
        study_from_option(None)
    # commands that start work only take an active study
    assert study_from_option(None, active_only=True).name == "Lab"
    with pytest.raises(CommandError, match=r"unknown study 'Pilot' \(studies: Lab\)"):
        study_from_option("Pilot", active_only=True)


def test_create_missing_makes_an_empty_study_and_refuses_a_bad_name():
    with pytest.raises(CommandError, match="no study exists yet"):
        study_from_option(None)
    made = study_from_option("New lab", create=True)
    assert Study.objects.get() == made and made.name == "New lab" and not made.scenarios.exists()
    with pytest.raises(CommandError, match="too long"):
        study_from_option("x" * 121, create=True)
    assert Study.objects.count() == 1
