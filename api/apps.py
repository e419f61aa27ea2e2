from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = _("HTTP API")

    def ready(self) -> None:
        from api import receivers  # noqa: F401 - connects the signal receivers
