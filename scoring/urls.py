from django.urls import path

from scoring.views import calibration, home, research, workbooks

app_name = "scoring"

urlpatterns = [
    path("manage/", home.admin_home, name="admin_home"),
    path("research/", research.research_home, name="research_home"),
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
    # research output: figures, exports (admins and researchers)
    path("research/figures/<str:name>.<str:fmt_name>", research.research_figure, name="research_figure"),
    path("research/exports/", research.export_start, name="export_start"),
    path("research/exports/<int:pk>/", research.export_status, name="export_status"),
    path("research/exports/<int:pk>/download", research.export_download, name="export_download"),
    # offline scoring workbooks
    path("scoring/workbooks/", workbooks.rater_workbooks, name="rater_workbooks"),
    path(
        "scoring/workbooks/<str:key>/download",
        workbooks.rater_workbook_download,
        name="rater_workbook_download",
    ),
    path("manage/workbooks/", workbooks.admin_workbooks, name="admin_workbooks"),
    path(
        "manage/workbooks/<int:rater_id>/<int:group_id>/download",
        workbooks.admin_workbook_download,
        name="admin_workbook_download",
    ),
]
