"""Data for the load test (bench/load_test.py): raters, responses and assignments.

    DATABASE_URL=postgres://.../teamllm_load .venv/bin/python bench/load_seed.py --raters 50 --responses 12

Run it on a fresh, migrated database of its own (the README's commands create it).
Creates the Rater role, ``--raters`` users ``load-r01``..``load-rNN`` (password
``load-pass-2026``), one study with ``--responses`` responses of one scenario (the
answers of A05_FS10 in the study's data), each assigned to every rater. Idempotent.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.local")

import django  # noqa: E402

from bench.seed_data import release_answers  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402

from core.accounts.roles import RATER  # noqa: E402
from scoring.models import Assignment, RaterProfile  # noqa: E402
from studies.models import Scenario, Study  # noqa: E402
from studies.services.responses import response_create  # noqa: E402
from studies.services.roles import role_groups_ensure  # noqa: E402
from studies.services.setup import conditions_ensure_defaults, endpoints_ensure_paper_models  # noqa: E402

PASSWORD = "load-pass-2026"


@transaction.atomic
def seed(*, raters: int, responses: int) -> None:
    conditions = conditions_ensure_defaults()
    models = endpoints_ensure_paper_models()
    group = role_groups_ensure()[RATER]
    study, _ = Study.objects.get_or_create(name="load")
    scenario, _ = Scenario.objects.get_or_create(
        study=study, code="FS10", defaults={"theme": "Load", "text": "x" * 3000}
    )
    have = list(study.responses.order_by("id"))
    answers = release_answers()
    while len(have) < responses:  # research IDs are condition x model: at most 60 responses
        n = len(have)
        have.append(
            response_create(
                study=study, scenario=scenario, model=models[n % len(models)],
                condition=conditions[n // len(models)], answers=answers, source="imported",
            )
        )  # fmt: skip
    users = get_user_model().objects
    for n in range(1, raters + 1):
        user, created = users.get_or_create(username=f"load-r{n:02d}")
        if created:
            user.set_password(PASSWORD)
            user.save(update_fields=["password"])
            user.groups.add(group)
            RaterProfile.objects.get_or_create(user=user, defaults={"rater_code": f"L{n:02d}"})
        for response in have[:responses]:
            Assignment.objects.get_or_create(rater=user, response=response, archived_at=None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raters", type=int, default=50)
    parser.add_argument("--responses", type=int, default=12)
    args = parser.parse_args()
    seed(raters=args.raters, responses=args.responses)
    print(f"{args.raters} raters x {args.responses} responses")


if __name__ == "__main__":
    main()
