"""The accessibility gate on the pages the menus do not list: an object's own page (a batch, a run,
a group, a sheet, an account, an agreement drill-down, the import and set-up forms) and the held
responses page with a long step cut. axe-core in two looks (English dark 390 px, Chinese light
1366 px); any serious or critical violation fails, so does a page wider than the window. The last
test keeps "every page" true: a new page that no axe test opens fails it until it is listed."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import get_resolver, resolve, reverse
from django.urls.resolvers import URLPattern, URLResolver
from django.utils import timezone

from generation.models import GenerationBatch, GenerationRun, RunStatus
from judging.services.judges import judge_for_endpoint
from judging.services.runs import judge_batch_launch
from scoring.models import ScoreSheet, ScoringGroup
from studies.models import Condition
from studies.selectors import HELD_STEP_SHOWN
from studies.services.import_jobs import response_import_job_create
from studies.services.responses import response_create
from tests.calibration.test_calibration_views import flagged  # noqa: F401  (fixture: A05_FS10 calibrated)
from tests.e2e.test_accessibility_staff_browser import ADMIN_PAGES, LOOKS, RESEARCHER_PAGES, pages_problems
from tests.factories import ModelEndpointFactory, stub_endpoint

ADMIN_DETAIL_PAGES = (
    "/manage/studies/{study}/scenarios/import/",
    "/manage/studies/{study}/responses/import/",
    "/manage/studies/{study}/responses/import/{import_job}/",
    "/manage/studies/{study}/agreement/",
    "/manage/accounts/{account}/",
    "/manage/assignments/auto/",
    "/manage/assignments/groups/{group}/",
    "/manage/sheets/{sheet}/",
    "/manage/endpoints/new/",
    "/manage/conditions/new/",
    "/manage/generation/batches/{batch}/",
    "/manage/generation/runs/{run}/",
    "/manage/generation/studies/{study}/members/",
    "/manage/judges/{judge}/edit/",
    "/manage/judges/batches/{judge_batch}/",
    "/manage/training/rubric/",
    "/manage/responses/held/?q=B91",  # a step cut after HELD_STEP_SHOWN characters
    "/manage/responses/held/?q=B91&whole={held}",
)
RESEARCHER_DETAIL_PAGES = (
    "/research/agreement/{study}/scenario/{scenario}/",
    "/research/agreement/response/{response}/",
    "/accounts/password/",
)


def _objects(response, llm_stub) -> dict[str, int]:
    """An object of each kind the detail pages show: a generation batch with a run, a judge batch,
    the flagged response's group and a sheet of it, a held response with a long first step."""
    study, scenario = response.study, response.scenario
    endpoint = stub_endpoint(llm_stub)
    batch = GenerationBatch.objects.create(study=study, name="axe")
    run = GenerationRun.objects.create(
        batch=batch,
        study=study,
        scenario=scenario,
        endpoint=endpoint,
        condition=Condition.objects.get(letter="A"),
        status=RunStatus.RUNNING,
        settings_snapshot={"research_id": "A90_FS10"},
        calls_total=34,
        calls_done=17,
        current_step=3,
        started_at=timezone.now() - timedelta(seconds=60),
    )
    judge = judge_for_endpoint(endpoint=endpoint)
    held = response_create(
        study=study,
        scenario=scenario,
        model=ModelEndpointFactory(model_number="91"),
        condition=Condition.objects.get(letter="B"),
        answers=["The coast floods. " * (HELD_STEP_SHOWN // 10) + "As the Plant, I agree."] + ["x"] * 5,
        source="imported",
    )
    assert held.held
    admin = get_user_model().objects.get(username="admin")
    group = ScoringGroup.objects.get(study=study, scenario=scenario, condition=response.condition)
    return {
        "study": study.pk,
        "scenario": scenario.pk,
        "response": response.pk,
        "account": get_user_model().objects.get(username="rater1").pk,
        "group": group.pk,
        "sheet": ScoreSheet.objects.filter(assignment__response=response).order_by("pk").first().pk,
        "batch": batch.pk,
        "run": run.pk,
        "judge": judge.pk,
        "judge_batch": judge_batch_launch(study=study, judge=judge).pk,
        "held": held.pk,
        "import_job": response_import_job_create(
            study=study, content="[]", create_missing=False, actor=admin, source="axe.json", language="en"
        ).pk,
    }


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("lang", "scheme", "width"), LOOKS)
def test_detail_pages_pass_axe(live_server, flagged, browser, llm_stub, lang, scheme, width):  # noqa: F811
    response, _calibration, _users = flagged
    ids = _objects(response, llm_stub)
    pages = (("admin", ADMIN_DETAIL_PAGES), ("researcher", RESEARCHER_DETAIL_PAGES))
    problems = pages_problems(browser, live_server.url, (lang, scheme, width), pages, ids)
    assert not problems, "\n".join(problems)


# The pages the rater and training axe tests open (tests/e2e/test_accessibility_browser.py), by name
RATER_PAGE_NAMES = {
    "scoring:queue", "scoring:sheet", "scoring:rater_workbooks", "calibration:my_calibrations",
    "calibration:calibration_compare", "training:home", "training:sheet", "training:feedback",
}  # fmt: skip
# What answers GET and is no page for axe, and why
NOT_PAGES = {
    "home": "redirects to the user's own start page",
    "no_role": "a one-line page for an account without a role",
    "healthz": "plain text for the load balancer",
    "metrics": "Prometheus' text format",
    "login": "the login form every browser test fills in",
    "logout": "POST: the menu's button",
    "csrf_token": "JSON",
    "password_change_done": "a one-line confirmation",
    "onboarding:link": "redirects to the set-password page",
    "onboarding:set_password": "the invitation's form, driven by tests/onboarding's browser test",
    "scoring:rater_workbook_download": "a workbook",
    "scoring:admin_workbook_download": "a workbook",
    "research:research_figure": "an image",
    "research:research_judge_calibration_figure": "an image",
    "research:export_status": "an htmx fragment of the results page",
    "research:export_download": "a file",
    "generation:turn_messages": "an htmx fragment of the run page",
}
# The actions that take only POST (each answers 405 to an admin's GET: checked below)
POST_ACTIONS = {
    "set_language", "studies:held_responses_bulk", "studies:response_release", "studies:response_redact",
    "studies:response_withdraw", "onboarding:renew", "onboarding:renew_many", "onboarding:account_active",
    "onboarding:account_unlock", "onboarding:account_link", "scoring:sheet_save", "scoring:sheet_submit",
    "scoring:sheet_time", "scoring:response_flag", "scoring:auto_assign_apply", "scoring:sync_assignments",
    "scoring:assignment_archive", "calibration:calibration_assign", "calibration:calibration_reason",
    "research:research_judge_opt_in", "research:research_judge_qualify", "research:export_start",
    "generation:endpoint_active", "generation:endpoint_delete", "generation:endpoint_test",
    "generation:batch_cancel", "generation:batch_retry", "generation:member_delete", "generation:run_cancel",
    "generation:run_retry", "judging:batch_cancel", "judging:batch_retry", "training:start", "training:save",
    "training:submit", "training:time", "training:again", "training:gold_add", "training:default_add",
    "training:settings", "training:override", "training:retest", "training:rubric_import",
    "training:rubric_use", "api:token_revoke", "studies:pairs_build",
}  # fmt: skip


def _names(patterns, namespace: str = ""):
    """Each named URL pattern of the site (not the API's or the Django admin's), with its pattern."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace not in ("admin", "api-v1"):  # the Django admin's; the API's JSON
                yield from _names(pattern.url_patterns, pattern.namespace or namespace)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield (f"{namespace}:{pattern.name}" if namespace else pattern.name), pattern


@pytest.mark.django_db
def test_every_page_is_checked_by_an_axe_test_or_said_why_not(admin_client):
    ids = dict.fromkeys(
        ("study", "scenario", "response", "account", "group", "sheet", "batch", "run", "judge", "judge_batch",
         "held", "endpoint", "condition", "import_job"), 1,
    )  # fmt: skip
    pages = (*ADMIN_PAGES, *RESEARCHER_PAGES, *ADMIN_DETAIL_PAGES, *RESEARCHER_DETAIL_PAGES)
    opened = {resolve(path.format(**ids).split("?")[0]).view_name for path in pages} | RATER_PAGE_NAMES
    named = dict(_names(get_resolver().url_patterns))
    unchecked = sorted(named.keys() - opened - NOT_PAGES.keys() - POST_ACTIONS)
    assert unchecked == [], f"pages no axe test opens (add them to one, or say why not): {unchecked}"
    assert not (opened & (NOT_PAGES.keys() | POST_ACTIONS))
    assert (NOT_PAGES.keys() | POST_ACTIONS) <= named.keys(), "a name listed here that the site has not"
    for name in sorted(POST_ACTIONS):
        args = {key: ("abc" if conv.__class__.__name__ == "StringConverter" else 1)
                for key, conv in named[name].pattern.converters.items()}  # fmt: skip
        assert admin_client.get(reverse(name, kwargs=args)).status_code == 405, name
