from django.core.management.base import BaseCommand

from studies.services.roles import role_groups_ensure
from studies.services.setup import conditions_ensure_defaults, endpoints_ensure_paper_models


class Command(BaseCommand):
    help = (
        "Create what every installation starts with (idempotent): the role groups, the six "
        "standard conditions (A-F) and the paper's ten model endpoints (no base URL until an "
        "admin sets one)."
    )

    def handle(self, *args, **options):
        groups = role_groups_ensure()
        conditions = conditions_ensure_defaults()
        models = endpoints_ensure_paper_models()
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(groups)} role groups, {len(conditions)} conditions "
                f"({', '.join(c.letter for c in conditions)}), {len(models)} model endpoints."
            )
        )
