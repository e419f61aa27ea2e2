from django.apps import AppConfig
from django.urls import register_converter
from django.utils.translation import gettext_lazy as _

from core.url_ids import IdConverter


class CoreConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "core"
    verbose_name = _("Infrastructure")

    def ready(self) -> None:
        # before any URLconf is read: every app's URLs name their ids with <id:...>
        register_converter(IdConverter, "id")
        # the receivers that keep the cached roles true
        from core import receivers  # noqa: F401
