"""A study is one place (issue 26): its page shows its scenarios, models, conditions,
responses, pairs and what is missing before scoring; every picker knows its study."""

import re

import pytest
from django.urls import reverse

from scoring.models import Assignment
from studies.models import AuditEvent, Condition, ModelEndpoint, Response, Scenario, Study
from studies.services.studies import study_catalogue_set, study_create
from tests.factories import make_response, rater, stub_endpoint


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


@pytest.fixture
def two_studies(demo):
    """A second study from the release template: it has its own FS10, like the demo's."""
    other = study_create(name="Lab study 2026", template="cgpst-release")
    return demo.study, other


def _fs10(study):
    return Scenario.objects.get(study=study, code="FS10")


def _choice_values(html: str, name: str) -> set[str]:
    return set(re.findall(rf'name="{name}" value="(\d+)"', html))


# --- pickers -----------------------------------------------------------------------


@pytest.mark.parametrize("url_name", ["generation:home", "scoring:auto_assign"])
def test_a_picker_lists_only_the_chosen_studys_scenarios(admin_client, two_studies, url_name):
    demo, other = two_studies
    url = reverse(url_name)
    page = admin_client.get(url, {"study": other.pk}).content.decode()
    assert _choice_values(page, "scenarios") == {str(_fs10(other).pk)}
    # the study is preselected and named beside its pickers
    assert f'<option value="{other.pk}" selected>' in page
    assert "Scenarios · Lab study 2026" in page
    # htmx: choosing the other study swaps in its pickers only
    part = admin_client.get(url, {"study": demo.pk}, HTTP_HX_REQUEST="true").content.decode()
    assert _choice_values(part, "scenarios") == {str(_fs10(demo).pk)}
    assert 'id="study-choices"' in part and "<html" not in part


@pytest.mark.parametrize("url_name", ["generation:home", "scoring:auto_assign"])
def test_without_a_chosen_study_each_scenario_names_its_study(admin_client, two_studies, url_name):
    page = admin_client.get(reverse(url_name)).content.decode()
    assert "FS10 Ocean Soup · CGPST demo" in page and "FS10 Ocean Soup · Lab study 2026" in page
    assert "Choose a study" in page


def test_the_pair_assignment_page_offers_the_chosen_studys_scenarios(admin_client, two_studies):
    demo, other = two_studies
    page = admin_client.get(reverse("scoring:assignments"), {"study": other.pk}).content.decode()
    options = set(re.findall(r'<option value="(\d+)"[^>]*>FS10', page))
    assert options == {str(_fs10(other).pk)}
    assert 'hx-get="/manage/assignments/"' in page


def test_a_scenario_of_another_study_is_refused_by_the_generation_form(admin_client, two_studies, llm_stub):
    demo, other = two_studies
    endpoint = stub_endpoint(llm_stub)
    reply = admin_client.post(reverse("generation:home"), {
        "study": demo.pk, "scenarios": [_fs10(other).pk], "endpoints": [endpoint.pk],
        "conditions": [Condition.objects.get(letter="B").pk], "top_p": "paper",
    })  # fmt: skip
    assert reply.status_code == 200 and "errorlist" in reply.content.decode()


def test_the_generation_picker_offers_the_studys_chosen_endpoints_and_conditions(admin_client, llm_stub):
    study = study_create(name="Small", template="empty")
    stub = stub_endpoint(llm_stub)
    other = stub_endpoint(llm_stub, name="stub-two", model_number="91")
    page = admin_client.get(reverse("generation:home"), {"study": study.pk}).content.decode()
    # nothing chosen yet: the whole catalogue
    assert {str(stub.pk), str(other.pk)} <= _choice_values(page, "endpoints")
    study_catalogue_set(
        study_id=study.pk, actor=None, endpoints=[other], conditions=Condition.objects.filter(letter="B")
    )
    page = admin_client.get(reverse("generation:home"), {"study": study.pk}).content.decode()
    assert _choice_values(page, "endpoints") == {str(other.pk)}
    assert _choice_values(page, "conditions") == {str(Condition.objects.get(letter="B").pk)}


def test_every_action_link_of_the_study_page_preselects_the_study(admin_client, demo):
    page = admin_client.get(reverse("studies:study", args=[demo.study.pk])).content.decode()
    for name in ("generation:home", "scoring:assignments", "scoring:auto_assign", "scoring:workload"):
        assert f'href="{reverse(name)}?study={demo.study.pk}"' in page, name


