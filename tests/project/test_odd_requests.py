"""Odd requests a hostile user tried (issue 36) answer 4xx, never a 500 or a page: a NUL (%00) in
a URL's path or query (PostgreSQL refuses NUL in a text lookup), a form sent where a JSON body is
read, methods other than GET and POST on a page, a NUL in a header, a form posted to an address
without its closing slash."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from api.services.tokens import token_create
from studies.models import Study

PAGES = {
    "rater1": [
        ("get", "/scoring/%00/"),
        ("post", "/scoring/%00/save/"),
        ("post", "/scoring/%00/submit/"),
        ("post", "/scoring/%00/time/"),
        ("post", "/scoring/%00/flag/"),
        ("get", "/training/%00/"),
        ("get", "/training/%00/feedback/"),
        ("post", "/training/%00/save/"),
        ("post", "/training/%00/submit/"),
        ("post", "/training/%00/again/"),
        ("get", "/scoring/?q=%00"),
    ],
    "calibrator": [("get", "/calibration/%00/")],
    "researcher": [("get", "/research/?study=%00")],
}


@pytest.mark.parametrize("username", sorted(PAGES))
def test_pages_answer_400_to_a_nul(demo, username):
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    for method, url in PAGES[username]:
        response = getattr(client, method)(url)
        assert response.status_code == 400, (url, response.status_code)
        assert b'data-reason="nul"' in response.content and b"Nothing was changed" in response.content


def test_api_answers_400_json_to_a_nul(demo):
    study = Study.objects.get(name="CGPST demo").pk
    token = token_create(
        user=get_user_model().objects.get(username="researcher"), name="t", scope="read", days=1
    )
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")
    for url in (
        f"/api/v1/studies/{study}/responses?status=%00",
        f"/api/v1/studies/{study}/final-scores?conditions=%00",
        f"/api/v1/studies/{study}/final-scores?models=%00",
        "/api/v1/studies/%00/responses",
    ):
        response = client.get(url)
        assert response.status_code == 400, (url, response.status_code)
        assert "NUL character" in response.json()["detail"]
    # the same addresses without the NUL are served
    assert client.get(f"/api/v1/studies/{study}/responses?status=submitted").status_code in (200, 422)


@pytest.mark.parametrize("debug", [False, True])
def test_too_many_query_fields_are_400_with_debug_on_or_off(demo, settings, debug):
    """Hostile pass 12, F6: 1,500 query fields answered 400 in production but 500 in local mode
    (DEBUG's error page read the query again) on six research and manage pages."""
    settings.DEBUG = debug
    query = "&".join(f"f{n}=1" for n in range(1500))
    client = Client()
    client.force_login(get_user_model().objects.get(username="admin"))
    for path in ("/research/", "/research/agreement/", "/research/judge/", "/manage/responses/held/"):
        response = client.get(f"{path}?{query}")
        assert response.status_code == 400 and b'data-reason="fields"' in response.content, path
    api = client.get(f"/api/v1/studies?{query}")
    assert api.status_code == 400 and "too many query fields" in api.json()["detail"]
    # the API's tokens page is a page, not the API: too many form fields get the page (hostile pass 24)
    form = client.post("/api/tokens/", {f"f{n}": "1" for n in range(1500)})
    assert form.status_code == 400 and form["Content-Type"].startswith("text/html")
    assert debug or (b'data-reason=""' in form.content and b"NUL" not in form.content)  # DEBUG: Django's page


def test_a_host_this_server_does_not_serve_is_400_and_blames_no_nul(demo, settings):
    """Hostile pass 24: every 400 page said the address held a NUL, a Host header not served too."""
    settings.ALLOWED_HOSTS = ["testserver"]
    for lang, words in (("en", "The request could not be read"), ("zh-hans", "无法读取该请求")):
        response = Client(HTTP_HOST="evil.example", HTTP_ACCEPT_LANGUAGE=lang).get("/accounts/login/")
        assert response.status_code == 400 and b'data-reason=""' in response.content
        assert words in response.content.decode()
        assert b"NUL" not in response.content and "%00" not in response.content.decode()
        assert b"QueryRefusal" not in response.content  # the template's comment stays in the template


MULTIPART = b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'


def test_a_form_sent_to_a_json_endpoint_is_400_not_500(demo):
    """Issue 36, hostile pass 3: a multipart body with a valid CSRF header made the CSRF check
    read the form, and the view's read of the JSON body raised RawPostDataException (a 500)."""
    from studies.models import Response
    from tests.factories import code_for

    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username="rater1"))
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    client.get(f"/scoring/{code}/")
    token = client.cookies["csrftoken"].value
    for action in ("save", "submit", "time"):
        response = client.post(
            f"/scoring/{code}/{action}/",
            MULTIPART,
            content_type="multipart/form-data; boundary=x",
            HTTP_X_CSRFTOKEN=token,
        )
        assert response.status_code == 400, (action, response.status_code)
        assert "takes a JSON body" in response.json()["detail"] or response.json()


