from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class JudgingConfig(AppConfig):
    name = "judging"
    verbose_name = _("LLM judge")

    def ready(self) -> None:
        # Registers the judge task kind with the LLM batch engine (generation's).
        from judging.services import runs  # noqa: F401
