"""The review gate before raters (issue 24, finding 5): a response whose parse finds a
problem, and with "responses need release" every generated response, is held; an
administrator reads it on the held responses page and releases or withdraws it; only
released responses are assigned, and every assignment path says what it left out."""

from __future__ import annotations

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from scoring.models import Assignment, ScoringGroup
from scoring.services.assignments import (
    group_assign_pair,
    plan_for_study,
    study_sync_assignments,
)
from studies.models import AuditEvent, Condition, Response, ResponseStatus, Scenario
from studies.selectors import study_checklist
from studies.services.responses import response_create
from studies.services.review import ReviewError, response_release, response_withdraw
from tests.factories import SAMPLE_ANSWERS, ModelEndpointFactory, code_for, generated_response, rater

pytestmark = pytest.mark.django_db

# What the stub and LiteLLM's mock answered in issue 24: one sentence in every step.
MOCK = ["This is a mock response from the gateway."] * 6
# A scoreable answer but for Step 1, which has no numbered item.
NO_STEP1_ITEMS = ["Plastic harms plankton, data is lost and tourism shifts.", *SAMPLE_ANSWERS[1:]]


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


def _fs10(demo) -> Scenario:
    return Scenario.objects.get(study=demo.study, code="FS10")


def _new(demo, answers, *, source="imported", number="41", letter="A") -> Response:
    """A response arriving in the demo's FS10 group (condition A: rater1 + rater2)."""
    return response_create(
        study=demo.study,
        scenario=_fs10(demo),
        model=ModelEndpointFactory(model_number=number),
        condition=Condition.objects.get(letter=letter),
        answers=list(answers),
        source=source,
    )


def _raters_of(response) -> set[str]:
    return set(
        Assignment.objects.filter(response=response, archived_at__isnull=True).values_list(
            "rater__username", flat=True
        )
    )


def _admin(demo):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username="admin")


# --- arrival ------------------------------------------------------------------------


def test_an_answer_whose_step_1_has_no_items_is_held_and_not_assigned(demo):
    response = _new(demo, NO_STEP1_ITEMS)
    assert response.held and response.released_at is None
    assert response.hold_reasons == [{"code": "no_items", "step": 1, "other": None}]
    assert _raters_of(response) == set()  # the group's pair is rater1 + rater2: neither got it
    assert AuditEvent.objects.filter(
        action="response.held", target=f"studies.response:{response.pk}"
    ).exists()


def test_the_mock_answer_is_held_with_every_reason(demo):
    response = _new(demo, MOCK)
    codes = [(r["code"], r["step"]) for r in response.hold_reasons]
    assert ("no_items", 1) in codes and ("no_items", 3) in codes and ("no_grid", 5) in codes
    assert ("repeated_step", 2) in codes and ("repeated_step", 6) in codes
    assert _raters_of(response) == set()


def test_a_clean_import_goes_to_the_pair_at_once(demo):
    response = _new(demo, SAMPLE_ANSWERS)
    assert not response.held and response.released_at is not None
    assert _raters_of(response) == {"rater1", "rater2"}


def test_a_generated_response_waits_for_release_when_the_study_says_so(demo):
    assert demo.study.responses_need_release  # on by default
    response = _new(demo, SAMPLE_ANSWERS, source="generated")
    assert response.held and [r["code"] for r in response.hold_reasons] == ["needs_release"]
    assert _raters_of(response) == set()


def test_without_the_setting_a_clean_generated_response_goes_to_raters(demo):
    demo.study.responses_need_release = False
    demo.study.save()
    clean = _new(demo, SAMPLE_ANSWERS, source="generated", number="42")
    assert not clean.held and _raters_of(clean) == {"rater1", "rater2"}
    # parse warnings hold a generated response whatever the setting
    broken = _new(demo, MOCK, source="generated", number="43")
    assert broken.held and _raters_of(broken) == set()


# --- release and withdraw -----------------------------------------------------------


def test_release_assigns_the_response_as_its_arrival_would_have(demo):
    response = _new(demo, NO_STEP1_ITEMS)
    released = response_release(response_id=response.pk, actor=_admin(demo))
    assert released.assignments == 2
    response.refresh_from_db()
    assert not response.held and response.released_by.username == "admin" and response.released_at
    assert _raters_of(response) == {"rater1", "rater2"}
    assignment = Assignment.objects.get(response=response, rater__username="rater1")
    assert assignment.group == ScoringGroup.objects.get(study=demo.study, condition__letter="A")
    event = AuditEvent.objects.get(action="response.released")
    assert event.target == f"studies.response:{response.pk}" and event.changes["held"] == [True, False]
    # releasing twice: a clear refusal, nothing changes
    with pytest.raises(ReviewError):
        response_release(response_id=response.pk, actor=_admin(demo))
    assert Assignment.objects.filter(response=response).count() == 2


