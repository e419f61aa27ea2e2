"""Test-retest probes of a study (beyond the study): serve the due ones, then print each rater's
intra-rater ICC(3,1), mean PCC between the two sheets, overall change and drift alarm."""

from django.core.management.base import BaseCommand

from studies.management.options import study_from_option
from training.selectors.retest import retest_report
from training.services.retest import retest_probes_serve


def _num(value, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


class Command(BaseCommand):
    help = (
        "Test-retest probes (beyond the study): --serve serves the due probes first (as the workers do "
        "hourly); then per rater the probes served and scored, intra-rater ICC(3,1) with its 95% CI, "
        "mean PCC of the two sheets, mean change of the overall score, and the drift alarm."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", help="Study name (default: the only study).")
        parser.add_argument("--serve", action="store_true", help="Serve the probes that are due first.")

    def handle(self, *args, study, serve, **options):
        study_obj = study_from_option(study)
        out = self.stdout.write
        if serve:
            out(f"Served {retest_probes_serve(study_id=study_obj.pk)} probes.")
        report = retest_report(study=study_obj)
        settings = report["settings"]
        out(f"Study {study_obj.name}: probes {settings['percent']}% after {settings['after_days']} days, "
            f"alarm below ICC(3,1) {settings['alarm_below']:.2f}")  # fmt: skip
        out("rater\tprobes\tscored\tICC(3,1)\t95% CI\tmean PCC\toverall change\talarm")
        for r in report["raters"]:
            interval = "—" if r["icc_low"] is None else f"{r['icc_low']:.2f} – {r['icc_high']:.2f}"
            out("\t".join([r["rater"], str(r["served"]), str(r["scored"]), _num(r["icc"]), interval,
                           _num(r["mean_pcc"]), _num(r["mean_change"], 1), "ALARM" if r["alarm"] else ""]))  # fmt: skip
