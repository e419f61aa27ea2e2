"""A study from the CGPST release template or empty: by command and on the admin page."""

import json
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from studies.models import AuditEvent, Condition, ModelEndpoint, Scenario, Study
from studies.services.setup import DEFAULT_CONDITIONS, PAPER_MODELS
from tests.conftest import REFERENCE
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_template_brings_fs10_the_papers_models_conditions_and_settings(capsys):
    call_command("create_study", "Lab study", "--template", "cgpst-release")
    study = Study.objects.get(name="Lab study")
    assert study.agreement_threshold == Decimal("0.650")
    assert study.headline_icc == "ICC3k"
    assert study.final_score_rule == "calibrator_and_closer"
    assert study.rubric_version == "cgpst-v1"
    # the description says which parts are the release's and which are the product's reading
    assert study.description.startswith("As the TeamLLM release: scenario FS10")
    assert "Our reading: the final-score rule after calibration" in study.description
    released = json.loads((REFERENCE / "future_scenarios_en.json").read_text(encoding="utf-8"))
    fs10 = Scenario.objects.get(study=study)
    assert (fs10.code, fs10.theme, fs10.text) == (
        "FS10",
        "Ocean Soup",
        released["FS10"]["text"].strip("\n\r "),
    )
    assert fs10.text.startswith("As Jobie Sakai leans on the railing")
    assert set(ModelEndpoint.objects.values_list("model_number", "name")) == {
        (n, name) for n, name, _ in PAPER_MODELS
    }
    assert set(Condition.objects.values_list("letter", flat=True)) == {c[0] for c in DEFAULT_CONDITIONS}
    assert "scenarios FS10" in capsys.readouterr().out


def test_empty_study_has_the_defaults_and_nothing_else():
    call_command("create_study", "Blank", "--empty")
    study = Study.objects.get(name="Blank")
    assert not study.scenarios.exists()
    assert ModelEndpoint.objects.count() == 0 and Condition.objects.count() == 0
    assert study.agreement_threshold == Decimal("0.650")


def test_a_second_study_of_the_same_name_is_refused():
    call_command("create_study", "Twice", "--empty")
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_study", "twice", "--template", "cgpst-release")
    assert Study.objects.count() == 1 and Scenario.objects.count() == 0


def test_the_response_language_is_said_and_can_be_chosen(capsys, client):
    """Issue 42: the template set Chinese answers with no word of it (an English lab's prompts said
    "All responses should be in Chinese")."""
    call_command("create_study", "Zh study", "--template", "cgpst-release")
    out = capsys.readouterr().out
    assert "Responses will be asked for in Chinese" in out and "--response-language en" in out
    call_command("create_study", "En study", "--template", "cgpst-release", "--response-language", "en")
    assert "Responses will be asked for in English" in capsys.readouterr().out
    assert Study.objects.get(name="En study").response_language == "en"
    assert Study.objects.get(name="Zh study").response_language == "zh"
    client.force_login(UserFactory(username="boss", role="Admin"))
    page = client.get(reverse("studies:studies")).content.decode()
    assert "All responses should be in Chinese" in page.replace("&quot;", '"')
    client.post(
        reverse("studies:studies"), {"name": "Web en", "template": "cgpst-release", "response_language": "en"}
    )
    assert Study.objects.get(name="Web en").response_language == "en"
    reply = client.post(
        reverse("studies:studies"), {"name": "Web xx", "template": "empty", "response_language": "fr"}
    )
    assert reply.status_code == 200 and not Study.objects.filter(name="Web xx").exists()


def test_in_demo_mode_the_template_chooses_the_bundled_stub_too(settings):
    """Issue 42: a study made from the template in `make run` could not generate (no stub)."""
    stub = ModelEndpoint.objects.create(name="stub", model_number="90", base_url="http://127.0.0.1:8765/v1")
    settings.DEMO_MODE = True
    call_command("create_study", "Demo-made", "--template", "cgpst-release")
    assert Study.objects.get(name="Demo-made").endpoints.filter(pk=stub.pk).exists()
    settings.DEMO_MODE = False
    call_command("create_study", "Lab-made", "--template", "cgpst-release")
    lab = Study.objects.get(name="Lab-made")
    assert not lab.endpoints.filter(pk=stub.pk).exists() and lab.endpoints.count() == 10


