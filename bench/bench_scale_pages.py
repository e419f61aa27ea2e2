"""Benchmark: the admin, researcher and rater pages of a full-size study, warm (issue 40).

    DATABASE_URL=postgres://.../full1  REDIS_URL=redis://... .venv/bin/python bench/bench_scale_pages.py
    DATABASE_URL=postgres://.../full10 REDIS_URL=redis://... .venv/bin/python bench/bench_scale_pages.py

On a study ``full_study.py`` made (1x: 600 responses, 1,200 sheets, 20 raters; 10x: 6,000,
12,000, 200; released with ``--release`` first if they are still held), through the whole Django
stack (test client, DEBUG off, the configured cache), each page is requested once cold and
``--repeat`` times warm: median and p95 of the warm ones. A rater's queue is full-r001's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.test")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.test import Client, override_settings  # noqa: E402

from bench.seed_data import statistics_refresh  # noqa: E402
from core.accounts.roles import RESEARCHER  # noqa: E402
from demo.services import user_create_with_role  # noqa: E402
from scoring.models import ScoreSheet  # noqa: E402
from studies.models import Study  # noqa: E402
from studies.selectors import HeldFilters, responses_held_matching  # noqa: E402
from studies.services.review import responses_release  # noqa: E402

PASSWORD = "full-pass-2026"


def _client(username: str) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--release", action="store_true", help="release every held response first")
    args = parser.parse_args()
    study = Study.objects.order_by("-pk").first()
    admin = get_user_model().objects.get(username="full-admin")
    if args.release:
        held = list(responses_held_matching(filters=HeldFilters(study=study)).values_list("pk", flat=True))
        if held:
            responses_release(response_ids=held, actor=admin)
    user_create_with_role(username="full-researcher", password=PASSWORD, role=RESEARCHER)
    statistics_refresh()
    clients = {
        "admin": _client("full-admin"),
        "researcher": _client("full-researcher"),
        "rater": _client("full-r001"),
    }
    sheets = ScoreSheet.objects.filter(assignment__response__study=study).count()
    pages = [
        ("admin", "/manage/responses/held/", {"study": study.pk}),
        ("admin", "/manage/assignments/", {"study": study.pk}),
        ("admin", "/manage/workload/", {"study": study.pk}),
        ("admin", "/manage/accounts/", {}),
        ("admin", "/manage/workbooks/", {"study": study.pk}),
        ("admin", f"/manage/studies/{study.pk}/", {}),
        ("researcher", "/research/", {"study": study.pk}),
        ("rater", "/scoring/", {}),
        ("researcher", f"/api/v1/studies/{study.pk}/items", {"limit": 500}),
        # a page near the middle of the table (about 45 rows a sheet): it reads the sheets before it
        ("researcher", f"/api/v1/studies/{study.pk}/items", {"limit": 500, "offset": 20 * sheets}),
    ]
    print(f"{study.name}: {study.responses.count()} responses, {sheets} sheets, warm x{args.repeat}")
    with override_settings(DEBUG=False, ALLOWED_HOSTS=["testserver"]):
        for who, url, params in pages:
            client = clients[who]
            started = time.perf_counter()
            reply = client.get(url, params)
            cold = time.perf_counter() - started
            assert reply.status_code == 200, (url, reply.status_code)
            warm = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                client.get(url, params)
                warm.append(time.perf_counter() - started)
            url += f"?offset={params['offset']}" if "offset" in params else ""
            print(
                f"{url:38} cold {cold * 1000:6.0f} ms, warm median {statistics.median(warm) * 1000:5.0f} ms,"
                f" p95 {_p95(warm) * 1000:5.0f} ms"
            )


if __name__ == "__main__":
    main()
