"""No back doors (issue 22): every URL of the product and of the Django admin, walked as
every role and role combination with GET and POST, answers no 5xx, opens nothing a role
may not see, and changes no score, no account's privileges and no secret.

The URL list comes from the URL configuration itself (a new page is walked without
editing this file); the Django admin's URLs come from the models registered with it.
POSTs carry empty bodies and, for the Django admin, the exploits of the issue (set a
superuser's password, promote oneself, grant a group every permission, point an endpoint's
key at ``SECRET_KEY``, edit a submitted score, delete whatever is listed)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db.models.fields.files import FieldFile
from django.forms.models import model_to_dict
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from api.models import ApiToken
from api.services.tokens import token_digest
from calibration.models import FinalScore
from core.accounts.roles import ADMIN, RATER, RESEARCHER
from generation.services.batches import batch_create
from judging.models import JudgeBatch
from judging.services.judges import judge_create
from onboarding.models import Invitation
from research.models import ExportJob
from scoring.models import Assignment, DimensionScore, ItemScore, RaterProfile, ScoreSheet, ScoringGroup
from studies.models import Condition, ModelEndpoint, Response, Study
from tests.factories import SHEET_TEXTS, code_for, reference_changes, sheet_submitted

# role -> how its account is made (usernames of the demo, or made here)
ROLES = [
    "anonymous",
    "rater",
    "calibrator",
    "researcher",
    "admin",
    "superuser",
    "rater+researcher",
    "rater+admin",
]
PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")


def _routes(patterns, prefix: str = "") -> list[str]:
    """Every route of the URL configuration, as ``str`` with ``<converter:name>`` holes;
    the Django admin's (registered under ``admin/``) are walked from its models instead."""
    routes: list[str] = []
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if route.startswith("admin/"):
                continue
            routes += _routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            routes.append(route)
    return routes


def _product_urls(values: dict[str, str]) -> list[str]:
    urls = []
    for route in _routes(get_resolver().url_patterns):
        if route.startswith("^"):
            continue  # regular expressions: none in the product (static files in DEBUG only)

        def fill(match: re.Match, route: str = route) -> str:
            name = match.group(2)
            if name == "batch_id":
                name = "judge_batch_id" if route.startswith("manage/judges/") else "generation_batch_id"
            return values.get(name, "1")

        urls.append("/" + PARAM.sub(fill, route))
    return sorted(set(urls))


def _admin_models() -> list:
    return [model for model in apps.get_models() if admin.site.is_registered(model)]


def _form_value(value):
    if isinstance(value, bool):
        return "on" if value else ""
    if isinstance(value, list | tuple):
        return [getattr(v, "pk", v) for v in value]
    if value is None:
        return ""
    return getattr(value, "pk", value)


def _tampered(instance) -> dict:
    """The instance's fields as an admin change form would post them, each changed."""
    data = {}
    for name, value in model_to_dict(instance).items():
        if isinstance(value, FieldFile):
            continue
        if isinstance(value, bool):
            data[name] = "" if value else "on"
        elif isinstance(value, int | float):
            data[name] = str(value + 1)
        elif isinstance(value, str):
            data[name] = value + "X"
        else:
            data[name] = _form_value(value)
    return data


