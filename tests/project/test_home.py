"""Login, landing page per role, and what anonymous users can reach."""

import pytest


@pytest.mark.django_db
@pytest.mark.parametrize(
    "username,landing",
    [
        ("admin", "/manage/"),
        ("rater1", "/scoring/"),
        ("rater2", "/scoring/"),
        ("calibrator", "/scoring/"),
        ("researcher", "/research/"),
    ],
)
def test_home_sends_each_demo_user_to_their_landing_page(client, demo, username, landing):
    response = client.post(
        "/accounts/login/", {"username": username, "password": "demo-pass-2026"}, follow=True
    )
    assert response.redirect_chain[-1][0] == landing
    assert response.status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/", "/manage/", "/research/", "/scoring/", "/accounts/password/", "/admin/", "/admin/login/"]
)
def test_anonymous_users_are_sent_to_login(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
def test_login_page_is_public(client):
    assert client.get("/accounts/login/").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "username,path",
    [
        ("rater1", "/manage/"),
        ("rater1", "/research/"),
        ("researcher", "/manage/"),
        ("researcher", "/scoring/"),
    ],
)
def test_home_pages_are_role_protected(client, demo, username, path):
    client.login(username=username, password="demo-pass-2026")
    assert client.get(path).status_code == 403


@pytest.mark.django_db
def test_wrong_password_is_refused(client, demo):
    response = client.post("/accounts/login/", {"username": "rater1", "password": "nope"})
    assert response.status_code == 200
    assert b"didn" in response.content


@pytest.mark.django_db
def test_language_choice_is_remembered_on_the_profile(client, demo):
    from scoring.models import RaterProfile

    client.login(username="rater1", password="demo-pass-2026")
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/scoring/"})
    assert RaterProfile.objects.get(user__username="rater1").language == "zh-hans"
    client.cookies.clear()
    client.login(username="rater1", password="demo-pass-2026")
    assert client.get("/scoring/")["Content-Language"] == "zh-hans"
