"""A username longer than the account column (hostile pass 16, F4): Django's login form does not
check its own max_length, so a 256-character name reached authenticate() and django-axes' record
of the failure, a 255-character column: a 500 on PostgreSQL for any visitor. Now the form answers
as for any failed login without looking anything up, and an ordinary failure is still counted."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("username", ["x" * 256, "ü" * 5000, "a" * 151])
def test_an_overlong_username_is_refused_by_the_form(username):
    client = Client()
    answer = client.post("/accounts/login/", {"username": username, "password": "x"})
    assert answer.status_code == 200
    assert "didn&#x27;t match" in answer.content.decode()  # as any failed login
    assert not AccessAttempt.objects.exists()  # never reached authenticate()


def test_a_name_of_the_columns_length_is_an_ordinary_failure():
    answer = Client().post("/accounts/login/", {"username": "y" * 150, "password": "x"})
    assert answer.status_code == 200 and "didn&#x27;t match" in answer.content.decode()
    assert AccessAttempt.objects.filter(username="y" * 150).exists()