@pytest.fixture
def world(demo, settings):
    """The demo, both primary sheets submitted (A05_FS10 has agreement and a final score),
    a batch, a run, a judge batch, an export, an invitation, and the role combinations
    that must never see unblinded data (legacy accounts made before the rule)."""
    settings.AXES_ENABLED = False  # the walk logs in once per role with force_login anyway
    users = {u.username: u for u in get_user_model().objects.all()}
    a05 = Response.objects.get(research_id="A05_FS10")
    for name, shift in (("rater1", 0), ("rater2", 1)):
        changes = [*reference_changes(3 + shift), *SHEET_TEXTS]
        sheet_submitted(
            users[name], a05, changes, assignment=Assignment.objects.get(rater=users[name], response=a05)
        )
    groups = {name: Group.objects.get(name=name) for name in (ADMIN, RATER, RESEARCHER)}
    user_model = get_user_model()
    invited_admin = user_model.objects.create_user(
        "invited-admin", password="a-long-admin-pass-9201", is_staff=True
    )
    invited_admin.groups.add(groups[ADMIN])
    both_research = user_model.objects.create_user("rater-researcher", password="a-long-mixed-pass-3307")
    both_research.groups.add(groups[RATER], groups[RESEARCHER])
    RaterProfile.objects.create(user=both_research, rater_code="H21")
    Assignment.objects.create(rater=both_research, response=a05, role="calibration")
    both_admin = user_model.objects.create_user(
        "rater-admin", password="a-long-mixed-pass-4408", is_staff=True
    )
    both_admin.groups.add(groups[RATER], groups[ADMIN])
    RaterProfile.objects.create(user=both_admin, rater_code="H22")

    study = demo.study
    stub = ModelEndpoint.objects.get(name="stub")
    launch = batch_create(
        study=study, scenarios=[a05.scenario], endpoints=[stub], conditions=[Condition.objects.get(letter="B")],
        enqueue=lambda run_id, **kwargs: None, name="walk",
    )  # fmt: skip
    batch = launch.batch
    run = batch.runs.get()
    judge = judge_create(name="Walk judge", endpoint=stub)
    judge_batch = JudgeBatch.objects.create(
        study=study, judge=judge, prompt_version="v", temperature=0, samples=1
    )
    export = ExportJob.objects.create(kind="results", created_by=users["researcher"])
    invitee = user_model.objects.create_user("walk-invitee")
    invitee.set_unusable_password()
    invitee.save()
    invitation = Invitation.objects.create(user=invitee, study=study, last_link_at=invitee.date_joined)
    # django-axes' records (issue 36, finding 4: a superuser deleted them in the Django admin,
    # lifting lockouts and erasing login history with no audit)
    now = timezone.now()
    AccessAttempt.objects.create(
        username="rater1", ip_address="10.0.0.9", failures_since_start=12, attempt_time=now
    )
    AccessLog.objects.create(username="rater1", ip_address="10.0.0.9", attempt_time=now)
    AccessFailureLog.objects.create(
        username="rater1", ip_address="10.0.0.9", attempt_time=now, locked_out=True
    )
    sheet = ScoreSheet.objects.get(assignment__rater=users["rater2"], assignment__response=a05)
    values = {
        "study_id": str(study.pk),
        "sheet_id": str(sheet.pk),
        "blind_code": code_for(users["rater1"], a05),  # the walking rater's own code
        "generation_batch_id": str(batch.pk),
        "judge_batch_id": str(judge_batch.pk),
        "run_id": str(run.pk),
        "pk": str(export.pk),
        "invitation_id": str(invitation.pk),
        "group_id": str(ScoringGroup.objects.first().pk),
        "assignment_id": str(sheet.assignment_id),
        "name": "steps",
        "fmt_name": "svg",
        "uidb64": "MTIzNDU",
        "token": "x-y",
        "response_id": str(a05.pk),
    }
    accounts = {
        "rater": users["rater1"],
        "calibrator": users["calibrator"],
        "researcher": users["researcher"],
        "admin": invited_admin,
        "superuser": users["admin"],
        "rater+researcher": both_research,
        "rater+admin": both_admin,
    }
    return {"values": values, "accounts": accounts, "study": study, "stub": stub, "groups": groups}


