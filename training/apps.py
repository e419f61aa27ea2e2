from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TrainingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "training"
    verbose_name = _("Rater training and drift")

    def ready(self) -> None:
        from scoring.gates import live_work_gate_set
        from training import receivers  # noqa: F401  (signal receivers, the rubric versions' source)
        from training.selectors.qualification import TrainingGate

        live_work_gate_set(TrainingGate())
