"""Sign-up, log-in, log-out, password change and the public profile."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.web.factories import PASSWORD, BotFactory

pytestmark = pytest.mark.django_db


def test_signing_up_logs_the_new_user_in(client: Client) -> None:
    response = client.post(
        reverse("signup"),
        {
            "username": "newbie",
            "email": "n@example.org",
            "password1": "a-long-pass-phrase",
            "password2": "a-long-pass-phrase",
        },
    )
    assert response.status_code == 302 and response.url == reverse("bot-create")
    assert client.get(reverse("my-bots")).status_code == 200
    assert User.objects.filter(username="newbie").exists()


def test_sign_up_explains_mismatched_passwords(client: Client) -> None:
    response = client.post(
        reverse("signup"),
        {"username": "newbie", "password1": "a-long-pass-phrase", "password2": "other-phrase"},
    )
    assert response.status_code == 200
    assert "password fields didn" in response.content.decode()
    assert not User.objects.filter(username="newbie").exists()


def test_log_in_and_out(client: Client, user: User) -> None:
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302 and response.url == reverse("my-bots")
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("my-bots")).status_code == 302  # back to the login page


def test_a_wrong_password_does_not_log_in(client: Client, user: User) -> None:
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()


def test_a_user_changes_the_password_by_giving_the_old_one(alice: Client, user: User) -> None:
    response = alice.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "another-long-phrase",
            "new_password2": "another-long-phrase",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("another-long-phrase")


def test_the_profile_lists_the_users_bots(client: Client, user: User) -> None:
    BotFactory(owner=user, name="ducker")
    BotFactory(name="someone-elses")
    page = client.get(reverse("profile", args=["alice"])).content.decode()
    assert "ducker" in page and "someone-elses" not in page


def test_an_unknown_profile_is_404(client: Client, db: None) -> None:
    assert client.get(reverse("profile", args=["nobody"])).status_code == 404


def test_a_weak_password_is_explained_under_the_password_not_its_confirmation(
    client: Client,
) -> None:
    response = client.post(
        reverse("signup"), {"username": "newbie", "password1": "short", "password2": "short"}
    )
    form = response.context["form"]
    assert "password1" in form.errors and "password2" not in form.errors
    assert any("too short" in message for message in form.errors["password1"])
