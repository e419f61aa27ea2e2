"""Benchmark: the scored side of a full-size study (issue 40), at 1x and 10x side by side.

    DATABASE_URL=postgres://.../full1  REDIS_URL=redis://... .venv/bin/python bench/bench_scale_results.py
    DATABASE_URL=postgres://.../full10 REDIS_URL=redis://... .venv/bin/python bench/bench_scale_results.py

On a study ``full_study.py`` made (1x: 600 responses, 20 raters; 10x: 6,000, 200): every held
response is released through the product's service (each assigned to its pair), then

1. a rater's offline package: every workbook of the rater with the most open sheets, as the
   workbook page builds it (``workbook_export`` per scoring group), time and sheets; then every
   open workbook of the study in one zip, as the admin's download builds it (``workbooks_zip_write``);
2. every sheet scored: submitted sheets with random valid entries and the pair's final scores
   (bench_export's bulk seed: the scoring itself is timed by the load tests), and each response's
   diversity stored as the worker's task stores it on arrival;
3. agreement: a full recompute of the study, cold (memo and agreement rows cleared) and with nothing
   changed; one submit's incremental recompute (``response_scores_recompute``), median of --repeat;
4. the results page, cold (empty cache) and warm (median, p95), and the results workbook as the
   export job writes it, cold and warm;
5. the process's peak memory (RSS).

The data stays (run it once per database). Prints one line per figure.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.local")

from bench_export import score_everything  # noqa: E402  (sets Django up)
from django.contrib.auth import get_user_model  # noqa: E402
from django.test import Client, override_settings  # noqa: E402

from bench.seed_data import statistics_refresh  # noqa: E402
from calibration.models import FinalScore, GroupAgreement, ResponseAgreement  # noqa: E402
from calibration.services.calibration import response_scores_recompute, study_agreement_recompute  # noqa: E402
from calibration.statistics import memo_clear  # noqa: E402
from core.accounts.roles import RESEARCHER  # noqa: E402
from demo.services import user_create_with_role  # noqa: E402
from research.models import KIND_RESULTS, ExportJob  # noqa: E402
from research.services.diversity import response_diversity_compute  # noqa: E402
from research.services.exports import export_job_run  # noqa: E402
from scoring.models import ScoringGroup  # noqa: E402
from scoring.services.workbooks import workbook_export, workbooks_zip_write  # noqa: E402
from scoring.workbooks.selectors import workbook_units_get  # noqa: E402
from studies.models import Study  # noqa: E402
from studies.selectors import HeldFilters, responses_held_matching  # noqa: E402
from studies.services.review import responses_release  # noqa: E402
from tests.caches import cache_clear_own  # noqa: E402


def _timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _release(study: Study, admin) -> float:
    held = list(responses_held_matching(filters=HeldFilters(study=study)).values_list("pk", flat=True))
    return _timed(lambda: responses_release(response_ids=held, actor=admin)) if held else 0.0


def _offline_package(study: Study) -> tuple[int, int, float]:
    units = [u for u in workbook_units_get(study=study) if u.n_open]
    by_rater: dict[int, list] = {}
    for unit in units:
        by_rater.setdefault(unit.rater_id, []).append(unit)
    rater_id, mine = max(by_rater.items(), key=lambda kv: sum(u.n_open for u in kv[1]))
    rater = get_user_model().objects.get(pk=rater_id)
    groups = {g.pk: g for g in ScoringGroup.objects.filter(pk__in=[u.group_id for u in mine])}
    took = _timed(lambda: [workbook_export(rater=rater, group=groups[u.group_id]) for u in mine])
    return len(mine), sum(u.n_open for u in mine), took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--again", action="store_true", help="the study is scored already: steps 3-5 only")
    args = parser.parse_args()
    study = Study.objects.order_by("-pk").first()
    admin = get_user_model().objects.get(username="full-admin")
    n = study.responses.count()
    print(f"{study.name}: {n} responses")
    if not args.again:
        print(f"release of every held response, one action: {_release(study, admin):.1f} s")
        statistics_refresh()
        books, sheets, took = _offline_package(study)
        print(
            f"a rater's offline package: {books} workbooks, {sheets} sheets: {took:.2f} s ({took / sheets * 1000:.0f} ms a sheet)"
        )
        with tempfile.TemporaryDirectory() as scratch:
            started = time.perf_counter()
            written = workbooks_zip_write(study=study, path=Path(scratch) / "all.zip")
            took = time.perf_counter() - started
        print(f"every open workbook of the study in one zip: {written} workbooks in {took:.1f} s")

        started = time.perf_counter()
        n_sheets = score_everything(study, random.Random(7))
        ids = list(study.responses.values_list("pk", flat=True))
        scored = time.perf_counter() - started
        diversity = _timed(lambda: [response_diversity_compute(response_id=pk) for pk in ids])
        print(
            f"seed: {n_sheets} submitted sheets in {scored:.0f} s; diversity stored for {len(ids)} in {diversity:.0f} s"
        )

    statistics_refresh()
    ResponseAgreement.objects.filter(response__study=study).delete()
    GroupAgreement.objects.filter(study=study).delete()
    FinalScore.objects.filter(response__study=study).delete()  # the recompute sets them again
    memo_clear()
    cold = _timed(lambda: study_agreement_recompute(study_id=study.pk))
    memo_clear()
    unchanged = _timed(lambda: study_agreement_recompute(study_id=study.pk))
    one = study.responses.order_by("pk").first()
    submits = [_timed(lambda: response_scores_recompute(response_id=one.pk)) for _ in range(args.repeat)]
    print(
        f"agreement: full recompute cold {cold:.2f} s, nothing changed {unchanged:.2f} s; one submit's "
        f"recompute median {statistics.median(submits) * 1000:.0f} ms, p95 {_p95(submits) * 1000:.0f} ms"
    )

    researcher = get_user_model().objects.filter(
        username="scale-researcher"
    ).first() or user_create_with_role(
        username="scale-researcher", password="scale-pass-2026", role=RESEARCHER
    )
    client = Client()
    client.force_login(researcher)
    with override_settings(DEBUG=False, ALLOWED_HOSTS=["testserver"]):
        cache_clear_own()
        page_cold = _timed(lambda: client.get("/research/", {"study": study.pk}))
        warm = [_timed(lambda: client.get("/research/", {"study": study.pk})) for _ in range(args.repeat)]
    print(
        f"results page: cold {page_cold:.2f} s, warm median {statistics.median(warm) * 1000:.0f} ms, "
        f"p95 {_p95(warm) * 1000:.0f} ms"
    )

    def workbook() -> float:
        job = ExportJob.objects.create(
            kind=KIND_RESULTS, params={"study_id": study.pk}, created_by=researcher
        )
        took = _timed(lambda: export_job_run(job_id=job.pk))
        job.refresh_from_db()
        assert job.status == ExportJob.Status.DONE, job.error
        return took

    cache_clear_own()
    book_cold = workbook()
    book_warm = [workbook() for _ in range(3)]
    print(f"results workbook: cold {book_cold:.2f} s, warm median {statistics.median(book_warm):.2f} s")
    print(f"peak memory of this process: {_peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
