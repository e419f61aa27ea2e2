"""Benchmark of the rater workspace: scoring page and autosave, server side.

    DATABASE_URL=postgres://... .venv/bin/python bench/bench_scoring.py [--repeat 200]

Creates a throw-away database (bench_<name>) on the PostgreSQL server of
DATABASE_URL, loads 10 scenarios x 40 responses x 2 raters (800 sheets, half of
them fully scored), and times requests in-process through the whole Django stack
(middleware, session, auth, templates, ORM): the scoring page (GET
/scoring/<blind_code>/), an autosave (POST .../save/ with two changes), a
whole-sheet save (all 102 fields in one request, every field changed), and two
reference views on the same stack: a login-protected view rendering the bare
base template, and a login-protected view returning a plain HttpResponse. The
kinds of request take turns (one of each per round), so that the drifting load of
a shared machine hits them alike; the table gives wall time and this process's
CPU time. The SQL query count of each request is measured at a small data size
(1 scenario x 4 responses) and at full size; it must not grow. Not a test:
prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.test")

import django  # noqa: E402

django.setup()

from django.contrib.auth.decorators import login_required  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.shortcuts import render  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    override_settings,
    setup_databases,
    setup_test_environment,
    teardown_databases,
)
from django.urls import include, path  # noqa: E402

SCENARIOS, RESPONSES_PER_SCENARIO, CONDITIONS = 10, 40, ("A", "B", "C", "D")


@login_required
def bare_template_view(request):
    return render(request, "base.html", {})


@login_required
def bare_http_view(request):
    return HttpResponse("ok")


urlpatterns = [
    path("bench/bare-template/", bare_template_view),
    path("bench/bare-http/", bare_http_view),
    path("", include("teamllm_web.urls")),
]


def build(n_scenarios: int, start: int = 0) -> None:
    """``n_scenarios`` scenarios x 40 responses, each assigned to both raters; half scored."""
    from django.contrib.auth import get_user_model

    from scoring.models import Assignment, ScoringGroup
    from scoring.score_files import data_a_changes
    from scoring.services.assignments import group_assign_pair
    from scoring.services.sheets import sheet_apply_changes, sheet_open
    from studies.models import Condition, ModelEndpoint, Scenario, Study
    from studies.rubric import load_rubric
    from studies.services.responses import response_create

    study = Study.objects.get(name="bench")
    users = get_user_model().objects
    r1, r2 = users.get(username="bench-r1"), users.get(username="bench-r2")
    data_a = json.loads((ROOT / "studies" / "data" / "data_A.json").read_text(encoding="utf-8"))
    full = data_a_changes(data_a[0][3], load_rubric())
    answers = [data_a[0][3][f"Step-{n}"] for n in range(1, 7)]
    texts = []
    for step in answers:
        if isinstance(step, list):
            texts.append("\n".join(str(i.get("Content", "")) for i in step if "Content" in i))
        else:
            texts.append(str(step.get("Content", "")))
    models = list(ModelEndpoint.objects.order_by("model_number")[:10])
    conditions = [Condition.objects.get(letter=c) for c in CONDITIONS]
    for s in range(start, start + n_scenarios):
        scenario = Scenario.objects.create(
            study=study, code=f"FS{s + 1}", theme=f"Theme {s + 1}", text="x" * 3000
        )
        for condition in conditions:
            for model in models[: RESPONSES_PER_SCENARIO // len(conditions)]:
                response_create(study=study, scenario=scenario, model=model, condition=condition,
                                answers=texts, source="imported")  # fmt: skip
        group_assign_pair(study=study, scenario=scenario, conditions=conditions, rater_a=r1, rater_b=r2)
    for i, a in enumerate(Assignment.objects.filter(group__in=ScoringGroup.objects.filter(study=study),
                                                     sheet__isnull=True).order_by("id")):  # fmt: skip
        sheet = sheet_open(assignment=a, actor=a.rater)
        if i % 2:
            sheet_apply_changes(sheet_id=sheet.pk, actor=a.rater, changes=full, expected_version=0)


def timed_rounds(client: Client, requests: list[tuple], repeat: int) -> dict[str, dict]:
    """``repeat`` rounds (after 20 warm-up rounds) of one request of each kind, interleaved,
    so that the load of a shared machine drifting over minutes hits every kind alike.
    Wall time, and CPU time of this process (not PostgreSQL's, not time spent waiting for a core)."""
    runs = {name: {"wall": [], "cpu": [], "queries": 0} for name, *_ in requests}
    for i in range(repeat + 20):
        for name, method, url, body_for in requests:
            with CaptureQueriesContext(connection) as ctx:
                t0, c0 = time.perf_counter(), time.thread_time()
                if method == "get":
                    reply = client.get(url)
                else:
                    reply = client.post(url, data=json.dumps(body_for(i)), content_type="application/json")
                wall, cpu = time.perf_counter() - t0, time.thread_time() - c0
            assert reply.status_code == 200, (url, reply.status_code, reply.content[:300])
            if i >= 20:  # warm-up done
                run = runs[name]
                run["wall"].append(wall * 1000)
                run["cpu"].append(cpu * 1000)
                run["queries"] = max(run["queries"], len(ctx.captured_queries))
    return runs


def measure(repeat: int) -> dict:
    from django.contrib.auth import get_user_model

    from scoring.models import Assignment

    user = get_user_model().objects.get(username="bench-r1")
    client = Client()
    client.force_login(user)
    # three unscored sheets: the page always shows an unscored one, autosave writes to
    # the second, the whole-sheet save (all 102 fields, each changed) to the third
    unscored = Assignment.objects.filter(rater=user, sheet__version=0).order_by("id")
    page_assignment, save_assignment, whole_assignment = unscored[:3]
    code, save_code = page_assignment.blind_code, save_assignment.blind_code
    whole_code = whole_assignment.blind_code
    versions: dict[int, int] = {}

    def body_for(assignment, changes):
        sheet = assignment.sheet
        version = versions.setdefault(sheet.pk, sheet.version)
        versions[sheet.pk] += 1
        return {"sheet": sheet.pk, "batch_id": f"bench-{time.time_ns()}", "expected_version": version,
                "changes": changes}  # fmt: skip

    def save_body(i):
        return body_for(
            save_assignment, [["dims.s2.focus", 5 + i % 2], ["items.1.3.comment", f"comment {i}"]]
        )

    from load_test import whole_sheet  # bench/ is this script's directory: the load test's 102 fields

    sheets = [whole_sheet(0), whole_sheet(1)]

    def whole_body(i):
        return body_for(whole_assignment, sheets[i % 2])

    runs = timed_rounds(
        client,
        [
            ("bare view (HttpResponse)", "get", "/bench/bare-http/", None),
            ("bare view (base template)", "get", "/bench/bare-template/", None),
            ("scoring page", "get", f"/scoring/{code}/", None),
            ("autosave (2 changes)", "post", f"/scoring/{save_code}/save/", save_body),
            ("whole sheet (102 fields)", "post", f"/scoring/{whole_code}/save/", whole_body),
            ("rater queue (400 rows)", "get", "/scoring/", None),
        ],
        repeat,
    )
    return {
        name: {
            "median": statistics.median(run["wall"]),
            "p95": statistics.quantiles(run["wall"], n=20)[18],
            "cpu": statistics.median(run["cpu"]),
            "queries": run["queries"],
        }
        for name, run in runs.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    from django.conf import settings

    if not settings.DATABASES["default"]["ENGINE"].endswith(".postgresql"):
        sys.exit("Set DATABASE_URL to a PostgreSQL server (the benchmark creates bench_<name> there).")
    # its own throw-away database, so that it never collides with a pytest run
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = (
        "bench_" + settings.DATABASES["default"]["NAME"]
    )
    warnings.filterwarnings("ignore", message="Limit for query logging exceeded")
    setup_test_environment()
    old = setup_databases(verbosity=0, interactive=False)
    try:
        with override_settings(ROOT_URLCONF=__name__, DEBUG=False):
            from demo.services import user_create_with_role
            from studies.models import Study
            from studies.services.roles import role_groups_ensure
            from studies.services.setup import conditions_ensure_defaults, endpoints_ensure_paper_models

            role_groups_ensure()
            conditions_ensure_defaults()
            endpoints_ensure_paper_models()
            Study.objects.create(name="bench")
            for n in (1, 2):
                user_create_with_role(username=f"bench-r{n}", password="bench-pass-1", role="Rater",
                                      rater_code=f"H9{n}")  # fmt: skip
            t0 = time.perf_counter()
            build(1)
            small = measure(max(20, args.repeat // 4))
            build(SCENARIOS - 1, start=1)
            print(f"data loaded in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
            from scoring.models import Assignment, ScoreSheet
            from studies.models import Response

            sizes = (Response.objects.count(), Assignment.objects.count(), ScoreSheet.objects.count())
            full = measure(args.repeat)
    finally:
        teardown_databases(old, verbosity=0)
    base = full["bare view (base template)"]["median"]
    base_http = full["bare view (HttpResponse)"]["median"]
    base_cpu = full["bare view (base template)"]["cpu"]
    print(
        f"PostgreSQL, {sizes[0]} responses, {sizes[1]} assignments, {sizes[2]} sheets; {args.repeat} requests each"
    )
    print(
        "| request | median ms | p95 ms | x bare template view | x bare HttpResponse view "
        "| CPU median ms | CPU x bare template view | queries (small data) | queries (full data) |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, r in full.items():
        print(f"| {name} | {r['median']:.2f} | {r['p95']:.2f} | {r['median'] / base:.2f} | "
              f"{r['median'] / base_http:.2f} | {r['cpu']:.2f} | {r['cpu'] / base_cpu:.2f} | "
              f"{small[name]['queries']} | {r['queries']} |")  # fmt: skip


if __name__ == "__main__":
    main()
