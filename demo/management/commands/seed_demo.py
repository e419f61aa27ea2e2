from django.core.management.base import BaseCommand, CommandError

from demo.services import DEMO_PASSWORD, DemoModeRequired, demo_seed
from demo.templates_seed import demo_templates_seed


class Command(BaseCommand):
    help = (
        "Create (idempotently) the demo study, scenario FS10, response A05_FS10 and the demo users; and a "
        "single-text (Likert) and a pairwise demo study, assigned to the demo raters."
    )

    def handle(self, *args, **options):
        try:
            report = demo_seed()
            templates = demo_templates_seed()
        except DemoModeRequired as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"Demo study: {report.study.name}"))
        self.stdout.write(f"Responses: {', '.join(report.responses)}")
        self.stdout.write(f"Other templates: {', '.join(templates)}")
        self.stdout.write(f"Demo users (password {DEMO_PASSWORD}): {', '.join(report.users)}")
        self.stdout.write(f"LLM judge on the stub: {report.judge}")
