"""Hardening against hostile people (the security review's findings): numbers beyond 64 bits
in paths and filters, a forged X-Forwarded-For against the anonymous rate limit, tokens that
mint tokens or outlive a password change, and finished matches edited in the admin. Each
test failed before its fix."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.throttling import SimpleRateThrottle

from tests.web.conftest import logged_in
from tests.web.factories import PASSWORD, MatchFactory, UserFactory, active_bot
from web.accounts.models import ApiToken
from web.matches.models import MatchStatus

pytestmark = pytest.mark.django_db

HUGE = "9223372036854775808"  # 2**63: one past the largest bigint
HUGER = "1" + "0" * 40


@pytest.mark.parametrize(
    "path",
    [
        f"/api/matches/?bot={HUGE}",
        f"/api/matches/?bot={HUGER}",
        f"/api/matches/?bot=-{HUGE}",
        f"/api/matches/{HUGE}/",
        f"/api/bots/{HUGE}/",
        f"/api/bots/{HUGE}/stats/",
        f"/api/bots/{HUGE}/versions/",
        f"/api/bots/{HUGE}/versions/{HUGE}/",
        f"/api/matches/1/games/{HUGER}/replay/",
        f"/bots/{HUGE}/",
        f"/bots/{HUGE}/versions/{HUGE}/source/",
        f"/matches/{HUGE}/",
        f"/matches/1/games/{HUGER}/replay.json.gz",
        f"/api/leaderboard/?page={HUGER}",
    ],
)
def test_a_number_beyond_64_bits_is_a_clean_refusal_not_a_500(path: str, user: User) -> None:
    for client in (Client(raise_request_exception=False), logged_in(user)):
        client.raise_request_exception = False
        response = client.get(path)
        assert response.status_code in (400, 404) or (
            response.status_code == 302 and "/accounts/login/" in response["Location"]
        ), (path, response.status_code)


def test_a_forged_forwarded_for_does_not_escape_the_anonymous_rate_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # DRF reads the rates into the class once: patched for this test only.
    rates = {"anon": "3/minute", "user": "600/minute"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    client = Client()
    for _ in range(3):
        assert client.get("/api/leaderboard/").status_code == 200
    for forged in ("203.0.113.7", "198.51.100.1, 10.0.0.1"):
        response = client.get("/api/leaderboard/", HTTP_X_FORWARDED_FOR=forged)
        assert response.status_code == 429, forged


def token_client(user: User) -> tuple[Client, str]:
    _, token = ApiToken.issue(user, "cli")
    return Client(HTTP_AUTHORIZATION=f"Token {token}"), token


def test_a_token_cannot_mint_tokens(user: User) -> None:
    client, _ = token_client(user)
    response = client.post("/api/tokens/", {"name": "another"}, content_type="application/json")
    assert response.status_code == 403
    assert ApiToken.objects.filter(user=user).count() == 1
    # The web session may: a person at the site, not a leaked token.
    session = logged_in(user)
    created = session.post("/api/tokens/", {"name": "mine"}, content_type="application/json")
    assert created.status_code == 201


def test_a_password_change_revokes_every_token(user: User) -> None:
    client, token = token_client(user)
    assert client.get("/api/tokens/").status_code == 200
    session = logged_in(user)
    changed = session.post(
        "/accounts/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "a-new-pass-phrase",
            "new_password2": "a-new-pass-phrase",
        },
    )
    assert changed.status_code == 302
    assert client.get("/api/tokens/").status_code == 401
    assert ApiToken.authenticate(token) is None
    other = UserFactory(username="bystander")
    _, kept = token_client(other)
    assert ApiToken.authenticate(kept) is not None  # another user's tokens are untouched


def test_staff_cannot_edit_or_delete_a_finished_match_in_the_admin(admin_client: Client) -> None:
    bot = active_bot(name="rec")
    match = MatchFactory(status=MatchStatus.FINISHED, rated=True)
    match.participants.create(index=0, bot=bot, version=bot.active_version, name="x/rec")
    page = admin_client.get(f"/admin/matches/match/{match.pk}/change/")
    assert page.status_code == 200
    assert b'name="status"' not in page.content  # shown, not editable
    admin_client.post(
        f"/admin/matches/match/{match.pk}/change/",
        {
            "status": "queued",
            "rated": "",
            "game": "concombre",
            "kind": "challenge",
            "games_planned": 9,
        },
    )
    match.refresh_from_db()
    assert (match.status, match.rated, match.game, match.games_planned) == (
        MatchStatus.FINISHED,
        True,
        "five-cucumbers",
        1,
    )
    deleted = admin_client.post(f"/admin/matches/match/{match.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 403
    assert type(match).objects.filter(pk=match.pk).exists()


def wrong_then_right(client: Client, path: str, username: str) -> int:
    for _ in range(5):
        client.post(path, {"username": username, "password": "not-the-password"})
    return client.post(path, {"username": username, "password": PASSWORD}).status_code


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_repeated_wrong_passwords_lock_the_log_in_even_with_the_right_one(
    path: str, staff: User
) -> None:
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    assert wrong_then_right(attacker, path, staff.username) == 429
    assert "_auth_user_id" not in attacker.session
    # The owner, from elsewhere, is not locked out by someone else's guesses.
    owner = Client(REMOTE_ADDR="198.51.100.20")
    response = owner.post(path, {"username": staff.username, "password": PASSWORD})
    assert response.status_code == 302 and owner.session["_auth_user_id"] == str(staff.pk)


def test_a_forged_forwarded_for_buys_no_fresh_log_in_attempts(user: User) -> None:
    for forged in ("1.1.1.1", "2.2.2.2", "3.3.3.3", "4.4.4.4", "5.5.5.5"):
        Client(REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR=forged).post(
            "/accounts/login/", {"username": user.username, "password": "nope"}
        )
    again = Client(REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="6.6.6.6")
    assert (
        again.post(
            "/accounts/login/", {"username": user.username, "password": PASSWORD}
        ).status_code
        == 429
    )


def test_the_token_page_is_never_cached(user: User) -> None:
    client = logged_in(user)
    response = client.post("/accounts/tokens/", {"name": "laptop"})
    assert response.status_code == 200 and b"cuc_" in response.content
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]


def test_every_page_carries_a_strict_content_security_policy(db: None) -> None:
    policy = Client().get("/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in policy


class UnreadBody:
    """A request body that counts what is read of it (and has nothing to give)."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def read(self, size: int = -1) -> bytes:
        self.read_bytes += 1 if size else 0
        return b""

    def readline(self, size: int = -1) -> bytes:
        return self.read(size)


@pytest.mark.parametrize("path", ["/api/uploads/", "/bots/new/", "/accounts/login/"])
def test_a_body_beyond_the_upload_limit_is_refused_before_it_is_read(path: str, user: User) -> None:
    body = UnreadBody()
    client = logged_in(user)
    response = client.generic(
        "POST",
        path,
        b"x",
        content_type="multipart/form-data; boundary=xyz",
        **{"wsgi.input": body, "CONTENT_LENGTH": str(100 * 1024 * 1024)},
    )
    assert response.status_code == 413
    assert body.read_bytes == 0
    assert response["Connection"] == "close"
    text = response.content.decode()
    assert "the request is 102400 KB; a bot file may be at most 256 KB" in text
    if path.startswith("/api/"):
        assert response.json()["code"] == "too_large"


def test_an_upload_just_under_the_limit_still_gets_through_the_size_check(user: User) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    big = b"def play(view):\n    return view.legal[0]\n" + b"#" * (256 * 1024 - 100) + b"\n"
    upload = SimpleUploadedFile("big.py", big, content_type="text/x-python")
    response = logged_in(user).post(
        "/api/uploads/", {"bot": "big", "game": "concombre", "file": upload}
    )
    assert response.status_code == 201, response.content
