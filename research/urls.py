from django.urls import path

from research import views, views_judge, views_plan

app_name = "research"

urlpatterns = [
    path("research/", views.research_home, name="research_home"),
    path("research/judge/", views_judge.research_judge, name="research_judge"),
    path("research/judge/opt-in", views_judge.research_judge_opt_in, name="research_judge_opt_in"),
    path("research/judge/qualify", views_judge.research_judge_qualify, name="research_judge_qualify"),
    path("research/judge/plan/", views_plan.research_judge_plan, name="research_judge_plan"),
    path(
        "research/judge/calibration.<str:fmt_name>",
        views_judge.research_judge_calibration_figure,
        name="research_judge_calibration_figure",
    ),
    path("research/figures/<str:name>.<str:fmt_name>", views.research_figure, name="research_figure"),
    path("research/exports/", views.export_start, name="export_start"),
    path("research/exports/<id:pk>/", views.export_status, name="export_status"),
    path("research/exports/<id:pk>/download", views.export_download, name="export_download"),
]