def test_release_without_a_pair_assigns_nothing_until_a_pair_comes(demo):
    response = _new(demo, NO_STEP1_ITEMS, letter="B")  # condition B has no pair
    assert response_release(response_id=response.pk, actor=_admin(demo)).assignments == 0
    ada, ben = rater("ada", "H11"), rater("ben", "H12")
    group_assign_pair(
        study=demo.study, scenario=_fs10(demo), conditions=[response.condition], rater_a=ada, rater_b=ben
    )
    assert _raters_of(response) == {"ada", "ben"}


def test_withdraw_takes_the_response_out_of_every_pool(demo):
    response = _new(demo, MOCK, letter="B")
    response_withdraw(response_id=response.pk, actor=_admin(demo), reason="mock answer")
    response.refresh_from_db()
    assert response.status == ResponseStatus.WITHDRAWN
    event = AuditEvent.objects.get(action="response.withdrawn")
    assert event.reason == "mock answer" and event.changes["status"] == ["ready", "withdrawn"]
    plan = plan_for_study(
        study=demo.study,
        scenarios=[_fs10(demo)],
        conditions=[response.condition],
        raters=[rater("ada", "H11"), rater("ben", "H12")],
    )
    assert [g.responses for g in plan.groups] == [0] and plan.held == 0
    with pytest.raises(ReviewError):
        response_release(response_id=response.pk, actor=_admin(demo))
    checks = {c.code: c for c in study_checklist(study=demo.study)}
    assert "held" not in checks["no_released_response"].message


def test_only_an_admin_may_release_or_withdraw(demo):
    response = _new(demo, MOCK)
    rater1 = rater("rater9", "H19")
    for call in (
        lambda: response_release(response_id=response.pk, actor=rater1),
        lambda: response_withdraw(response_id=response.pk, actor=rater1),
        lambda: response_release(response_id=response.pk, actor=None),
    ):
        with pytest.raises(ReviewError):
            call()
    response.refresh_from_db()
    assert response.held and response.status == ResponseStatus.READY and _raters_of(response) == set()


# --- every assignment path skips held responses and says so --------------------------


def test_pairing_a_group_skips_held_responses(demo):
    held = _new(demo, MOCK, letter="B", number="44")
    clean = _new(demo, SAMPLE_ANSWERS, letter="B", number="45")
    ada, ben = rater("ada", "H11"), rater("ben", "H12")
    group_assign_pair(
        study=demo.study, scenario=_fs10(demo), conditions=[held.condition], rater_a=ada, rater_b=ben
    )
    assert _raters_of(clean) == {"ada", "ben"} and _raters_of(held) == set()
    assert study_sync_assignments(study=demo.study) == 0 and _raters_of(held) == set()


def test_the_plan_counts_released_responses_and_says_how_many_are_held(demo):
    _new(demo, MOCK, letter="B", number="44")
    _new(demo, MOCK, letter="B", number="46")
    _new(demo, SAMPLE_ANSWERS, letter="B", number="45")
    plan = plan_for_study(
        study=demo.study,
        scenarios=[_fs10(demo)],
        conditions=[Condition.objects.get(letter="B")],
        raters=[rater("ada", "H11"), rater("ben", "H12")],
    )
    assert [g.responses for g in plan.groups] == [1] and plan.held == 2


def test_the_pages_say_how_many_responses_were_held(admin_client, demo):
    _new(demo, MOCK, letter="B", number="44")
    _new(demo, MOCK, letter="B", number="46")
    ada, ben = rater("ada", "H11"), rater("ben", "H12")
    condition = Condition.objects.get(letter="B")
    plan = admin_client.post(
        reverse("scoring:auto_assign"),
        {"study": demo.study.pk, "scenarios": [_fs10(demo).pk], "conditions": [condition.pk],
         "raters": [ada.pk, ben.pk]},
    ).content.decode()  # fmt: skip
    assert 'id="plan-held"' in plan and "2 responses held for review are not counted" in plan
    reply = admin_client.post(
        reverse("scoring:assignments") + f"?study={demo.study.pk}",
        {"study": demo.study.pk, "scenario": _fs10(demo).pk, "conditions": [condition.pk],
         "rater_a": ada.pk, "rater_b": ben.pk},
        follow=True,
    ).content.decode()  # fmt: skip
    assert "2 responses held for review were not assigned" in reply
    assert reverse("studies:held_responses") in reply


