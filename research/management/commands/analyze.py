"""python manage.py analyze [--study S] [--conditions A B]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from research.results import fmt
from research.selectors.research import results_filter_problems, results_get
from research.significance import MARK_MODES, MARKS_BOTH, MARKS_PAPER
from studies.management.options import study_from_option


class Command(BaseCommand):
    help = (
        "Print the overall table (mean final score per model, condition and scenario) with a "
        "two-sided Wilcoxon signed-rank test per model: ** p < 0.01 as the paper prints it "
        "(--marks both adds * p < 0.05, our option)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", help="study name or id (default: the only study)")
        parser.add_argument(
            "--conditions",
            nargs=2,
            metavar=("X", "Y"),
            help="the pair of condition letters to test (default: A B)",
        )
        parser.add_argument(
            "--marks",
            choices=MARK_MODES,
            default=MARKS_PAPER,
            help="paper: ** p < 0.01 only, as printed (default); both: also * p < 0.05",
        )

    def handle(self, *args, study=None, conditions=None, marks=MARKS_PAPER, **options):
        chosen = study_from_option(study)
        pair = (conditions[0].upper(), conditions[1].upper()) if conditions else None
        problems = results_filter_problems(study=chosen, pair=pair)
        if problems:
            raise CommandError("; ".join(problems))
        results = results_get(study=chosen, pair=pair, with_diversity=False, marks=marks)
        table = results.overall
        if table is None or not table.rows:
            raise CommandError(f"{chosen.name}: no final scores under two conditions to compare yet")
        if pair and not any(r.condition == pair[0] for r in table.rows):
            raise CommandError(f"no final scores under condition {pair[0]}")
        a, b = table.pair
        out = self.stdout
        out.write(f"Study: {chosen.name}")
        out.write(
            f"Overall score per scenario; Wilcoxon signed-rank test {a} vs {b} per model (two-sided; "
            + ("** p < 0.01, * p < 0.05)" if marks == MARKS_BOTH else "** p < 0.01, as the paper prints)")
        )
        width = max(len(r.model) for r in table.rows) + 2
        header = (
            f"{'Model':<{width}}{'Cond':<6}" + "".join(f"{s:>8}" for s in table.scenarios) + f"{'Avg':>11}"
        )
        out.write(header)
        out.write("-" * len(header))
        for row in table.rows:
            cells = "".join(f"{fmt(v):>8}" for v in row.scores)
            out.write(f"{row.model:<{width}}{row.condition:<6}{cells}{fmt(row.average) + row.mark:>11}")
        out.write("")
        out.write(f"{'Model':<{width}}{'n':>4}{'mean ' + a:>10}{'mean ' + b:>10}{'W':>8}{'p':>10}  mark")
        for t in table.tests:
            p = "" if t.p_value is None else f"{t.p_value:.4f}"
            w = "" if t.statistic is None else fmt(t.statistic, 1)
            line = f"{t.model:<{width}}{t.n:>4}{fmt(t.mean_a):>10}{fmt(t.mean_b):>10}{w:>8}{p:>10}  {t.mark}"
            out.write(line + (f"  ({t.note})" if t.note else ""))
