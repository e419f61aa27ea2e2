from django.urls import path

from research import views

app_name = "research"

urlpatterns = [
    path("research/", views.research_home, name="research_home"),
    path("research/judge/", views.research_judge, name="research_judge"),
    path("research/judge/opt-in", views.research_judge_opt_in, name="research_judge_opt_in"),
    path("research/figures/<str:name>.<str:fmt_name>", views.research_figure, name="research_figure"),
    path("research/exports/", views.export_start, name="export_start"),
    path("research/exports/<int:pk>/", views.export_status, name="export_status"),
    path("research/exports/<int:pk>/download", views.export_download, name="export_download"),
]
