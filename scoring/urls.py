from django.urls import path

from scoring.views import home

app_name = "scoring"

urlpatterns = [
    path("manage/", home.admin_home, name="admin_home"),
    path("research/", home.research_home, name="research_home"),
    path("scoring/", home.queue, name="queue"),
]
