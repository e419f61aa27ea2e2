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
