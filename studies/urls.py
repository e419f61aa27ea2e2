from django.urls import path

from studies import views, views_held

app_name = "studies"

urlpatterns = [
    path("manage/studies/", views.studies_page, name="studies"),
    path("manage/studies/<id:study_id>/", views.study_page, name="study"),
    path("manage/studies/<id:study_id>/settings/", views.study_settings_page, name="study_settings"),
    path("manage/studies/<id:study_id>/catalogue/", views.study_catalogue_page, name="study_catalogue"),
    path("manage/studies/<id:study_id>/pairs/", views.study_pairs_build, name="pairs_build"),
    path(
        "manage/studies/<id:study_id>/scenarios/import/",
        views.scenarios_import_page,
        name="scenarios_import",
    ),
    path(
        "manage/studies/<id:study_id>/responses/import/",
        views.responses_import_page,
        name="responses_import",
    ),
    path(
        "manage/studies/<id:study_id>/responses/import/<id:job_id>/",
        views.responses_import_job_page,
        name="responses_import_job",
    ),
    path("manage/responses/held/", views_held.held_responses_page, name="held_responses"),
    path("manage/responses/held/bulk/", views_held.held_responses_bulk, name="held_responses_bulk"),
    path(
        "manage/responses/<id:response_id>/release/",
        views_held.response_release_view,
        name="response_release",
    ),
    path(
        "manage/responses/<id:response_id>/redact/",
        views_held.response_redact_view,
        name="response_redact",
    ),
    path(
        "manage/responses/<id:response_id>/withdraw/",
        views_held.response_withdraw_view,
        name="response_withdraw",
    ),
]
