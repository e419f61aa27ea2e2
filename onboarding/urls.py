from django.urls import path

from onboarding import views

app_name = "onboarding"

urlpatterns = [
    path("manage/studies/<id:study_id>/invite/", views.invite_page, name="invite"),
    path("manage/invitations/<id:invitation_id>/renew/", views.invitation_renew_view, name="renew"),
    path("manage/studies/<id:study_id>/invitations/renew/", views.invitations_renew_view, name="renew_many"),
    path("manage/accounts/", views.accounts_page, name="accounts"),
    path("manage/accounts/<id:user_id>/", views.account_page, name="account"),
    path("manage/accounts/<id:user_id>/active/", views.account_active_view, name="account_active"),
    path("manage/accounts/<id:user_id>/unlock/", views.account_unlock_view, name="account_unlock"),
    path("manage/accounts/<id:user_id>/link/", views.account_link_view, name="account_link"),
    # public: the invitee has no password yet (teamllm_web.middleware.PUBLIC_PREFIXES)
    path("accounts/invite/<uidb64>/set-password/", views.set_password_page, name="set_password"),
    path("accounts/invite/<uidb64>/<token>/", views.invitation_link, name="link"),
]