def _protected_state() -> dict:
    """What only the product's services may change: scores, sheets, final scores, accounts'
    privileges and passwords, endpoints (keys and hosts), conditions, study settings."""
    user_model = get_user_model()
    return {
        "items": sorted(map(str, ItemScore.objects.filter(sheet__version__gt=0).values_list())),
        "dims": sorted(
            DimensionScore.objects.filter(sheet__version__gt=0).values_list("sheet_id", "dimension", "value")
        ),
        # a sheet a rater opens (version 0, empty) is not a change of scores
        "sheets": sorted(
            ScoreSheet.all_objects.filter(version__gt=0).values_list("pk", "status", "version", "overall")
        ),
        "final": sorted(FinalScore.objects.values_list("response_id", "overall", "rule")),
        "users": sorted(
            user_model.objects.values_list(
                "pk", "username", "password", "is_superuser", "is_staff", "is_active"
            )
        ),
        "memberships": sorted(user_model.groups.through.objects.values_list("user_id", "group_id")),
        "group_perms": sorted(Group.permissions.through.objects.values_list("group_id", "permission_id")),
        "user_perms": sorted(
            user_model.user_permissions.through.objects.values_list("user_id", "permission_id")
        ),
        "profiles": sorted(RaterProfile.objects.values_list("user_id", "rater_code", "can_calibrate")),
        "endpoints": sorted(
            ModelEndpoint.objects.values_list("pk", "base_url", "api_key_env", "model_name", "is_active")
        ),
        "conditions": sorted(
            map(str, Condition.objects.values_list("pk", "letter", "strategy", "parameters"))
        ),
        "studies": sorted(
            Study.objects.values_list(
                "pk", "agreement_threshold", "headline_icc", "final_score_rule", "calibrating_judge"
            )
        ),
        "responses": sorted(Response.objects.values_list("pk", "step1", "step3", "status")),
    }


def _exploits(world, user) -> list[tuple[str, dict]]:
    """The Django admin POSTs of the issue, and a tampered change and a delete of one object
    of every registered model."""
    superuser = world["accounts"]["superuser"]
    posts = [
        (
            reverse("admin:auth_user_password_change", args=[superuser.pk]),
            {"password1": "taken-over-pass-2231", "password2": "taken-over-pass-2231"},
        ),  # fmt: skip
        (
            reverse("admin:auth_user_change", args=[user.pk]),
            {
                **_tampered(user),
                "username": user.username,
                "is_superuser": "on",
                "is_staff": "on",
                "groups": [g.pk for g in world["groups"].values()],
            },
        ),  # fmt: skip
        (
            reverse("admin:auth_user_add"),
            {"username": "planted", "password1": "planted-pass-8812", "password2": "planted-pass-8812"},
        ),  # fmt: skip
        (
            reverse("admin:auth_group_change", args=[world["groups"][RATER].pk]),
            {"name": RATER, "permissions": list(Permission.objects.values_list("pk", flat=True))},
        ),  # fmt: skip
        (
            reverse("admin:studies_modelendpoint_change", args=[world["stub"].pk]),
            {**_tampered(world["stub"]), "api_key_env": "SECRET_KEY", "base_url": "http://127.0.0.1:9/v1"},
        ),  # fmt: skip
    ]
    for model in _admin_models():
        info = (model._meta.app_label, model._meta.model_name)
        instance = model._default_manager.first()
        posts.append((reverse("admin:{}_{}_add".format(*info)), {}))
        if instance is None:
            continue
        posts.append((reverse("admin:{}_{}_change".format(*info), args=[instance.pk]), _tampered(instance)))
        posts.append((reverse("admin:{}_{}_delete".format(*info), args=[instance.pk]), {"post": "yes"}))
        posts.append(
            (
                reverse("admin:{}_{}_changelist".format(*info)),
                {"action": "delete_selected", "_selected_action": [instance.pk], "post": "yes"},
            )  # fmt: skip
        )
    return posts


def _admin_pages() -> list[str]:
    pages = [reverse("admin:index")]
    for model in _admin_models():
        info = (model._meta.app_label, model._meta.model_name)
        pages.append(reverse("admin:{}_{}_changelist".format(*info)))
        instance = model._default_manager.first()
        if instance is not None:
            pages.append(reverse("admin:{}_{}_change".format(*info), args=[instance.pk]))
    return pages


UNBLINDED = ("/research/", "/manage/", "/admin/", "/api/")
ADMIN_ROLES = {"admin", "superuser"}


def _registered_rows() -> dict:
    """Every row of every model the Django admin shows, third-party apps' included."""
    return {
        model._meta.label: sorted(map(str, model._default_manager.order_by("pk").values_list()))
        for model in _admin_models()
    }


def _assert_unchanged(before: dict, after: dict) -> None:
    changed = {key: set(before[key]) ^ set(after[key]) for key in before if before[key] != after[key]}
    assert changed == {}, "\n".join(f"{k}: {sorted(map(str, v))[:6]}" for k, v in changed.items())


