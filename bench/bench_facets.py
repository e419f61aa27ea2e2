"""Benchmark: the G-study (REML), rater severity and reliability by rubric part of a simulated study,
pure (no database).

Systems x scenarios responses, each scored by 2 of 30 raters (23 dimensions for the severity
model; the parts on dimension scores 0-4, normalised). Prints the time of ``g_study``,
``rater_severity`` and ``parts_reliability`` (29 ICCs and alphas with 1000-draw bootstraps) and the
process's peak memory.

Run: ``.venv/bin/python bench/bench_facets.py [--systems 60 --scenarios 10]`` (600 responses; 300 x 20:
the 6,000 of a study ten times the paper's)
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.dimensions import parts_reliability  # noqa: E402
from calibration.generalizability import g_study  # noqa: E402
from calibration.severity import rater_severity  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=60)
    parser.add_argument("--scenarios", type=int, default=10)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    system, scenario = rng.normal(scale=0.3, size=args.systems), rng.normal(scale=0.2, size=args.scenarios)
    rater = rng.normal(scale=0.1, size=30)
    g_rows, s_rows, part_rows = [], [], []
    for c in range(args.systems):
        for s in range(args.scenarios):
            response, level = f"{c}-{s}", 0.6 + system[c] + scenario[s] + rng.normal(scale=0.15)
            for slot, r in zip("ab", rng.choice(30, 2, replace=False), strict=True):
                dims = level + rater[r] + rng.normal(scale=0.12, size=23)
                g_rows.append((c, s, response, int(r), float(dims.mean())))
                s_rows += [(response, int(r), d, float(v)) for d, v in enumerate(dims)]
                points = np.clip(np.rint(dims * 4), 0, 4) / 4
                part_rows += [(response, slot, f"d{d}", float(v)) for d, v in enumerate(points)]
    start = time.perf_counter()
    g = g_study(g_rows)
    middle = time.perf_counter()
    rater_severity(s_rows)
    end = time.perf_counter()
    parts_reliability(part_rows, steps={f"d{d}": 1 + d // 4 for d in range(23)}, form="ICC3k")
    parts = time.perf_counter() - end
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"{args.systems * args.scenarios} responses: g_study {middle - start:.2f} s, "
          f"rater_severity {end - middle:.2f} s, parts_reliability {parts:.2f} s, peak {peak} MB; "
          f"components {g.components}")  # fmt: skip


if __name__ == "__main__":
    main()
