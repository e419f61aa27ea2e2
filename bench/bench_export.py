"""Benchmark: export every offline scoring workbook and the results workbook of a study.

Study: 10 scenarios x 40 responses (10 models x 4 conditions), each response
scored by a pair of raters (800 primary sheets) and 10% by a third, calibrating
rater. Measures, on a fresh scratch database (created and dropped here):

1. all offline workbooks of the study (before scoring: every sheet open), zipped
2. the results workbook after scoring (tables, tests, diversity with a cold
   cache, raw long table), and again with a warm diversity cache

Run:  .venv/bin/python bench/bench_export.py   (uses DATABASE_URL; PostgreSQL recommended)
      add --memory to trace Python's peak allocation of each step (slower)
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.test")

import django  # noqa: E402

django.setup()

from celery import current_app  # noqa: E402
from django.db import connection  # noqa: E402

from tests.caches import cache_clear_own  # noqa: E402

# No worker runs here: the tasks that creating a response sends (its diversity, through the
# outbox) go to an in-memory broker and are dropped instead of piling up in the configured Redis.
current_app.conf.broker_url = current_app.conf.CELERY_BROKER_URL = "memory://"  # both: Celery 5.6

N_SCENARIOS, N_MODELS, CONDITIONS = 10, 10, ("A", "B", "C", "D")
WORDS = [
    "海洋",
    "塑料",
    "微粒",
    "食物链",
    "浮游生物",
    "渔业",
    "旅游",
    "政策",
    "科技",
    "教育",
    "健康",
    "社区",
    "经济",
    "法律",
    "伦理",
    "交通",
    "能源",
    "数据",
    "监测",
    "回收",
    "ocean",
    "plastic",
    "plankton",
    "policy",
    "school",
    "sensor",
    "fishing",
    "tourism",
    "recycling",
    "health",
    "community",
    "economy",
    "data",
]


def _items(rnd: random.Random, n: int, lead: str) -> str:
    return "\n".join(
        f"{i}. {lead} " + " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(12, 30)))
        for i in range(1, n + 1)
    )


def _answers(rnd: random.Random) -> list[str]:
    grid = "Solution ID | C1 | C2 | C3 | C4 | C5 | Total Score\n1 | 2 | 1 | 2 | 1 | 2 | 8\n2 | 1 | 2 | 1 | 2 | 1 | 7"
    return [
        _items(rnd, rnd.randint(5, 8), "挑战"),
        "How might we " + " ".join(rnd.choice(WORDS) for _ in range(20)) + " in order to protect plankton?",
        _items(rnd, rnd.randint(4, 8), "方案"),
        _items(rnd, 5, "Which is"),
        grid,
        "Action plan: " + " ".join(rnd.choice(WORDS) for _ in range(200)),
    ]


def _random_entries(rnd, rubric):
    from studies.rubric import CriterionEntry, IdeaEntry, SheetEntries

    entries = SheetEntries.empty(rubric)
    for step in rubric.steps:
        if step.kind == "ideas":
            for pos in range(step.item_count):
                if rnd.random() < 0.8:
                    entries.ideas[step.number][pos] = IdeaEntry(
                        category=rnd.choice(rubric.category_keys[:12]),
                        elaboration=rnd.randint(0, 2),
                        originality=rnd.randint(0, 2),
                    )
                else:
                    entries.ideas[step.number][pos] = IdeaEntry(
                        invalid=rnd.choice(["perhaps", "why", "blank"])
                    )
        elif step.kind == "criteria":
            entries.criteria = [
                CriterionEntry(rnd.randint(0, 1), rnd.randint(0, 3)) for _ in range(step.item_count)
            ]
        for d in step.scored_dimensions:
            entries.dimensions[d.key] = rnd.randint(d.min, d.max)
    entries.texts = {
        "condition_phrase": "cp",
        "stem": "How might we",
        "kvp": "reduce",
        "purpose": "to protect",
    }
    return entries


def build_study(rnd: random.Random):
    from core.accounts.roles import RATER
    from demo.services import user_create_with_role
    from scoring.models import Assignment, ScoringGroup
    from studies.models import Scenario, Study
    from studies.services.responses import response_create
    from studies.services.setup import conditions_ensure_defaults, endpoints_ensure_paper_models

    conditions = {c.letter: c for c in conditions_ensure_defaults()}
    models = endpoints_ensure_paper_models()[:N_MODELS]
    study = Study.objects.create(name="Benchmark study")
    raters = [
        user_create_with_role(
            username=f"bench-h{i:02d}",
            password="bench-pass-2026",
            role=RATER,
            rater_code=f"H{i:02d}",
            can_calibrate=True,
        )
        for i in range(1, 16)
    ]
    assignments = []
    for s in range(1, N_SCENARIOS + 1):
        scenario = Scenario.objects.create(
            study=study, code=f"FS{s}", theme=f"Scenario {s}", text="In 2040 ..."
        )
        for letter in CONDITIONS:
            a, b, c = rnd.sample(raters, 3)
            group = ScoringGroup.objects.create(
                study=study, scenario=scenario, condition=conditions[letter], rater_a=a, rater_b=b
            )
            for model in models:
                response = response_create(
                    study=study,
                    scenario=scenario,
                    model=model,
                    condition=conditions[letter],
                    answers=_answers(rnd),
                    source="imported",
                )
                # the group's pair (a, b) is assigned by response_create itself
                if rnd.random() < 0.1:
                    assignments.append(
                        Assignment(rater=c, response=response, group=group, role="calibration")
                    )
    Assignment.objects.bulk_create(assignments)
    return study


def score_everything(study, rnd: random.Random) -> int:
    """Submitted sheets with random valid entries (bulk), and the final scores."""
    from django.utils import timezone

    from calibration.services.calibration import final_score_set_mean
    from scoring.models import Assignment, DimensionScore, ItemScore, ScoreSheet
    from studies.rubric import load_rubric, sheet_totals

    rubric = load_rubric()
    now = timezone.now()
    sheets, rows_items, rows_dims = [], [], []
    plan = []
    for a in Assignment.objects.filter(response__study=study).order_by("id"):
        entries = _random_entries(rnd, rubric)
        totals = sheet_totals(entries, rubric)
        sheets.append(
            ScoreSheet(
                assignment=a,
                status="submitted",
                version=1,
                rubric_version=rubric.version,
                totals=totals.as_dict(),
                overall=totals.overall,
                submitted_at=now,
                condition_phrase="cp",
                stem="How might we",
                kvp="reduce",
                purpose="to protect",
            )
        )
        plan.append(entries)
    ScoreSheet.objects.bulk_create(sheets, batch_size=500)
    for sheet, entries in zip(sheets, plan, strict=True):
        for n, items in entries.ideas.items():
            rows_items += [
                ItemScore(
                    sheet=sheet,
                    step=n,
                    position=p,
                    category=i.category,
                    invalid_type=i.invalid,
                    elaboration=i.elaboration,
                    originality=i.originality,
                )
                for p, i in enumerate(items, start=1)
            ]
        rows_items += [
            ItemScore(
                sheet=sheet, step=4, position=p, correctly_written=c.correctly_written, relevance=c.relevance
            )
            for p, c in enumerate(entries.criteria, start=1)
        ]
        rows_dims += [
            DimensionScore(sheet=sheet, dimension=k, value=v) for k, v in entries.dimensions.items()
        ]
    ItemScore.objects.bulk_create(rows_items, batch_size=2000)
    DimensionScore.objects.bulk_create(rows_dims, batch_size=2000)
    by_response: dict[int, list] = {}
    for sheet in sheets:
        if sheet.assignment.role == "primary":
            by_response.setdefault(sheet.assignment.response_id, []).append(sheet)
    for _response_id, pair in by_response.items():
        final_score_set_mean(response=pair[0].assignment.response, sheets=pair, rule="mean_of_pair")
    return len(sheets)


def _timed(step):
    """(wall seconds, CPU seconds of this process, peak traced MB or None) of ``step()``;
    with --memory, Python's allocations are traced (slower: the times are then not comparable)."""
    trace = "--memory" in sys.argv
    if trace:
        tracemalloc.start()
    wall, cpu = time.perf_counter(), time.process_time()
    step()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = None
    if trace:
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    return wall, cpu, peak


