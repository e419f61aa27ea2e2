"""What the benchmarks' seeds share: the release's own answers, as a response's six steps."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def release_answers() -> list[str]:
    """The six steps of the release's A05_FS10 (``studies/data/data_A.json``), as answers."""
    data_a = json.loads((ROOT / "studies" / "data" / "data_A.json").read_text(encoding="utf-8"))
    texts = []
    for step in (data_a[0][3][f"Step-{n}"] for n in range(1, 7)):
        if isinstance(step, list):
            texts.append("\n".join(str(i.get("Content", "")) for i in step if "Content" in i))
        else:
            texts.append(str(step.get("Content", "")))
    return texts


def statistics_refresh() -> None:
    """PostgreSQL's table statistics, as autovacuum keeps them on a deployment (it is off on this
    machine's server): a study just made in bulk has none, and the planner then joins its 12,000
    assignments by nested loops (the 10x workbook list: 430 ms of query instead of 15)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
