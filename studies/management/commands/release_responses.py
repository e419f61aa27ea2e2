"""python manage.py release_responses --study S --as ADMIN (--all | RESEARCH_ID ...) [--withdraw]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from studies.management.options import admin_named, study_from_option
from studies.selectors import responses_held
from studies.services.review import BULK_MAX, ReviewError, responses_release, responses_withdraw


class Command(BaseCommand):
    help = (
        "Release held responses to raters (or withdraw them), as the held responses page does: all or "
        "none, each audited under the admin named by --as, the assignments made once for all."
    )

    def add_arguments(self, parser):
        parser.add_argument("research_ids", nargs="*", help="the held responses (research IDs)")
        parser.add_argument("--study", help="study name or id (default: the only study)")
        parser.add_argument("--as", dest="admin", required=True, help="the admin account acting")
        parser.add_argument("--all", action="store_true", help=f"every held response (at most {BULK_MAX})")
        parser.add_argument("--withdraw", action="store_true", help="withdraw instead of releasing")
        parser.add_argument("--reason", default="", help="the reason of a withdrawal")

    def handle(self, *args, research_ids, study, admin, all, withdraw, reason, **options):
        chosen = study_from_option(study)
        actor = admin_named(admin)
        if bool(research_ids) == bool(all):
            raise CommandError("name the held responses by research ID, or pass --all")
        held = dict(responses_held(study=chosen).values_list("research_id", "pk"))
        unknown = sorted(set(research_ids) - set(held))
        if unknown:
            raise CommandError(f"not held in {chosen.name}: {', '.join(unknown)} (held: {len(held)})")
        ids = list(held.values()) if all else [held[r] for r in research_ids]
        if not ids:
            self.stdout.write(f"{chosen.name}: no held response")
            return
        try:
            if withdraw:
                done = responses_withdraw(response_ids=ids, actor=actor, reason=reason)
                self.stdout.write(f"withdrew {len(done)} response(s) of {chosen.name}")
            else:
                released = responses_release(response_ids=ids, actor=actor)
                assigned = sum(r.assignments for r in released)
                self.stdout.write(
                    f"released {len(released)} response(s) of {chosen.name}; {assigned} assignment(s) made"
                )
        except ReviewError as exc:
            raise CommandError(exc.message) from exc
