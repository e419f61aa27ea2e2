from django.urls import path

from judging import views

app_name = "judging"

urlpatterns = [
    path("manage/judges/", views.home, name="home"),
    path("manage/judges/<id:judge_id>/edit/", views.judge_edit, name="judge_edit"),
    path("manage/judges/batches/<id:batch_id>/", views.batch_detail, name="batch_detail"),
    path("manage/judges/batches/<id:batch_id>/cancel/", views.batch_cancel_view, name="batch_cancel"),
    path("manage/judges/batches/<id:batch_id>/retry/", views.batch_retry_view, name="batch_retry"),
]
