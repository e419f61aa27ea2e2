"""A production installation gets the standard conditions, the paper's models and the role
groups from one idempotent command (seed_demo, which also creates them, is demo-only)."""

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from core.accounts.roles import ALL_ROLES
from studies.models import Condition, ModelEndpoint


@pytest.mark.django_db
def test_setup_defaults_creates_conditions_models_and_roles_once():
    for _ in range(2):
        call_command("setup_defaults")
    assert sorted(Condition.objects.values_list("letter", flat=True)) == list("ABCDEF")
    assert ModelEndpoint.objects.count() == 10
    assert ModelEndpoint.objects.get(model_number="05").name == "kimi-k2"
    assert set(Group.objects.values_list("name", flat=True)) >= set(ALL_ROLES)


@pytest.mark.django_db
def test_setup_defaults_keeps_what_an_admin_changed():
    call_command("setup_defaults")
    ModelEndpoint.objects.filter(model_number="07").update(base_url="https://api.openai.com/v1")
    call_command("setup_defaults")
    assert ModelEndpoint.objects.get(model_number="07").base_url == "https://api.openai.com/v1"