def test_the_responses_import_says_which_are_held(admin_client, demo):
    line = {"research_id": "A47_FS10", "scenario": "FS10", "model": "47", "condition": "A", "steps": MOCK}
    upload = SimpleUploadedFile("r.jsonl", (json.dumps(line) + "\n").encode(), "application/json")
    reply = admin_client.post(
        reverse("studies:responses_import", args=[demo.study.pk]),
        {"file": upload, "create_missing": "on"},
        follow=True,
    ).content.decode()
    assert "1 held for review" in reply and "1 new response is held for review" in reply
    assert Response.objects.get(research_id="A47_FS10").held


def test_the_import_command_says_which_are_held(demo, tmp_path):
    line = {"research_id": "A48_FS10", "scenario": "FS10", "model": "48", "condition": "A", "steps": MOCK}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "import_responses", str(path), "--study", demo.study.name, "--create-missing", stdout=out, stderr=err
    )
    assert "1 held for review" in out.getvalue() and "A48_FS10" in err.getvalue()
    assert _raters_of(Response.objects.get(research_id="A48_FS10")) == set()


# --- the held responses page ----------------------------------------------------------


def test_the_page_lists_held_responses_with_text_and_parse_result(admin_client, demo):
    response = _new(demo, NO_STEP1_ITEMS)
    page = admin_client.get(reverse("studies:held_responses"), {"study": demo.study.pk}).content.decode()
    assert response.research_id in page and "Plastic harms plankton, data is lost" in page
    assert "Step 1 has no numbered items." in page  # the reason
    assert "found, 2 rows" in page  # the grid of SAMPLE_ANSWERS
    assert "A05_FS10" not in page  # released responses are not listed
    study_page = admin_client.get(reverse("studies:study", args=[demo.study.pk])).content.decode()
    assert (
        f"{reverse('studies:held_responses')}?study={demo.study.pk}" in study_page and "1 held" in study_page
    )
    manage = admin_client.get(reverse("scoring:admin_home")).content.decode()
    assert reverse("studies:held_responses") in manage


def test_release_from_the_page(admin_client, demo):
    response = _new(demo, NO_STEP1_ITEMS)
    reply = admin_client.post(
        reverse("studies:response_release", args=[response.pk]), {"study": demo.study.pk}, follow=True
    )
    assert reply.status_code == 200
    assert "2 raters of its scenario group" in reply.content.decode()
    assert _raters_of(response) == {"rater1", "rater2"}
    # a second click: a message, not a 500
    again = admin_client.post(reverse("studies:response_release", args=[response.pk]), follow=True)
    assert again.status_code == 200 and "already released" in again.content.decode()
    assert (
        admin_client.post(reverse("studies:response_release", args=[999999]), follow=True).status_code == 200
    )


def test_withdraw_from_the_page(admin_client, demo):
    response = _new(demo, MOCK)
    admin_client.post(reverse("studies:response_withdraw", args=[response.pk]), {"reason": "mock"})
    response.refresh_from_db()
    assert response.status == ResponseStatus.WITHDRAWN and _raters_of(response) == set()
    page = admin_client.get(reverse("studies:held_responses")).content.decode()
    assert "withdrawn: no rater will get it" in page  # the message after the redirect
    assert f'id="held-{response.pk}"' not in page and 'id="no-held"' in page


@pytest.mark.parametrize("username", ["rater1", "researcher"])
def test_raters_and_researchers_cannot_reach_the_page_or_the_actions(client, demo, username):
    response = _new(demo, MOCK)
    client.login(username=username, password="demo-pass-2026")
    assert client.get(reverse("studies:held_responses")).status_code == 403
    assert client.post(reverse("studies:response_release", args=[response.pk])).status_code == 403
    assert client.post(reverse("studies:response_withdraw", args=[response.pk])).status_code == 403
    response.refresh_from_db()
    assert response.held and response.status == ResponseStatus.READY


def test_a_held_response_never_reaches_the_raters_queue(client, demo):
    response = _new(demo, MOCK)
    # even an assignment made behind the gate's back (the Django admin) is not shown
    behind = Assignment.objects.create(rater=demo_user("rater1"), response=response, role="primary")
    client.login(username="rater1", password="demo-pass-2026")
    queue = client.get(reverse("scoring:queue")).content.decode()
    assert behind.blind_code not in queue and response.blind_code not in queue
    assert code_for("rater1", Response.objects.get(research_id="A05_FS10")) in queue


def demo_user(username):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=username)


# --- the study: checklist and setting --------------------------------------------------


