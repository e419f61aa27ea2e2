from django.urls import path

from calibration import views

app_name = "calibration"

urlpatterns = [
    path("research/agreement/", views.agreement_dashboard, name="agreement_dashboard"),
    path(
        "research/agreement/<id:study_id>/scenario/<id:scenario_id>/",
        views.agreement_scenario,
        name="agreement_scenario",
    ),
    path(
        "research/agreement/response/<id:response_id>/", views.agreement_response, name="agreement_response"
    ),
    path(
        "research/agreement/response/<id:response_id>/calibrator/",
        views.calibration_assign_view,
        name="calibration_assign",
    ),
    path(
        "research/agreement/response/<id:response_id>/reason/",
        views.calibration_reason_view,
        name="calibration_reason",
    ),
    path(
        "manage/studies/<id:study_id>/agreement/",
        views.study_agreement_settings,
        name="study_agreement_settings",
    ),
    path("manage/studies/<id:study_id>/responses/", views.study_responses, name="study_responses"),
    path("manage/studies/<id:study_id>/scores/import/", views.scores_import_page, name="scores_import"),
    path("calibration/", views.my_calibrations, name="my_calibrations"),
    path("calibration/<str:blind_code>/", views.calibration_compare, name="calibration_compare"),
]
