from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "core"
    verbose_name = _("Infrastructure")

    def ready(self) -> None:
        # the receivers that keep the cached roles true
        from core import receivers  # noqa: F401
