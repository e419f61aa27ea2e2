from django.urls import path

from generation import views

app_name = "generation"

urlpatterns = [
    path("manage/generation/", views.home, name="home"),
    path("manage/generation/batches/<int:batch_id>/", views.batch_detail, name="batch_detail"),
    path("manage/generation/batches/<int:batch_id>/cancel/", views.batch_cancel_view, name="batch_cancel"),
    path("manage/generation/batches/<int:batch_id>/retry/", views.batch_retry_view, name="batch_retry"),
    path("manage/generation/runs/<int:run_id>/", views.run_detail, name="run_detail"),
    path("manage/generation/studies/<int:study_id>/members/", views.members, name="members"),
    path(
        "manage/generation/studies/<int:study_id>/members/<int:profile_id>/delete/",
        views.member_delete,
        name="member_delete",
    ),
    path("manage/generation/runs/<int:run_id>/cancel/", views.run_cancel_view, name="run_cancel"),
    path("manage/generation/runs/<int:run_id>/retry/", views.run_retry_view, name="run_retry"),
    path(
        "manage/generation/runs/<int:run_id>/turns/<int:seq>/messages/",
        views.turn_messages,
        name="turn_messages",
    ),
]