# --- the study's choice of models and conditions ------------------------------------


def test_the_template_study_shows_the_papers_ten_models_and_conditions(admin_client):
    study = study_create(name="Replication", template="cgpst-release")
    # the paper's ten, and in demo mode (as the demo fixture runs) the bundled stub
    assert study.endpoints.exclude(name="stub").count() == 10 and study.conditions.count() == 6
    page = admin_client.get(reverse("studies:study", args=[study.pk])).content.decode()
    assert "05 kimi-k2" in page and "no base URL" in page and "A TeamLLM" in page


def test_choosing_models_and_conditions_is_audited(admin_client, demo):
    study = study_create(name="Small", template="empty")
    url = reverse("studies:study_catalogue", args=[study.pk])
    assert admin_client.get(url).status_code == 200
    b = Condition.objects.get(letter="B")
    kimi = ModelEndpoint.objects.get(model_number="05")
    reply = admin_client.post(url, {"endpoints": [kimi.pk], "conditions": [b.pk]})
    assert reply.status_code == 302
    assert list(study.endpoints.all()) == [kimi] and list(study.conditions.all()) == [b]
    event = AuditEvent.objects.get(action="study.catalogue")
    assert event.study == study and event.actor.username == "admin"
    assert event.changes == {"endpoints": [[], ["05 kimi-k2"]], "conditions": [[], ["B"]]}
    # the same choice again changes and records nothing
    admin_client.post(url, {"endpoints": [kimi.pk], "conditions": [b.pk]})
    assert AuditEvent.objects.filter(action="study.catalogue").count() == 1
    # a bad id: a clear message, nothing changed
    reply = admin_client.post(url, {"endpoints": ["999999"], "conditions": [b.pk]})
    assert reply.status_code == 400 and list(study.endpoints.all()) == [kimi]


# --- the checklist -----------------------------------------------------------------


def _checks(page: str) -> dict[str, bool]:
    return {
        code: state == "done"
        for state, code in re.findall(r'<li class="(done|missing)[a-z -]*" data-check="([a-z_]+)"', page)
    }


def test_an_empty_study_says_what_is_missing_before_scoring(admin_client):
    study = study_create(name="Empty one", template="empty")
    page = admin_client.get(reverse("studies:study", args=[study.pk])).content.decode()
    assert _checks(page) == {
        "no_scenario": False,
        "no_response": False,
        "no_released_response": False,
        "no_qualified_pair": False,
        "unassigned_responses": False,
    }
    assert "No scenario" in page and "No response" in page and "No qualified rater pair" in page
    assert "No released response to give a pair yet" in page  # not "every response has a pair"
    # the first missing item is the next step, with a link to the page that does it
    assert '<li class="missing next-step" data-check="no_scenario">' in page
    assert page.count("next-step") == 1 and "Next step:" in page
    assert f'href="{reverse("studies:scenarios_import", args=[study.pk])}"' in page


def test_the_demo_study_lists_fs10_and_is_ready(admin_client, demo):
    page = admin_client.get(reverse("studies:study", args=[demo.study.pk])).content.decode()
    assert "<code>FS10</code>" in page
    assert all(_checks(page).values()), _checks(page)
    assert "rater1 (H01) + rater2 (H02)" in page
    # one pair of raters, however many scenario groups it scores (issue 42: it counted groups)
    groups = demo.study.scoring_groups.filter(archived_at__isnull=True)
    assert {frozenset((g.rater_a_id, g.rater_b_id)) for g in groups} == {
        frozenset((groups[0].rater_a_id, groups[0].rater_b_id))
    }
    n = groups.count()
    assert f"1 qualified rater pair for {n} scenario group{'s' if n > 1 else ''}" in page


def test_a_response_without_a_pair_is_on_the_checklist(admin_client, demo):
    make_response(study=demo.study, scenario=_fs10(demo.study), condition=Condition.objects.get(letter="B"))
    page = admin_client.get(reverse("studies:study", args=[demo.study.pk])).content.decode()
    assert _checks(page)["unassigned_responses"] is False
    assert "1 released response has no rater pair" in page


# --- the responses list and a response's admin view --------------------------------


