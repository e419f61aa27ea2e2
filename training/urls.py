from django.urls import path

from training.views import drift, manage, rater, rubric

app_name = "training"

urlpatterns = [
    path("training/", rater.training_home, name="home"),
    path("training/study/<id:study_id>/start/", rater.training_start, name="start"),
    path("training/<str:blind_code>/", rater.training_sheet, name="sheet"),
    path("training/<str:blind_code>/save/", rater.training_save, name="save"),
    path("training/<str:blind_code>/submit/", rater.training_submit, name="submit"),
    path("training/<str:blind_code>/time/", rater.training_time, name="time"),
    path("training/<str:blind_code>/feedback/", rater.training_feedback, name="feedback"),
    path("training/<str:blind_code>/again/", rater.training_again, name="again"),
    path("manage/training/", manage.training_manage, name="manage"),
    path("manage/training/gold/", manage.training_gold_add, name="gold_add"),
    path("manage/training/default/", manage.training_default_add, name="default_add"),
    path("manage/training/settings/", manage.training_settings, name="settings"),
    path("manage/training/override/", manage.training_override, name="override"),
    path("manage/training/retest/", manage.training_retest, name="retest"),
    path("manage/training/rubric/", rubric.training_rubric, name="rubric"),
    path("manage/training/rubric/import/", rubric.training_rubric_import, name="rubric_import"),
    path("manage/training/rubric/use/", rubric.training_rubric_use, name="rubric_use"),
    path("manage/training/rubric/preview/", rubric.training_rubric_preview, name="rubric_preview"),
    path("research/drift/", drift.drift_page, name="drift"),
]
