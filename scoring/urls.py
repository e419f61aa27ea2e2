from django.urls import path

from scoring.views import assignments, flags, home, workbooks, workspace

app_name = "scoring"

urlpatterns = [
    path("manage/", home.admin_home, name="admin_home"),
    path("scoring/", home.queue, name="queue"),
    # offline scoring workbooks
    path("scoring/workbooks/", workbooks.rater_workbooks, name="rater_workbooks"),
    path(
        "scoring/workbooks/<str:key>/download",
        workbooks.rater_workbook_download,
        name="rater_workbook_download",
    ),
    path("manage/workbooks/", workbooks.admin_workbooks, name="admin_workbooks"),
    path(
        "manage/workbooks/<id:rater_id>/<id:group_id>/download",
        workbooks.admin_workbook_download,
        name="admin_workbook_download",
    ),
    # rater workspace (by blind code; only the rater's own assignments)
    path("scoring/<str:blind_code>/", workspace.sheet_page, name="sheet"),
    path("scoring/<str:blind_code>/save/", workspace.sheet_save, name="sheet_save"),
    path("scoring/<str:blind_code>/submit/", workspace.sheet_submit_view, name="sheet_submit"),
    path("scoring/<str:blind_code>/time/", workspace.sheet_active_time, name="sheet_time"),
    path("scoring/<str:blind_code>/flag/", flags.response_flag, name="response_flag"),
    path("manage/flags/", flags.flags_page, name="flags"),
    # assignment administration
    path("manage/assignments/", assignments.assignments_page, name="assignments"),
    path("manage/assignments/auto/", assignments.auto_assign, name="auto_assign"),
    path("manage/assignments/auto/apply/", assignments.auto_assign_apply, name="auto_assign_apply"),
    path("manage/assignments/sync/", assignments.sync_assignments, name="sync_assignments"),
    path("manage/assignments/groups/<id:group_id>/", assignments.group_page, name="group"),
    path(
        "manage/assignments/<id:assignment_id>/archive/",
        assignments.assignment_archive_view,
        name="assignment_archive",
    ),
    path("manage/workload/", assignments.workload, name="workload"),
    path("manage/sheets/<id:sheet_id>/", assignments.sheet_admin, name="sheet_admin"),
]
