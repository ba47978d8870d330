"""The account page (e-mail, closing the account), deleting a bot, and password reset by
e-mail (Django's views: one-time links, nothing told about whether an address has an
account, limited per client and hour)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.conf import LazySettings
from django.contrib.auth.models import User
from django.core import mail
from django.core.cache import cache
from django.test import Client

from tests.web.conftest import logged_in
from tests.web.factories import PASSWORD, MatchFactory, UserFactory, active_bot
from web.accounts.models import ApiToken
from web.bots.models import Bot, BotVersion, bot_source_storage
from web.matches.models import MatchStatus, Participant

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_counts() -> Iterator[None]:
    cache.clear()  # the reset limit counts in the cache
    yield
    cache.clear()


def test_the_account_page_needs_a_login_and_shows_the_users_own_settings(user: User) -> None:
    assert Client().get("/accounts/").status_code == 302
    page = logged_in(user).get("/accounts/")
    assert page.status_code == 200
    assert user.email in page.content.decode()
    assert "no-store" in page["Cache-Control"]


def test_changing_the_email_needs_the_password(user: User) -> None:
    client = logged_in(user)
    wrong = client.post("/accounts/", {"email": "mallory@example.org", "password": "guess"})
    assert wrong.status_code == 200 and "That is not your password." in wrong.content.decode()
    user.refresh_from_db()
    assert user.email == "alice@example.org"
    right = client.post("/accounts/", {"email": "alice@example.net", "password": PASSWORD})
    assert right.status_code == 302
    user.refresh_from_db()
    assert user.email == "alice@example.net"


def test_an_owner_deletes_a_bot_with_its_versions_and_sources_and_the_record_stays(
    user: User, django_capture_on_commit_callbacks: object
) -> None:
    bot = active_bot(owner=user, name="doomed")
    rival = active_bot(name="rival")
    source = str(bot.active_version.source.name)
    match = MatchFactory(status=MatchStatus.FINISHED, rated=True)
    match.participants.create(index=0, bot=bot, version=bot.active_version, name="alice/doomed")
    match.participants.create(index=1, bot=rival, version=rival.active_version, name="x/rival")
    client = logged_in(user)
    confirm = client.get(f"/bots/{bot.pk}/delete/")
    assert confirm.status_code == 200 and "cannot be undone" in confirm.content.decode()
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        assert client.post(f"/bots/{bot.pk}/delete/").status_code == 302
    assert not Bot.objects.filter(pk=bot.pk).exists()
    assert not BotVersion.objects.filter(bot_id=bot.pk).exists()
    assert not bot_source_storage().exists(source)
    seat = Participant.objects.get(match=match, index=0)
    assert (seat.bot_id, seat.name) == (None, "alice/doomed")
    assert client.get(f"/matches/{match.pk}/").status_code == 200


def test_nobody_else_deletes_a_bot(user: User, other_user: User) -> None:
    bot = active_bot(owner=user, name="mine")
    client = logged_in(other_user)
    assert client.get(f"/bots/{bot.pk}/delete/").status_code == 403
    assert client.post(f"/bots/{bot.pk}/delete/").status_code == 403
    assert Client().post(f"/bots/{bot.pk}/delete/").status_code == 302  # to the log-in
    assert Bot.objects.filter(pk=bot.pk).exists()


def test_closing_an_account_needs_the_password_and_the_username_typed(user: User) -> None:
    active_bot(owner=user, name="keeper")
    client = logged_in(user)
    for form in (
        {"password": "guess", "confirm": "alice"},
        {"password": PASSWORD, "confirm": "Alice"},
    ):
        assert client.post("/accounts/close/", form).status_code == 400
    user.refresh_from_db()
    assert user.is_active and Bot.objects.filter(owner=user).exists()


def test_a_closed_account_keeps_nothing_but_its_reserved_name(
    user: User, django_capture_on_commit_callbacks: object
) -> None:
    active_bot(owner=user, name="one")
    active_bot(owner=user, name="two")
    _, token = ApiToken.issue(user, "laptop")
    client = logged_in(user)
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        closed = client.post("/accounts/close/", {"password": PASSWORD, "confirm": "alice"})
    assert closed.status_code == 302
    user.refresh_from_db()
    assert not user.is_active and user.email == "" and not user.has_usable_password()
    assert not Bot.objects.filter(owner=user).exists()
    assert ApiToken.authenticate(token) is None
    assert "_auth_user_id" not in client.session
    assert Client().get("/users/alice/").status_code == 404
    assert not logs_in("alice", PASSWORD)
    again = Client().post(
        "/accounts/signup/",
        {"username": "alice", "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase"},
    )
    assert again.status_code == 200 and User.objects.filter(username__iexact="alice").count() == 1


def logs_in(username: str, password: str) -> bool:
    client = Client()
    client.post("/accounts/login/", {"username": username, "password": password})
    return "_auth_user_id" in client.session


def reset_link(message: mail.EmailMessage) -> str:
    found = re.search(r"https?://[^/\s]+(/accounts/password/reset/[^\s]+/)", str(message.body))
    assert found, message.body
    return found.group(1)


def test_a_password_reset_link_sets_a_new_password_once_and_revokes_tokens(user: User) -> None:
    _, token = ApiToken.issue(user, "laptop")
    sent = Client().post("/accounts/password/reset/", {"email": "alice@example.org"})
    assert sent.status_code == 302 and sent.url == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["alice@example.org"]
    link = reset_link(mail.outbox[0])
    browser = Client()
    form_page = browser.get(link, follow=True)  # Django swaps the token into the session
    assert form_page.status_code == 200 and "Choose a new password" in form_page.content.decode()
    set_url = form_page.redirect_chain[-1][0]
    done = browser.post(
        set_url, {"new_password1": "another-pass-phrase", "new_password2": "another-pass-phrase"}
    )
    assert done.status_code == 302 and done.url == "/accounts/password/reset/done/"
    assert logs_in("alice", "another-pass-phrase")
    assert ApiToken.authenticate(token) is None
    reused = Client().get(link, follow=True)
    assert "This link is not valid any more" in reused.content.decode()


def test_a_reset_for_an_unknown_address_looks_the_same_and_sends_nothing(db: None) -> None:
    UserFactory(username="closed", email="closed@example.org", is_active=False)
    for address in ("nobody@example.org", "closed@example.org"):
        sent = Client().post("/accounts/password/reset/", {"email": address})
        assert sent.status_code == 302 and sent.url == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_password_resets_from_one_address_stop_at_the_hourly_limit(
    user: User, settings: LazySettings
) -> None:
    settings.PASSWORD_RESETS_PER_HOUR = 2
    client = Client(REMOTE_ADDR="203.0.113.8")
    for _ in range(2):
        assert client.post("/accounts/password/reset/", {"email": user.email}).status_code == 302
    refused = client.post("/accounts/password/reset/", {"email": user.email})
    assert refused.status_code == 429 and "Too many reset requests" in refused.content.decode()
    assert len(mail.outbox) == 2


def test_a_mail_server_that_is_down_looks_like_success_and_is_logged(
    user: User, settings: LazySettings, caplog: pytest.LogCaptureFixture
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    settings.EMAIL_USE_TLS = False
    sent = Client().post("/accounts/password/reset/", {"email": user.email})
    assert sent.status_code == 302 and sent.url == "/accounts/password/reset/sent/"
    assert "Failed to send password reset email" in caplog.text