def test_a_form_sent_to_a_json_api_endpoint_with_a_session_is_400(demo):
    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username="researcher"))
    client.get("/research/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/api/v1/exports", MULTIPART, content_type="multipart/form-data; boundary=x", HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code in (400, 422), response.status_code


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "TRACE", "PROPFIND", "FOO"])
def test_other_methods_on_pages_are_405(demo, method):
    client = Client()
    client.force_login(get_user_model().objects.get(username="admin"))
    for path in ("/scoring/", "/manage/endpoints/", "/admin/auth/user/"):
        response = client.generic(method, path)
        assert response.status_code == 405, (method, path, response.status_code)
        assert "POST" in response["Allow"]


@pytest.mark.parametrize("debug", [False, True])
def test_a_form_posted_without_the_closing_slash_is_sent_on_with_it(demo, settings, debug):
    """Hostile pass 19: a POST to an address without its slash raised in DEBUG (Django's
    APPEND_SLASH refuses to lose a form: a 500 in `make run`) and, without DEBUG, was redirected by
    a 301 that a browser follows with a GET. A 308 keeps the method and the form."""
    settings.DEBUG = debug
    client = Client()
    response = client.post("/accounts/login?next=/scoring/", {"username": "rater1", "password": "x"})
    assert response.status_code == 308 and response["Location"] == "/accounts/login/?next=/scoring/"
    assert "_auth_user_id" not in client.session  # nothing was done at the address without its slash
    # an address that is no page with or without its slash is a 404, not a redirect
    client.force_login(get_user_model().objects.get(username="admin"))
    assert client.post("/manage/nothing-here").status_code == 404
    assert client.get("/manage/endpoints").status_code == 301  # a GET is Django's own redirect


def test_a_nul_in_a_header_is_400_and_records_nothing(demo, settings):
    """Hostile pass 19: a NUL in the User-Agent at login reached django-axes' AccessLog, which
    PostgreSQL cannot store (a 500 on the development server; gunicorn refuses such a header)."""
    from axes.models import AccessAttempt, AccessLog

    before = (AccessLog.objects.count(), AccessAttempt.objects.count())
    client = Client(HTTP_USER_AGENT="Mozilla\x00/5.0")
    response = client.post("/accounts/login/", {"username": "rater1", "password": "demo-pass-2026"})
    assert response.status_code == 400 and b'data-reason="header"' in response.content
    assert "_auth_user_id" not in client.session
    assert (AccessLog.objects.count(), AccessAttempt.objects.count()) == before
    # the same login without the NUL is served
    client = Client(HTTP_USER_AGENT="Mozilla/5.0")
    assert (
        client.post("/accounts/login/", {"username": "rater1", "password": "demo-pass-2026"}).status_code
        == 302
    )
    assert client.session["_auth_user_id"] == str(get_user_model().objects.get(username="rater1").pk)


@pytest.mark.parametrize("charset", ["latin-1", "utf-16", "cp500", '"utf-8'])
@pytest.mark.parametrize("debug", [False, True])
def test_a_form_in_another_charset_is_400_not_500(demo, settings, charset, debug):
    """Hostile pass 20, F1: Django refuses a form body that is not UTF-8 (BadRequest inside the CSRF
    check), and its 400 page ran the CSRF check again, which raised again: a 500 on every form."""
    settings.DEBUG = debug
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/login/")
    token = client.cookies["csrftoken"].value
    body = f"username=rater1&password=demo-pass-2026&csrfmiddlewaretoken={token}"
    for path in ("/accounts/login/", "/i18n/setlang/"):
        response = client.post(
            path,
            body,
            content_type=f"application/x-www-form-urlencoded; charset={charset}",
            HTTP_X_CSRFTOKEN=token,
        )
        assert response.status_code == 400, (path, response.status_code)
        assert b'data-reason="charset"' in response.content
    assert "_auth_user_id" not in client.session


def test_the_400_page_does_not_read_the_form_again():
    from django.core.exceptions import BadRequest
    from django.test import RequestFactory

    from teamllm_web.views import bad_request

    request = RequestFactory().post(
        "/accounts/login/", "a=1", content_type="application/x-www-form-urlencoded; charset=latin-1"
    )
    with pytest.raises(BadRequest):
        request.POST  # noqa: B018 - what Django's own 400 page's CSRF check does, and raised again
    response = bad_request(request, BadRequest("not UTF-8"))
    assert response.status_code == 400
    api = RequestFactory().post("/api/v1/exports", "a=1", content_type="application/x-www-form-urlencoded")
    assert (
        bad_request(api, BadRequest("x")).status_code == 400
        and b"Bad request" in bad_request(api, BadRequest("x")).content
    )


def test_a_form_from_an_out_of_date_page_gets_the_sites_own_page(demo):
    """Hostile pass 25: a form posted from a tab left open across a logout and a login got Django's
    bare CSRF page (no navigation, English or a debug page); a save gets JSON."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username="rater1"))
    for lang, words in (("en", "This page is out of date"), ("zh-hans", "此页面已过期")):
        reply = client.post("/i18n/setlang/", {"language": "en"}, HTTP_ACCEPT_LANGUAGE=lang)
        assert reply.status_code == 403 and 'data-reason="csrf"' in reply.content.decode()
        assert words in reply.content.decode()
        assert '<header class="topbar">' in reply.content.decode()  # the site's layout
    save = client.post("/scoring/NOSUCHCODE/save/", "{}", content_type="application/json")
    assert save.status_code == 403 and "out of date" in save.json()["detail"]
