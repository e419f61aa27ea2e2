"""Benchmark: the research pages and the results workbook of the 400-response study.

The study is bench_export.py's (10 scenarios x 40 responses, 10 models x conditions A-D,
two submitted sheets per response and a calibrating third on ~10%, final scores), on a
fresh scratch database (created and dropped here). As in production, each response's diversity
is stored when it arrives (here: ``response_diversity_compute`` for each seeded response, what
the worker's task does, timed apart and before anything else). Then, through the whole Django
stack (test client, a researcher logged in, the configured cache: Redis with REDIS_URL):

1. the results page (/research/?study=...): cold (empty cache), then warm (median, p95)
2. one figure (steps.svg): cold, then warm
3. the results workbook as the export job writes it (``export_job_run``): with cold caches
   (results; diversity read from the stored rows), with cold caches and the diversity not yet
   stored (computed from the texts: a database not backfilled), then warm (median of
   --repeat), and written from freshly computed results (``results_get`` +
   ``results_workbook_write``)

Run:  DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/bench_research.py
      --repeat N (default 5 workbooks, 20x that many warm page requests); --profile FILE writes a
      cProfile of one warm workbook to FILE, a cold one to FILE.cold and one warm results page
      to FILE.page
"""

from __future__ import annotations

import argparse
import cProfile
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_export import build_study, score_everything, scratch_database  # noqa: E402  (sets Django up)
from django.db import connection  # noqa: E402

from tests.caches import cache_clear_own  # noqa: E402


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"median {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms (n={len(ordered)})"


def _s(samples: list[float]) -> str:
    return f"median {statistics.median(samples):.2f} s (min {min(samples):.2f}, max {max(samples):.2f})"


def _timed_get(client, url: str, params: dict) -> float:
    t = time.perf_counter()
    reply = client.get(url, params)
    elapsed = time.perf_counter() - t
    assert reply.status_code == 200, (url, reply.status_code)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", default="")
    parser.add_argument("--pages-only", action="store_true", help="skip the workbooks")
    args = parser.parse_args()

    from django.test import Client

    from research.models import ExportJob, ResponseDiversity
    from research.selectors.research import results_get
    from research.services.diversity import response_diversity_compute, responses_diversity_backfill

    try:
        from research.selectors.versions import research_data_version
    except ImportError:  # before the results were cached, it was the figures' own
        from research.selectors.figures import research_data_version
    from core.accounts.roles import RESEARCHER
    from research.models import KIND_RESULTS
    from research.services.exports import export_job_run
    from research.workbook import results_workbook_write
    from tests.factories import UserFactory

    rnd = random.Random(7)
    with scratch_database() as test_name:
        t = time.perf_counter()
        study = build_study(rnd)
        n_sheets = score_everything(study, rnd)
        print(f"database: {connection.vendor} ({test_name}); {n_sheets} submitted sheets; "
              f"setup {time.perf_counter() - t:.1f} s")  # fmt: skip
        # what the worker's task does as each response arrives (the seed sent those tasks nowhere)
        t = time.perf_counter()
        ids = list(study.responses.values_list("pk", flat=True))
        for pk in ids:
            response_diversity_compute(response_id=pk)
        print(f"diversity stored at arrival: {len(ids)} responses, {time.perf_counter() - t:.1f} s in all")
        user = UserFactory(username="bench-researcher", role=RESEARCHER)
        client = Client()
        client.force_login(user)
        params = {"study": study.pk}

        def workbook() -> float:
            # created directly: export_job_create would also send its task to the broker
            job = ExportJob.objects.create(kind=KIND_RESULTS, params={"study_id": study.pk}, created_by=user)
            t = time.perf_counter()
            export_job_run(job_id=job.pk)
            elapsed = time.perf_counter() - t
            job.refresh_from_db()
            assert job.status == ExportJob.Status.DONE, job.error
            return elapsed

        cache_clear_own()
        cold_page = _timed_get(client, "/research/", params)
        warm_page = [_timed_get(client, "/research/", params) for _ in range(20 * args.repeat)]
        cold_figure = _timed_get(client, "/research/figures/steps.svg", params)
        warm_figure = [
            _timed_get(client, "/research/figures/steps.svg", params) for _ in range(20 * args.repeat)
        ]
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(client.get, "/research/", params)
            profiler.dump_stats(args.profile + ".page")
            print(f"profile of one warm results page: {args.profile}.page")
        versions = []
        for _ in range(50):
            t = time.perf_counter()
            research_data_version(study=study)
            versions.append(time.perf_counter() - t)
        print(f"data version: {_ms(versions)}")
        print(f"results page: cold {cold_page * 1000:.0f} ms; warm {_ms(warm_page)}")
        print(f"figure steps.svg: cold {cold_figure * 1000:.0f} ms; warm {_ms(warm_figure)}")

        if args.pages_only:
            return
        cache_clear_own()
        if args.profile:  # the cold workbook, profiled (its time is then not comparable)
            profiler = cProfile.Profile()
            profiler.runcall(workbook)
            profiler.dump_stats(args.profile + ".cold")
            print(f"profile of one cold workbook: {args.profile}.cold")
            cache_clear_own()
        cold_book = workbook()
        # a database not yet backfilled: the diversity computed from the texts (and cached)
        ResponseDiversity.objects.filter(response__study=study).delete()
        cache_clear_own()
        unstored_book = workbook()
        t = time.perf_counter()
        responses_diversity_backfill(study_id=study.pk)
        backfill = time.perf_counter() - t
        warm_books = [workbook() for _ in range(args.repeat)]
        # the same workbook from freshly computed results (diversity stored): what the export
        # job does after a change of the data
        out = Path(tempfile.mkdtemp(prefix="bench-research-"))
        fresh_books = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            results_workbook_write(results_get(study=study), out / "results.xlsx")
            fresh_books.append(time.perf_counter() - t)
        print(f"results workbook (export job), cold caches, diversity stored at arrival: {cold_book:.2f} s")
        print(f"results workbook (export job), cold caches, diversity not yet stored: {unstored_book:.2f} s")
        print(f"diversity_backfill of the study (every row computed again): {backfill:.2f} s")
        print(f"results workbook (export job), warm caches: {_s(warm_books)}")
        print(f"results workbook, results computed, diversity stored: {_s(fresh_books)}")
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(workbook)
            profiler.dump_stats(args.profile)
            print(f"profile of one warm workbook: {args.profile}")


if __name__ == "__main__":
    main()
