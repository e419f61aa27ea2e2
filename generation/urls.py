from django.urls import path

from generation import views

app_name = "generation"

urlpatterns = [
    path("manage/endpoints/", views.endpoints, name="endpoints"),
    path("manage/endpoints/new/", views.endpoint_new, name="endpoint_new"),
    path("manage/endpoints/<id:endpoint_id>/", views.endpoint_edit, name="endpoint"),
    path("manage/endpoints/<id:endpoint_id>/active/", views.endpoint_active, name="endpoint_active"),
    path("manage/endpoints/<id:endpoint_id>/delete/", views.endpoint_delete_view, name="endpoint_delete"),
    path("manage/endpoints/<id:endpoint_id>/test/", views.endpoint_test, name="endpoint_test"),
    path("manage/conditions/", views.conditions, name="conditions"),
    path("manage/conditions/new/", views.condition_new, name="condition_new"),
    path("manage/conditions/<id:condition_id>/", views.condition_edit, name="condition"),
    path("manage/generation/", views.home, name="home"),
    path("manage/generation/batches/<id:batch_id>/", views.batch_detail, name="batch_detail"),
    path("manage/generation/batches/<id:batch_id>/cancel/", views.batch_cancel_view, name="batch_cancel"),
    path("manage/generation/batches/<id:batch_id>/retry/", views.batch_retry_view, name="batch_retry"),
    path("manage/generation/runs/<id:run_id>/", views.run_detail, name="run_detail"),
    path("manage/generation/studies/<id:study_id>/members/", views.members, name="members"),
    path(
        "manage/generation/studies/<id:study_id>/members/<id:profile_id>/delete/",
        views.member_delete,
        name="member_delete",
    ),
    path("manage/generation/runs/<id:run_id>/cancel/", views.run_cancel_view, name="run_cancel"),
    path("manage/generation/runs/<id:run_id>/retry/", views.run_retry_view, name="run_retry"),
    path(
        "manage/generation/runs/<id:run_id>/turns/<id:seq>/messages/",
        views.turn_messages,
        name="turn_messages",
    ),
]
