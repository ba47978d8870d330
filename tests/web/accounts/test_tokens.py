"""API tokens: created and revoked in the web UI, shown once, stored hashed."""

from __future__ import annotations

import hashlib

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from web.accounts.models import ApiToken

pytestmark = pytest.mark.django_db


def test_a_new_token_is_shown_once_and_stored_as_its_digest(alice: Client, user: User) -> None:
    page = alice.post(reverse("tokens"), {"name": "laptop"}).content.decode()
    row = ApiToken.objects.get(user=user)
    token = page.split('<p class="token" id="new-token">')[1].split("</p>")[0]
    assert token.startswith("cuc_") and len(token) > 40
    assert row.digest == hashlib.sha256(token.encode()).hexdigest()
    assert token not in {row.shown, row.digest, row.name}
    assert token not in alice.get(reverse("tokens")).content.decode()  # never again


def test_a_token_authenticates_until_revoked(alice: Client, user: User) -> None:
    row, token = ApiToken.issue(user, "ci")
    api = Client(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/tokens/").status_code == 200
    row.refresh_from_db()
    assert row.last_used_at is not None
    alice.post(reverse("token-revoke", args=[row.pk]))
    response = api.get("/api/tokens/")
    assert response.status_code == 401
    assert "invalid or revoked token" in response.json()["detail"]


def test_a_user_cannot_revoke_someone_elses_token(alice: Client, other_user: User) -> None:
    row, _ = ApiToken.issue(other_user, "theirs")
    assert alice.post(reverse("token-revoke", args=[row.pk])).status_code == 404
    row.refresh_from_db()
    assert not row.is_revoked


def test_the_token_page_needs_a_login(client: Client, db: None) -> None:
    assert client.get(reverse("tokens")).status_code == 302


@pytest.mark.parametrize(
    "header", ["Token", "Token a b", "Token cuc_not-a-real-token", "Bearer cuc_nope"]
)
def test_a_bad_token_is_a_401_with_a_reason(header: str, db: None) -> None:
    response = Client(HTTP_AUTHORIZATION=header).get("/api/tokens/")
    assert response.status_code == 401
    assert response.json()["detail"]
    assert response.headers["WWW-Authenticate"].startswith("Token")


def test_a_disabled_users_token_stops_working(user: User) -> None:
    _, token = ApiToken.issue(user, "x")
    user.is_active = False
    user.save()
    assert Client(HTTP_AUTHORIZATION=f"Token {token}").get("/api/tokens/").status_code == 401
