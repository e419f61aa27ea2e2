from django.urls import path

from scoring.views import calibration, home

app_name = "scoring"

urlpatterns = [
    path("manage/", home.admin_home, name="admin_home"),
    path("research/", home.research_home, name="research_home"),
    path("scoring/", home.queue, name="queue"),
    # Agreement and calibration
    path("research/agreement/", calibration.agreement_dashboard, name="agreement_dashboard"),
    path(
        "research/agreement/<int:study_id>/scenario/<int:scenario_id>/",
        calibration.agreement_scenario,
        name="agreement_scenario",
    ),
    path(
        "research/agreement/response/<int:response_id>/",
        calibration.agreement_response,
        name="agreement_response",
    ),
    path(
        "research/agreement/response/<int:response_id>/calibrator/",
        calibration.calibration_assign_view,
        name="calibration_assign",
    ),
    path(
        "research/agreement/response/<int:response_id>/reason/",
        calibration.calibration_reason_view,
        name="calibration_reason",
    ),
    path(
        "manage/studies/<int:study_id>/agreement/",
        calibration.study_agreement_settings,
        name="study_agreement_settings",
    ),
    path("calibration/", calibration.my_calibrations, name="my_calibrations"),
    path("calibration/<str:blind_code>/", calibration.calibration_compare, name="calibration_compare"),
]
