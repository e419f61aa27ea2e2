"""Benchmark: releasing every held response of a full-size study in one bulk action (issue 40).

    DATABASE_URL=postgres://.../teamllm_full .venv/bin/python bench/full_study.py --scale 1
    DATABASE_URL=postgres://.../teamllm_full .venv/bin/python bench/bench_bulk.py

Times ``studies.services.review.responses_release`` over all the study's held responses (each
audited, each assigned to its scenario group's pair, as the held responses page does), and the
same for ``responses_withdraw``, each inside a transaction rolled back afterwards, so that the
database is left as it was and the run can be repeated: the median of ``--repeat`` runs of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.local")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402

from studies.models import Study  # noqa: E402
from studies.selectors import HeldFilters, responses_held_matching  # noqa: E402
from studies.services.review import responses_release, responses_withdraw  # noqa: E402


class _RolledBack(Exception):
    pass


def _timed(action, **kwargs) -> float:
    started = time.perf_counter()
    try:
        with transaction.atomic():
            action(**kwargs)
            took = time.perf_counter() - started
            raise _RolledBack
    except _RolledBack:
        return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", type=int, default=0, help="the study's id (default: the newest)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    study = Study.objects.get(pk=args.study) if args.study else Study.objects.order_by("-pk").first()
    admin = get_user_model().objects.get(username="full-admin")
    ids = list(responses_held_matching(filters=HeldFilters(study=study)).values_list("pk", flat=True))
    release = statistics.median(
        _timed(responses_release, response_ids=ids, actor=admin) for _ in range(args.repeat)
    )
    withdraw = statistics.median(
        _timed(responses_withdraw, response_ids=ids, actor=admin, reason="bench") for _ in range(args.repeat)
    )
    print(
        f"{study.name}: {len(ids)} held; median of {args.repeat}: release all {release:.2f} s, "
        f"withdraw all {withdraw:.2f} s"
    )


if __name__ == "__main__":
    main()