RATER_ROLES = {"rater", "calibrator", "rater+researcher", "rater+admin"}


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
def test_every_url_as_every_role_changes_nothing_outside_the_services(world, role):
    client = Client(raise_request_exception=False)
    account = world["accounts"].get(role)
    if account is not None:
        client.force_login(account)
    product = _product_urls(world["values"])
    assert len(product) > 60  # the walk found the product's pages (not an empty configuration)
    served_5xx, opened = [], []

    def walk(urls: list[str]) -> None:
        for url in urls:
            for method in ("get", "post"):
                reply = getattr(client, method)(url)
                if reply.status_code >= 500 and not (url == "/status/" and reply.status_code == 503):
                    served_5xx.append((method, url, reply.status_code))  # /status/: 503 = "not ready"
                if method == "get" and reply.status_code == 200:
                    opened.append(url)
                if url == reverse("logout") and account is not None:
                    client.force_login(account)  # walk on as the same person

    before = _protected_state()
    walk(product)
    if role not in ADMIN_ROLES:  # an admin's empty POSTs may run services (e.g. add the default gold sheet)
        _assert_unchanged(before, _protected_state())
    before, rows = _protected_state(), _registered_rows()
    assert {"axes.AccessAttempt", "axes.AccessLog", "axes.AccessFailureLog"} <= set(rows)
    walk(_admin_pages())
    for url, data in _exploits(world, account) if account is not None else []:
        reply = client.post(url, data)
        if reply.status_code >= 500:
            served_5xx.append(("post", url, reply.status_code))
    assert served_5xx == []
    _assert_unchanged(before, _protected_state())  # the Django admin changes nothing, for anyone
    _assert_unchanged(rows, _registered_rows())  # no row of any model it shows

    # what each role may open at all
    if role == "anonymous":
        assert [u for u in opened if not u.startswith(("/accounts/", "/healthz", "/admin/login"))] == []
    if role in RATER_ROLES:  # raters, alone or combined: nothing unblinded
        assert [u for u in opened if u.startswith(UNBLINDED) and u != "/admin/login/"] == []
    if role in ("researcher", "admin", "superuser"):
        assert {"/api/v1/studies", "/api/v1/docs", "/api/tokens/"} <= set(opened)  # the walk reached the API
    if role == "researcher":
        reachable = [u for u in opened if u.startswith(("/manage/", "/admin/", "/scoring/"))]
        assert [u for u in reachable if not u.startswith("/manage/judges/")] == []  # judges: researchers too
    if role in ("admin", "superuser"):
        assert "/manage/" in opened and reverse("admin:index") in opened


API_TOKEN_HOLDERS = ("researcher", "admin", "superuser", "rater+researcher", "rater+admin")


@pytest.mark.django_db
@pytest.mark.parametrize("role", API_TOKEN_HOLDERS)
@pytest.mark.parametrize("scope", ["read", "write"])
def test_every_api_url_with_a_token_changes_nothing_and_shows_raters_nothing(world, role, scope):
    """The API's URLs walked with a personal access token instead of a session: no 5xx, no
    change outside the services; a token of an account that is also a rater (made before the
    rule, straight in the table: the service refuses them) opens nothing."""
    account = world["accounts"][role]
    plain = f"tlm_walk-{role}-{scope}"
    ApiToken.objects.create(
        user=account, name="walk", prefix=plain[:10], digest=token_digest(plain), scope=scope,
        expires_at=timezone.now() + timedelta(days=1),
    )  # fmt: skip
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {plain}")
    urls = [u for u in _product_urls(world["values"]) if u.startswith("/api/v1/")]
    assert len(urls) > 10
    served_5xx, opened = [], []
    before = _protected_state()
    for url in urls:
        for method in ("get", "post"):
            reply = getattr(client, method)(url)
            if reply.status_code >= 500:
                served_5xx.append((method, url, reply.status_code))
            if method == "get" and reply.status_code == 200:
                opened.append(url)
    assert served_5xx == []
    _assert_unchanged(before, _protected_state())
    if role in RATER_ROLES:
        assert opened == []
    else:
        assert f"/api/v1/studies/{world['values']['study_id']}/sheets" in opened
