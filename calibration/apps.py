from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CalibrationConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "calibration"
    verbose_name = _("Calibration")

    def ready(self) -> None:
        from calibration import receivers  # noqa: F401 - connects the signal receivers
