from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GenerationConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "generation"
    verbose_name = _("Generation")

    def ready(self) -> None:
        # Registers the generation run kind with the LLM batch engine.
        from generation.services import runs  # noqa: F401