def test_the_checklist_says_no_released_response(demo):
    from studies.services.studies import study_create

    study = study_create(name="Gate study", template="cgpst-release")
    response = generated_response(study=study, model_number="51")
    checks = {c.code: c for c in study_checklist(study=study)}
    assert checks["no_response"].done
    assert not checks["no_released_response"].done
    assert checks["no_released_response"].message == "No released response: 1 held for review"
    # a held response is not "without a pair"; with nothing released, nothing has a pair yet
    assert not checks["unassigned_responses"].done
    assert checks["unassigned_responses"].message == "No released response to give a pair yet"
    response_release(response_id=response.pk, actor=_admin(demo))
    checks = {c.code: c for c in study_checklist(study=study)}
    assert checks["no_released_response"].done and not checks["unassigned_responses"].done


def test_the_setting_is_changed_on_the_settings_page_and_audited(admin_client, demo):
    study = demo.study
    reply = admin_client.post(
        reverse("studies:study_settings", args=[study.pk]),
        {"name": study.name, "description": study.description, "response_language": study.response_language,
         "is_active": "on"},
    )  # fmt: skip
    assert reply.status_code == 302
    study.refresh_from_db()
    assert study.responses_need_release is False
    event = AuditEvent.objects.filter(action="study.settings").latest("pk")
    assert event.changes["responses_need_release"] == [True, False]
    page = admin_client.get(reverse("studies:study", args=[study.pk])).content.decode()
    assert "Only responses with parse warnings or names that break the blind are held" in page


# --- a generation run finishing -------------------------------------------------------


def test_a_run_that_finishes_leaves_its_response_held_and_the_batch_says_so(admin_client, demo):

    from generation.services.batches import batch_create
    from generation.services.runs import run_finish
    from studies.models import ModelEndpoint

    launch = batch_create(
        study=demo.study,
        scenarios=[_fs10(demo)],
        endpoints=[ModelEndpoint.objects.get(name="stub")],
        conditions=[Condition.objects.get(letter="A")],  # the demo's paired group
        enqueue=lambda run_id, **kwargs: None,
    )
    run = launch.batch.runs.get()
    response = run_finish(run_id=run.pk, answers=list(SAMPLE_ANSWERS))
    assert response is not None and response.source == "generated" and response.held
    assert _raters_of(response) == set()
    batch_page = admin_client.get(reverse("generation:batch_detail", args=[launch.batch.pk])).content.decode()
    assert 'id="batch-held"' in batch_page and "1 response of this batch is held for review" in batch_page
    run_page = admin_client.get(reverse("generation:run_detail", args=[run.pk])).content.decode()
    assert 'id="response-held"' in run_page
    response_release(response_id=response.pk, actor=_admin(demo))
    assert _raters_of(response) == {"rater1", "rater2"}
    batch_page = admin_client.get(reverse("generation:batch_detail", args=[launch.batch.pk])).content.decode()
    assert 'id="batch-held"' not in batch_page


def test_the_page_shows_the_held_responses_a_page_at_a_time(admin_client, demo):
    """Hostile pass 9 (F1, F7): every held response was checked and parsed again on every load
    of the page (6,000 imported ones: minutes). Now a page holds 20; the study's count is of all;
    an action brings the admin back to the page they were on."""
    from studies.selectors import HELD_PER_PAGE

    held = [_new(demo, MOCK, number=f"{n + 50}") for n in range(HELD_PER_PAGE + 3)]
    url = reverse("studies:held_responses")

    def shown(page_html: str) -> list[int]:
        return [r.pk for r in held if f'id="held-{r.pk}"' in page_html]

    first = admin_client.get(url, {"study": demo.study.pk}).content.decode()
    assert shown(first) == [r.pk for r in held[:HELD_PER_PAGE]]
    assert f"{len(held)} held responses" in first and f"Page 1 of 2 ({len(held)} held in all)" in first
    second = admin_client.get(url, {"study": demo.study.pk, "page": "2"}).content.decode()
    assert shown(second) == [r.pk for r in held[HELD_PER_PAGE:]] and 'rel="prev"' in second
    # a page out of range or not a number: the nearest one, never an error
    assert shown(admin_client.get(url, {"page": "9" * 30}).content.decode()) == shown(second)
    assert shown(admin_client.get(url, {"page": "x"}).content.decode()) == shown(first)
    reply = admin_client.post(
        reverse("studies:response_withdraw", args=[held[-1].pk]), {"back": f"study={demo.study.pk}&page=2"}
    )
    assert reply.status_code == 302 and reply["Location"] == f"{url}?study={demo.study.pk}&page=2"