def _report(label: str, timing) -> str:
    wall, cpu, peak = timing
    memory = f", peak {peak:.1f} MB traced" if peak is not None else ""
    return f"{label}: {wall:.2f} s (CPU {cpu:.2f} s{memory})"


@contextmanager
def scratch_database() -> Iterator[str]:
    """A fresh, empty test database for a benchmark (its name), dropped when it is done."""
    old_name = connection.settings_dict["NAME"]
    test_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        yield test_name
    finally:
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)


def main() -> None:
    from research.selectors.research import results_get
    from research.workbook import results_workbook_write
    from scoring.services.workbooks import workbooks_zip_write

    rnd = random.Random(7)
    with scratch_database() as test_name:
        t = time.perf_counter()
        study = build_study(rnd)
        setup = time.perf_counter() - t
        out = Path(tempfile.mkdtemp(prefix="bench-export-"))
        counted = {}

        def workbooks():
            counted["workbooks"] = workbooks_zip_write(study=study, path=out / "workbooks.zip")

        t_workbooks = _timed(workbooks)
        n_sheets = score_everything(study, rnd)
        cache_clear_own()
        t_results_cold = _timed(
            lambda: results_workbook_write(results_get(study=study), out / "results.xlsx")
        )
        t_results_warm = _timed(
            lambda: results_workbook_write(results_get(study=study), out / "results-warm.xlsx")
        )
        print(f"database: {connection.vendor} ({test_name}); setup {setup:.1f} s")
        size = (out / "workbooks.zip").stat().st_size / 1e6
        print(_report(f"offline workbooks: {counted['workbooks']} workbooks, {size:.1f} MB zip", t_workbooks))
        print(
            _report(f"results workbook ({n_sheets} submitted sheets, cold diversity cache)", t_results_cold)
        )
        print(_report("results workbook (warm diversity cache)", t_results_warm))
        total = t_workbooks[0] + t_results_cold[0]
        print(f"total (workbooks + results, cold): {total:.2f} s  (target < 10 s)")


if __name__ == "__main__":
    main()
