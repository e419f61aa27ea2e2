"""Let one LLM judge count as a study's third (calibrating) rater, or stop it: the study's opt-in."""

from django.core.management.base import BaseCommand, CommandError

from judging.models import Judge
from judging.services.opt_in import OptInRefused, study_judge_opt_in_set
from studies.management.options import study_from_option


class Command(BaseCommand):
    help = (
        "Let the judge calibrate the study's responses under the threshold that have no submitted "
        "human calibration sheet (--off: judges never count), then recompute the final scores."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", required=True, help="study name")
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--judge", help="judge name")
        group.add_argument("--off", action="store_true", help="no judge counts (the default)")

    def handle(self, *args, study, judge=None, off=False, **options):
        found = study_from_option(study)
        chosen = None
        if not off:
            chosen = Judge.objects.filter(name=judge).first()
            if chosen is None:
                raise CommandError(f"No judge named {judge!r}.")
        try:
            report = study_judge_opt_in_set(study=found, judge=chosen)
        except OptInRefused as exc:
            raise CommandError(str(exc)) from None
        who = f"judge {chosen.name} counts as third rater" if chosen else "no judge counts"
        self.stdout.write(
            f"{found.name}: {who}; {report.flagged} responses under the threshold, "
            f"{report.calibrated} calibrated, {len(report.routed)} routed to a human calibrator."
        )
