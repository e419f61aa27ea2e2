"""Benchmark: the blind-text check (``studies.blind_text``) on hostile texts, pure (no database).

The catalogue: every maker, the strategies' roles in Chinese, fourteen English roles, eight models, two
strategies, two conditions and a scenario code (112 terms). Prints the time to compile its patterns
(once per process and catalogue) and to check one step of about ``--megabytes`` of each hostile text:
the catalogue's own terms joined with self-naming phrases (hostile pass 9), a repeated role word in
prose, an open tag of a role never closed, "my ", a maker, an abbreviated label and traditional Chinese
repeated; the first again with a role glued
to an agent's word in each line ("ModeratorBot:"), which makes the check read the whole text twice.

Run: ``.venv/bin/python bench/bench_blind_text.py [--megabytes 1]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.test")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=1.0)
    args = parser.parse_args()
    import django

    django.setup()
    from generation.strategies import ROLE_NAMES_ZH
    from studies.blind_text import BlindTerm, blind_terms_found
    from studies.selectors import _MAKERS

    roles = ("Plant", "Implementer", "Monitor Evaluator", "Debater A", "Moderator", "Futurist", "Environmentalist",
             "Co-Ordinator", "Shaper", "Specialist", "Teamworker", "Completer Finisher", "Resource Investigator",
             "Synthesizer")  # fmt: skip
    terms = (
        [BlindTerm(m, "maker") for m in _MAKERS]
        + [BlindTerm(n, "role") for names in ROLE_NAMES_ZH.values() for n in names]
        + [BlindTerm(r, "role") for r in roles]
        + [
            BlindTerm(m, "model")
            for m in ("Claude", "Gemini", "Kimi", "gpt-4o", "stub", "qwen", "DeepSeek", "ChatGPT")
        ]
        + [BlindTerm("TeamLLM", "strategy"), BlindTerm("LLM Discussion", "strategy")]
        + [
            BlindTerm("single", "condition"),
            BlindTerm("Single model", "condition"),
            BlindTerm("FS10", "research_id"),
        ]
    )
    started = time.perf_counter()
    blind_terms_found(["As the Plant, I agree."], terms)
    print(f"{len(terms)} terms: compiled and a short text checked in {time.perf_counter() - started:.2f} s")
    catalogue = " ".join(t.text for t in terms) + " as the plant, our moderator said; 我是执行者。\n"
    size = int(args.megabytes * 1_000_000)
    glued = catalogue.replace("\n", " ModeratorBot:\n")  # read twice: a role glued to an agent's word
    # abbreviations as labels ("ME:") and traditional Chinese (each character looked up in OpenCC's table)
    hostile = (
        "the plant ",
        "[a·Plant·",
        "[Futurist] ",
        "my ",
        "Google ",
        "Evaluation (ME): ",
        "作為執行者，我認為",
    )
    for unit in (catalogue, glued, *hostile):
        text = unit * (size // len(unit))
        started = time.perf_counter()
        found = blind_terms_found([text], terms)
        took = time.perf_counter() - started
        print(f"{unit[:24]!r:28} {len(text) / 1e6:.2f} MB: {took:.2f} s, {len(found.get(1, []))} terms named")


if __name__ == "__main__":
    main()