def test_the_command_needs_a_template_or_empty():
    with pytest.raises(CommandError):
        call_command("create_study", "Neither")
    assert not Study.objects.exists()


def test_admin_creates_a_study_from_the_template_on_the_page(client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    page = client.get(reverse("studies:studies"))
    assert (
        page.status_code == 200
        and "the final-score rule after calibration is our reading" in page.content.decode()
    )
    reply = client.post(reverse("studies:studies"), {"name": "Web study", "template": "cgpst-release"})
    study = Study.objects.get(name="Web study")
    assert reply.status_code == 302 and reply.url == reverse("studies:study", args=[study.pk])
    detail = client.get(reply.url).content.decode()
    assert "FS10" in detail and "Ocean Soup" in detail and "ICC3k" in detail


@pytest.mark.parametrize(
    "data, message",
    [
        ({"name": "  ", "template": "cgpst-release"}, "This field is required"),
        ({"name": "X", "template": "nonsense"}, "Select a valid choice"),
        ({"name": "X", "template": "empty", "rubric_version": "../settings"}, "Select a valid choice"),
    ],
)
def test_bad_study_form_input_says_why_and_creates_nothing(client, data, message):
    client.force_login(UserFactory(username="boss", role="Admin"))
    reply = client.post(reverse("studies:studies"), data)
    assert reply.status_code == 200 and message in reply.content.decode()
    assert not Study.objects.exists()


def test_duplicate_name_on_the_page_is_a_form_error(client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    client.post(reverse("studies:studies"), {"name": "Same", "template": "empty"})
    reply = client.post(reverse("studies:studies"), {"name": "Same", "template": "cgpst-release"})
    assert reply.status_code == 200 and "already exists" in reply.content.decode()
    assert Study.objects.count() == 1 and not Scenario.objects.exists()


def test_a_shipped_rubric_is_chosen_on_the_page_or_with_the_command(client, capsys):
    client.force_login(UserFactory(username="boss", role="Admin"))
    page = client.get(reverse("studies:studies")).content.decode()
    assert '<option value="likert-hhh-v1">Helpful, harmless, honest (1-7) (likert-hhh-v1)</option>' in page
    client.post(
        reverse("studies:studies"),
        {"name": "Likert web", "template": "cgpst-release", "rubric_version": "likert-hhh-v1"},
    )
    study = Study.objects.get(name="Likert web")
    assert study.rubric_version == "likert-hhh-v1" and study.agreement_threshold == Decimal("0.650")
    detail = client.get(reverse("studies:study", args=[study.pk])).content.decode()
    assert "Helpful, harmless, honest (1-7) <code>likert-hhh-v1</code>" in detail
    assert 'action="/manage/training/rubric/import/"' in detail  # a rubric file, from the study's page
    assert AuditEvent.objects.get(action="study.create", study=study).changes["rubric_version"] == [
        None,
        "likert-hhh-v1",
    ]
    call_command("create_study", "Likert cli", "--empty", "--rubric", "likert-hhh-v1")
    assert "rubric likert-hhh-v1" in capsys.readouterr().out
    with pytest.raises(
        CommandError,
        match="Unknown rubric 'nope' \\(choose cgpst-v1, likert-hhh-v1, pairwise-preference-v1\\)",
    ):
        call_command("create_study", "Other", "--empty", "--rubric", "nope")
    assert not Study.objects.filter(name="Other").exists()


def test_only_admins_reach_the_study_pages(client):
    client.force_login(UserFactory(username="r", role="Rater"))
    assert client.get(reverse("studies:studies")).status_code == 403
    assert client.post(reverse("studies:studies"), {"name": "X", "template": "empty"}).status_code == 403
    assert not Study.objects.exists()
