from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GenerationConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "generation"
    verbose_name = _("Generation")

    def ready(self) -> None:
        from generation import receivers  # noqa: F401 - registers its kind with the batch engine
