from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TrainingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "training"
    verbose_name = _("Rater training and drift")

    def ready(self) -> None:
        # signal receivers, the rubric versions' source and scoring's live-work gate
        from training import receivers  # noqa: F401
