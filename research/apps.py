from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ResearchConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "research"
    verbose_name = _("Research")

    def ready(self) -> None:
        from research import receivers  # noqa: F401 - connects the signal receivers
