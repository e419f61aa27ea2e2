"""A full-size study, made through the product's services, for the scale benchmarks and for trying
the admin pages at the paper's size (issue 40).

    DATABASE_URL=postgres://.../teamllm_full .venv/bin/python bench/full_study.py --scale 1

``--scale 1`` is the paper's study: 10 scenarios x the paper's 10 models x the 6 standard
conditions = 600 responses, and 20 raters in pairs (1,200 sheets once released); ``--scale 10``
is ten times that (100 scenarios, 6,000 responses, 200 raters). The responses arrive as generated
ones do, so the study's "responses need release" setting holds them all: the held responses page
then has the whole study to release. Every scenario group (scenario x condition) gets a pair by
the assignment plan. Run on a fresh, migrated database of its own; prints what it made and the
logins (admin ``full-admin``, raters ``full-r001``...; password ``full-pass-2026``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.local")

import django  # noqa: E402

from bench.seed_data import release_answers  # noqa: E402

django.setup()

from core.accounts.roles import ADMIN, RATER  # noqa: E402
from demo.services import user_create_with_role  # noqa: E402
from scoring.services.assignments import plan_apply, plan_for_study  # noqa: E402
from studies.models import Study  # noqa: E402
from studies.scenario_files import ScenarioRecord  # noqa: E402
from studies.services.responses import response_create  # noqa: E402
from studies.services.scenarios import scenarios_import  # noqa: E402
from studies.services.setup import conditions_ensure_defaults, endpoints_ensure_paper_models  # noqa: E402
from studies.services.studies import study_create  # noqa: E402

PASSWORD = "full-pass-2026"


def full_study_create(*, scale: int, name: str, raters: int = 0) -> Study:
    admin = user_create_with_role(username="full-admin", password=PASSWORD, role=ADMIN)
    study = study_create(name=name, template="empty", actor=admin)
    width = 3 if scale >= 10 else 2
    records = [
        ScenarioRecord(
            where=f"row {n}",
            code=f"FS{n:0{width}d}",
            theme=f"Future {n}",
            text=f"Scenario {n}. " + "x" * 3000,
        )
        for n in range(1, 10 * scale + 1)
    ]
    scenarios_import(study=study, records=records, actor=admin)
    scenarios = list(study.scenarios.order_by("code"))
    models, conditions = endpoints_ensure_paper_models(), conditions_ensure_defaults()
    answers = release_answers()
    for scenario in scenarios:
        for condition in conditions:
            for model in models:
                response_create(
                    study=study,
                    scenario=scenario,
                    model=model,
                    condition=condition,
                    answers=answers,
                    source="generated",
                )
    raters = [
        user_create_with_role(
            username=f"full-r{n:03d}", password=PASSWORD, role=RATER, rater_code=f"F{n:03d}"
        )
        for n in range(1, (raters or 20 * scale) + 1)
    ]
    plan = plan_for_study(study=study, scenarios=scenarios, conditions=conditions, raters=raters)
    plan_apply(study=study, plan=plan.groups, actor=admin)
    return study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--name", default="")
    parser.add_argument(
        "--raters",
        type=int,
        default=0,
        help="raters in pairs (default 20 per scale): 6 at 1x give each 200 sheets",
    )
    args = parser.parse_args()
    from django.conf import settings

    if not settings.DEMO_MODE:  # its accounts' password is in this file: never on a deployment
        sys.exit("full_study.py makes accounts with a published password: run it with DEMO_MODE on only.")
    started = time.perf_counter()
    study = full_study_create(
        scale=args.scale, name=args.name or f"Full study x{args.scale}", raters=args.raters
    )
    took = time.perf_counter() - started
    print(
        f"study {study.pk} {study.name!r}: {study.responses.count()} responses "
        f"({study.responses.filter(held=True).count()} held), {args.raters or 20 * args.scale} raters, in {took:.0f} s"
    )
    print(f"logins: full-admin / {PASSWORD}; raters full-r001... / {PASSWORD}")


if __name__ == "__main__":
    main()