def test_the_responses_list_filters_and_opens_each_response(admin_client, demo):
    study = demo.study
    lone = make_response(
        study=study,
        scenario=_fs10(study),
        condition=Condition.objects.get(letter="B"),
        research_id="B77_FS10",
    )
    url = reverse("calibration:study_responses", args=[study.pk])
    page = admin_client.get(url).content.decode()
    assert "A05_FS10" in page and "B77_FS10" in page
    assert reverse("calibration:agreement_response", args=[lone.pk]) in page
    unassigned = admin_client.get(url, {"assignment": "unassigned"}).content.decode()
    assert "B77_FS10" in unassigned and "A05_FS10" not in unassigned and "Not assigned" in unassigned
    assigned = admin_client.get(url, {"assignment": "assigned"}).content.decode()
    assert "A05_FS10" in assigned and "B77_FS10" not in assigned
    by_condition = admin_client.get(url, {"condition": Condition.objects.get(letter="A").pk}).content.decode()
    assert "A05_FS10" in by_condition and "B77_FS10" not in by_condition
    by_status = admin_client.get(url, {"status": "withdrawn"}).content.decode()
    assert "No response matches." in by_status
    not_computed = admin_client.get(url, {"agreement": "none"}).content.decode()
    assert "B77_FS10" in not_computed
    # nonsense in the query string: a message, never a 500
    assert admin_client.get(url, {"scenario": "abc", "agreement": "x"}).status_code == 200


def test_a_responses_admin_view_shows_its_sheets_and_history(admin_client, demo):
    response = Response.objects.get(research_id="A05_FS10")
    page = admin_client.get(reverse("calibration:agreement_response", args=[response.pk])).content.decode()
    assert 'id="assignments"' in page and "rater1 (H01)" in page and "rater2 (H02)" in page
    assert 'id="history"' in page


def test_researchers_do_not_get_the_admin_parts(client, demo):
    client.login(username="researcher", password="demo-pass-2026")
    response = Response.objects.get(research_id="A05_FS10")
    page = client.get(reverse("calibration:agreement_response", args=[response.pk])).content.decode()
    assert 'id="assignments"' not in page
    assert client.get(reverse("calibration:study_responses", args=[demo.study.pk])).status_code == 403


def test_assignment_counts_in_the_list_come_from_live_assignments(admin_client, demo):
    response = Response.objects.get(research_id="A05_FS10")
    extra = rater("r9", "H19")
    Assignment.objects.create(rater=extra, response=response, role="calibration")
    page = admin_client.get(reverse("calibration:study_responses", args=[demo.study.pk])).content.decode()
    assert "0 / 2 sheets submitted" in page
    assert Study.objects.count() == 1


# --- import errors all at once ------------------------------------------------------


def test_a_bad_response_file_lists_every_problem_of_every_line_in_order(admin_client, demo):
    steps = Response.objects.get(research_id="A05_FS10").answers
    lines = [
        {"research_id": "Z09_FS99", "scenario": "FS99", "model": "mystery", "condition": "Z", "steps": ["a"]},
        {"research_id": "B05_FS10", "scenario": "FS10", "model": "kimi-k2", "condition": "B", "steps": steps},
        {"scenario": "FS10", "model": "kimi-k2", "condition": "B", "steps": steps},
        {"research_id": "B05_FS10", "scenario": "FS10", "model": "kimi-k2", "condition": "B", "steps": steps},
    ]
    content = "\n".join(__import__("json").dumps(line) for line in lines).encode()
    from django.core.files.uploadedfile import SimpleUploadedFile

    reply = admin_client.post(
        reverse("studies:responses_import", args=[demo.study.pk]),
        {"file": SimpleUploadedFile("r.jsonl", content)},
    )
    assert reply.status_code == 400
    listed = re.findall(r"<li>(line \d[^<]*)</li>", reply.content.decode().replace("&#x27;", "'"))
    assert listed == [
        "line 1 (Z09_FS99), field 'steps': must be six strings (Steps 1-6)",
        "line 1 (Z09_FS99), field 'scenario': unknown scenario 'FS99' (allow creating missing ones to create it)",
        "line 1 (Z09_FS99), field 'model': unknown model 'mystery' (allow creating missing ones to create it)",
        "line 1 (Z09_FS99), field 'condition': unknown condition 'Z' (allow creating missing ones to create it)",
        "line 3, field 'research_id': missing",
        "line 4 (B05_FS10), field 'research_id': appears twice in the file (first at line 2)",
    ]
    assert not Response.objects.filter(research_id="B05_FS10").exists()
