"""Quotas that hold under parallel requests, limits on what anyone may do without an account,
and names nobody can pass for (the security review's findings 6 and 7). Each test failed
before its fix: 40 parallel uploads stored 34 versions against a limit of 30, a user made 60
bots without versions, one address made 10 accounts in 3 seconds, and ``hоuse`` (a Cyrillic
``о``) was accepted."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest
from django.conf import LazySettings as SettingsWrapper  # what the fixture wraps
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError, connection, transaction
from django.test import Client

from tests.web.conftest import logged_in
from tests.web.factories import GOOD_BOT, PASSWORD, BotFactory, UserFactory
from web.bots.errors import UploadError
from web.bots.models import Bot, BotVersion
from web.bots.uploads import upload_version


@pytest.fixture(autouse=True)
def fresh_counts() -> Iterator[None]:
    """The rate limits count in the cache, shared by every test of the process."""
    cache.clear()
    yield
    cache.clear()


def at_once(count: int, action: Callable[[int], object]) -> list[object]:
    """Run ``action(0..count-1)`` in ``count`` threads released together; each result, or
    the exception it raised."""
    barrier = Barrier(count)

    def one(index: int) -> object:
        barrier.wait()
        try:
            return action(index)
        except Exception as error:
            return error
        finally:
            connection.close()  # each thread's own connection

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(count)))


def py() -> SimpleUploadedFile:
    return SimpleUploadedFile("bot.py", GOOD_BOT, content_type="text/x-python")


def test_parallel_uploads_never_store_more_versions_than_the_hourly_quota(
    transactional_db: None, settings: SettingsWrapper
) -> None:
    settings.UPLOADS_PER_HOUR = 10
    owner = UserFactory(username="racer")
    bot = BotFactory(owner=owner, name="sprinter")
    outcomes = at_once(
        24, lambda i: upload_version(owner, "sprinter.py", GOOD_BOT + f"# {i}\n".encode(), bot=bot)
    )
    refused = [o for o in outcomes if isinstance(o, UploadError)]
    assert BotVersion.objects.filter(bot=bot).count() == 10
    assert len(refused) == 14 and all(e.problem == "too_many_uploads" for e in refused)
    numbers = sorted(BotVersion.objects.filter(bot=bot).values_list("number", flat=True))
    assert numbers == list(range(1, 11))


def test_parallel_bot_creations_never_pass_the_bot_quota(
    transactional_db: None, settings: SettingsWrapper
) -> None:
    settings.BOTS_PER_USER = 5
    owner = UserFactory(username="hoarder")
    outcomes = at_once(
        16,
        lambda i: logged_in(owner).post(
            "/api/bots/", {"name": f"bot{i}", "game": "concombre"}, content_type="application/json"
        ),
    )
    statuses = sorted(getattr(o, "status_code", 0) for o in outcomes)
    assert Bot.objects.filter(owner=owner).count() == 5
    assert statuses == [201] * 5 + [409] * 11


def test_the_bot_quota_counts_bots_without_versions_on_every_path(
    db: None, settings: SettingsWrapper
) -> None:
    settings.BOTS_PER_USER = 2
    owner = UserFactory(username="collector")
    client = logged_in(owner)
    for name in ("one", "two"):
        created = client.post(
            "/api/bots/", {"name": name, "game": "concombre"}, content_type="application/json"
        )
        assert created.status_code == 201
    refused = client.post(
        "/api/bots/", {"name": "three", "game": "concombre"}, content_type="application/json"
    )
    assert refused.status_code == 409 and refused.json()["code"] == "too_many_bots"
    assert "the limit is 2" in refused.json()["detail"]
    form = client.post("/bots/new/", {"name": "three", "game": "concombre", "file": py()})
    assert form.status_code == 409 and "the limit is 2" in form.content.decode()
    upload = client.post("/api/uploads/", {"bot": "three", "game": "concombre", "file": py()})
    assert upload.status_code == 409 and upload.json()["code"] == "too_many_bots"
    # A new version of a bot one has is no new bot.
    assert client.post("/api/uploads/", {"bot": "one", "file": py()}).status_code == 201
    assert Bot.objects.filter(owner=owner).count() == 2


def sign_up(client: Client, username: str) -> int:
    response = client.post(
        "/accounts/signup/",
        {
            "username": username,
            "email": "",
            "password1": "a-long-pass-phrase",
            "password2": "a-long-pass-phrase",
        },
    )
    return response.status_code


def test_sign_ups_from_one_address_stop_at_the_hourly_limit(
    db: None, settings: SettingsWrapper
) -> None:
    settings.SIGNUPS_PER_HOUR = 3
    for n in range(3):
        assert sign_up(Client(REMOTE_ADDR="203.0.113.5"), f"sock{n}a") == 302
    assert sign_up(Client(REMOTE_ADDR="203.0.113.5"), "sock9a") == 429
    # A forged X-Forwarded-For is no other address (no proxy is trusted here)...
    forged = Client(REMOTE_ADDR="203.0.113.5", HTTP_X_FORWARDED_FOR="198.51.100.77")
    assert sign_up(forged, "sock8a") == 429
    assert not User.objects.filter(username__in=["sock9a", "sock8a"]).exists()
    # ...and another address has its own allowance.
    assert sign_up(Client(REMOTE_ADDR="198.51.100.2"), "neighbour") == 302


def test_a_refused_sign_up_form_spends_no_allowance(db: None, settings: SettingsWrapper) -> None:
    settings.SIGNUPS_PER_HOUR = 1
    client = Client(REMOTE_ADDR="203.0.113.6")
    assert sign_up(client, "bad name!") == 200  # the form's errors, no account
    assert sign_up(client, "goodname") == 302


@pytest.mark.parametrize(
    ("username", "why"),
    [
        ("h\u043euse", "ASCII letters"),  # Cyrillic о
        ("House", "reserved"),
        ("h0use", "reserved"),
        ("ho.use", "reserved"),
        ("admin", "reserved"),
        ("AIice", "looks too much like"),  # capital I for l
        ("a1ice", "looks too much like"),
        ("ALICE", "already exists"),
        ("alice\u200b", "ASCII letters"),  # zero-width space
        ("-alice", "ASCII letters"),
    ],
)
def test_a_name_that_passes_for_another_is_refused(db: None, username: str, why: str) -> None:
    UserFactory(username="alice")
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {
            "username": username,
            "password1": "a-long-pass-phrase",
            "password2": "a-long-pass-phrase",
        },
    )
    assert response.status_code == 200, username
    assert why in response.content.decode(), username
    assert User.objects.count() == 1


def test_a_name_unlike_any_other_is_accepted_and_claims_its_lookalikes(db: None) -> None:
    assert sign_up(Client(), "Bob_the-Builder.2") == 302
    assert sign_up(Client(), "bobthebuilder2") == 200  # separators and case do not count
    assert User.objects.filter(username="Bob_the-Builder.2").exists()


def test_staff_cannot_rename_a_user_to_a_lookalike_of_another(db: None) -> None:
    UserFactory(username="alice")
    mallory = UserFactory(username="mallory", password=PASSWORD)
    mallory.username = "a1ice"
    with pytest.raises(IntegrityError), transaction.atomic():
        mallory.save()
