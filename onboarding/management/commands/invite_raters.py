import sys
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.core.mail import get_connection
from django.core.management.base import CommandParser
from django.urls import reverse

from onboarding.csv_files import InviteFileError
from onboarding.services import raters_invite_file
from studies.management.options import StudyFileCommand, study_from_option


class Command(StudyFileCommand):
    help = (
        "Invite people from a CSV (username, name, email, language, roles, optional rater_code), "
        "all-or-nothing, and print one set-password link per invitee: username<TAB>link. "
        "Mails go through the configured backend; a backend that does not deliver (the console "
        "backend) sends nothing outside demo mode: pass the links on yourself."
    )
    study_required = True

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--base-url",
            default="",
            help="Public address of the site for the links (default: SITE_URL).",
        )
        parser.add_argument("--no-email", action="store_true", help="Only print the links.")

    def handle(self, *args, file, study, base_url, no_email, **options):
        study_obj = study_from_option(study)
        base = (base_url or settings.SITE_URL).rstrip("/") + "/"
        if urlsplit(base).hostname in ("127.0.0.1", "localhost", "::1"):
            self.stderr.write(
                f"The links point at {base}: only this machine can open them. "
                "Pass --base-url https://your.site/ or set SITE_URL (docs/operators.md)."
            )
        content = self.file_bytes(file)

        def link_for(uidb64: str, token: str) -> str:
            return urljoin(base, reverse("onboarding:link", args=[uidb64, token]).lstrip("/"))

        # stdout carries only the links; a console mail backend writes to stderr instead
        connection = None if no_email else get_connection(stream=sys.stderr)
        try:
            links = raters_invite_file(
                study=study_obj,
                content=content,
                actor=None,
                link_for=link_for,
                connection=connection,
                email=not no_email,
            )
        except InviteFileError as exc:
            raise self.problems_error("Nobody invited", exc.problems) from exc
        for link in links:
            self.stdout.write(f"{link.username}\t{link.link}")
        not_sent = [link.username for link in links if not link.emailed]
        if not_sent and not no_email:
            self.stderr.write(f"Not emailed (pass these links on yourself): {', '.join(not_sent)}")
