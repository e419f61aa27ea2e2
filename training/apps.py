from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TrainingConfig(AppConfig):
    name = "training"
    verbose_name = _("Rater training and drift")

    def ready(self) -> None:
        from training import receivers  # noqa: F401  (signal receivers, the rubric versions' source)
