from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from api.urls import api_urls
from onboarding.forms import AuditedPasswordChangeForm

from . import views
from .auth import LoginForm

handler400 = views.bad_request
handler500 = views.server_error

urlpatterns = [
    path("", views.home, name="home"),
    path("no-role/", views.no_role, name="no_role"),
    path("healthz", views.healthz, name="healthz"),
    path("status/", views.status, name="status"),
    path("metrics", views.metrics, name="metrics"),
    path("i18n/setlang/", views.set_language, name="set_language"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True, authentication_form=LoginForm),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/csrf/", views.csrf_token, name="csrf_token"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(form_class=AuditedPasswordChangeForm),
        name="password_change",
    ),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("admin/", admin.site.urls),
    path("", include("studies.urls")),
    path("", include("onboarding.urls")),
    path("", include("scoring.urls")),
    path("", include("calibration.urls")),
    path("", include("research.urls")),
    path("", include("generation.urls")),
    path("", include("judging.urls")),
    path("", include("training.urls")),
    path("", include("api.urls")),
    *api_urls,
]
