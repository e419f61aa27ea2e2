from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class JudgingConfig(AppConfig):
    name = "judging"
    verbose_name = _("LLM judge")

    def ready(self) -> None:
        from judging import receivers  # noqa: F401 - registers its kind with the batch engine
