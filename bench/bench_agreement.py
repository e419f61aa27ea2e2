"""Benchmark: recompute all agreement statistics of a study of 10 scenarios x 40 responses.

Each scenario has 40 responses (10 models x 4 conditions); each scenario x condition
is a scoring group with its own pair of raters (2 primary sheets per response), and
the responses below the threshold get a third, calibrating sheet. The script builds
this study in a throw-away PostgreSQL test database (``test_<name of DATABASE_URL's db>``),
then times ``study_agreement_recompute`` (PCC for every response, the six ICC forms
for 40 groups and 10 scenarios before and after calibration, routing, final scores):

* cold: no stored statistics (every row is written),
* warm: nothing changed since the last recompute (reads and statistics only),
* one submit: ``response_scores_recompute`` of one response (its scenario only),
  what the Celery task does after every submit.

Run: ``DATABASE_URL=postgres://... .venv/bin/python bench/bench_agreement.py [--repeat 5] [--scenarios 15]``
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.test")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.utils import timezone  # noqa: E402

N_SCENARIOS, N_MODELS, CONDITIONS = 10, 10, ("A", "B", "C", "D")
LABELS = {
    "cold": "full recompute, cold (no stored rows, empty memo)",
    "unchanged": "full recompute, nothing changed, empty memo",
    "unchanged_memo": "full recompute, nothing changed, warm memo",
    "threshold": "threshold 0.65 -> 0.70 (settings page), warm memo",
    "submit": "one submit: its scenario (the Celery task), warm memo",
}


def _truth(rubric, rng: random.Random):
    """What a perfect rater would enter for one response."""
    from studies.rubric import CriterionEntry, IdeaEntry, SheetEntries

    quality = rng.random()
    entries = SheetEntries.empty(rubric)
    categories = rubric.category_keys[:12]
    for step in (1, 3):
        entries.ideas[step] = [
            IdeaEntry(invalid=rng.choice(["perhaps", "why", "duplicate", "blank"]))
            if rng.random() < 0.1 + 0.4 * (1 - quality)
            else IdeaEntry(
                category=rng.choice(categories), elaboration=rng.randint(0, 2), originality=rng.randint(0, 2)
            )
            for _ in range(rubric.step(step).item_count)
        ]
    entries.criteria = [
        CriterionEntry(correctly_written=rng.randint(0, 1), relevance=rng.randint(0, 3)) for _ in range(5)
    ]
    for step in rubric.steps:
        for d in step.scored_dimensions:
            entries.dimensions[d.key] = rng.randint(d.min, d.max)
    return entries


def _rater_sheet(rubric, truth, noise: float, rng: random.Random):
    """A rater's sheet: the truth with the rater's own errors (``noise`` ~ 0.1 careful .. 0.4 sloppy)."""
    from studies.rubric import CriterionEntry, IdeaEntry, SheetEntries

    def jitter(value: int, lo: int, hi: int) -> int:
        return min(hi, max(lo, int(round(value + rng.gauss(0, noise * (hi - lo + 1))))))

    entries = SheetEntries.empty(rubric)
    for step, items in truth.ideas.items():
        out = []
        for item in items:
            if rng.random() < noise / 2:  # classified differently
                item = (
                    IdeaEntry(invalid="perhaps")
                    if item.is_yes
                    else IdeaEntry(category="Education", elaboration=1, originality=1)
                )
            if item.is_yes:
                item = IdeaEntry(
                    category=item.category,
                    elaboration=jitter(item.elaboration, 0, 2),
                    originality=jitter(item.originality, 0, 2),
                )
            out.append(item)
        entries.ideas[step] = out
    entries.criteria = [
        CriterionEntry(
            correctly_written=jitter(c.correctly_written, 0, 1), relevance=jitter(c.relevance, 0, 3)
        )
        for c in truth.criteria
    ]
    for step in rubric.steps:
        for d in step.scored_dimensions:
            entries.dimensions[d.key] = jitter(truth.dimensions[d.key], d.min, d.max)
    return entries


def build_study(seed: int = 2026):
    """Create the study; returns (study, number of sheets)."""
    from calibration.services.calibration import study_agreement_recompute
    from scoring.models import Assignment, ScoreSheet, ScoringGroup
    from studies.models import Response, Scenario, Study
    from studies.rubric import load_rubric, sheet_totals
    from studies.services.setup import conditions_ensure_defaults, endpoints_ensure_paper_models
    from tests.factories import rater

    rng = random.Random(seed)
    rubric = load_rubric()
    conditions_ensure_defaults()
    endpoints_ensure_paper_models()
    from studies.models import Condition, ModelEndpoint

    conditions = {c.letter: c for c in Condition.objects.filter(letter__in=CONDITIONS)}
    models = list(ModelEndpoint.objects.filter(model_number__lte=f"{N_MODELS:02d}").order_by("model_number"))
    study = Study.objects.create(name="Agreement benchmark")
    raters = [rater(f"bench-h{i:02d}", code=f"B{i:02d}") for i in range(1, 16)]
    for i in range(1, 4):
        rater(f"bench-cal{i}", code=f"C{i:02d}", can_calibrate=True)
    now = timezone.now()
    responses, groups = [], {}
    for s in range(1, N_SCENARIOS + 1):
        scenario = Scenario.objects.create(study=study, code=f"FS{s:02d}", theme=f"Theme {s}", text="...")
        for letter in CONDITIONS:
            a, b = rng.sample(raters, 2)
            groups[(scenario.pk, letter)] = ScoringGroup.objects.create(
                study=study, scenario=scenario, condition=conditions[letter], rater_a=a, rater_b=b
            )
            for model in models:
                responses.append(
                    Response(
                        study=study,
                        scenario=scenario,
                        model=model,
                        condition=conditions[letter],
                        research_id=f"{letter}{model.model_number}_{scenario.code}",
                        source="imported",
                        status="scoring",
                        **{f"step{n}": f"answer {n}" for n in range(1, 7)},
                    )
                )
    Response.objects.bulk_create(responses)
    assignments, truths = [], {}
    noise = {u.pk: rng.uniform(0.05, 0.25) for u in raters}
    for response in Response.objects.filter(study=study).select_related("condition").order_by("pk"):
        group = groups[(response.scenario_id, response.condition.letter)]
        truths[response.pk] = _truth(rubric, rng)
        for user in (group.rater_a, group.rater_b):
            assignments.append(Assignment(rater=user, response=response, role="primary", group=group))
    Assignment.objects.bulk_create(assignments)

    def sheets_for(rows) -> list:
        sheets = []
        for assignment in rows:
            entries = _rater_sheet(
                rubric, truths[assignment.response_id], noise.get(assignment.rater_id, 0.05), rng
            )
            totals = sheet_totals(entries, rubric)
            sheets.append(
                ScoreSheet(
                    assignment=assignment,
                    status="submitted",
                    version=1,
                    rubric_version=rubric.version,
                    source="import",
                    totals=totals.as_dict(),
                    overall=totals.overall,
                    submitted_at=now,
                )
            )
        return sheets

    ScoreSheet.objects.bulk_create(
        sheets_for(Assignment.objects.filter(response__study=study).order_by("pk"))
    )
    study_agreement_recompute(study_id=study.pk)  # routes the flagged responses to calibrators
    calibrations = Assignment.objects.filter(
        response__study=study, role="calibration", sheet__isnull=True
    ).order_by("pk")
    ScoreSheet.objects.bulk_create(sheets_for(calibrations))
    return study, ScoreSheet.objects.filter(assignment__response__study=study).count()


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scenarios", type=int, default=10, help="15: the paper's 600 responses (40 each)")
    args = parser.parse_args()
    global N_SCENARIOS
    N_SCENARIOS = args.scenarios
    if connection.vendor != "postgresql":
        sys.exit("Set DATABASE_URL to a PostgreSQL database (the benchmark uses its own test_ copy).")
    from django.test.utils import setup_test_environment

    setup_test_environment()
    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        from calibration.models import FinalScore, GroupAgreement, ResponseAgreement
        from calibration.selectors.agreement import consistency_table
        from calibration.services.agreement_settings import study_agreement_settings_update
        from calibration.services.calibration import response_scores_recompute, study_agreement_recompute
        from calibration.statistics import memo_clear
        from studies.models import Response

        def settings(threshold: Decimal):
            study_agreement_settings_update(
                study_id=study.pk,
                actor=None,
                threshold=threshold,
                headline_icc="ICC3k",
                final_score_rule="calibrator_and_closer",
            )

        start = time.perf_counter()
        study, n_sheets = build_study()
        build = time.perf_counter() - start
        n_responses = Response.objects.filter(study=study).count()
        print(f"PostgreSQL {connection.pg_version // 10000}, database {test_db}")
        print(
            f"study: {N_SCENARIOS} scenarios x {n_responses // N_SCENARIOS} responses, {n_sheets} sheets (built in {build:.1f} s)"
        )

        def clear():
            ResponseAgreement.objects.filter(response__study=study).delete()
            GroupAgreement.objects.filter(study=study).delete()
            FinalScore.objects.filter(response__study=study).delete()

        one = Response.objects.filter(study=study).order_by("pk").first()
        runs: dict[str, list[float]] = {k: [] for k in LABELS}
        for _ in range(args.repeat):
            clear()
            memo_clear()
            runs["cold"].append(timed(lambda: study_agreement_recompute(study_id=study.pk)))
            memo_clear()
            runs["unchanged"].append(timed(lambda: study_agreement_recompute(study_id=study.pk)))
            runs["unchanged_memo"].append(timed(lambda: study_agreement_recompute(study_id=study.pk)))
            runs["threshold"].append(timed(lambda: settings(Decimal("0.70"))))
            settings(Decimal("0.65"))
            runs["submit"].append(timed(lambda: response_scores_recompute(response_id=one.pk)))
        report = study_agreement_recompute(study_id=study.pk)
        table = consistency_table(study=study)
        print(
            f"recompute: {report.responses} responses, {report.flagged} flagged, {report.calibrated} calibrated, "
            f"{report.icc_units} ICC units x 2 stages"
        )
        for key, values in runs.items():
            print(
                f"  {LABELS[key]:58s} median {statistics.median(values) * 1000:6.0f} ms"
                f"   min {min(values) * 1000:6.0f}   max {max(values) * 1000:6.0f}"
            )
        pcc, icc = (
            table["rows"][0],
            table["rows"][2],
        )  # the headline PCC; the headline ICC after the PCC as released
        print(
            f"Table 6: PCC {pcc['before']:.2f} -> {pcc['after']:.2f}, {table['headline_icc']} {icc['before']:.2f} -> {icc['after']:.2f}"
        )
    finally:
        connection.creation.destroy_test_db(test_db, verbosity=0)


if __name__ == "__main__":
    main()
