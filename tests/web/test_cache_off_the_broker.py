"""The site's cache is off the broker and cannot run code or inject markup (issue 25).

Found by an attacker holding an arena host's Redis credentials: the cache lived in the
broker's database, and Django's Redis cache unpickles what it reads, so a pickle planted
under the anonymous throttle key ran code in the web server; and the bot page's charts were
cached as HTML and inserted unescaped. Here a pickle that creates a marker file when it is
unpickled is planted in every key of the broker's database, then in the cache's own keys,
and markup in the cached chart data; the site is driven as a visitor, a user and a newcomer
would drive it, against real Redis and PostgreSQL.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import LazySettings
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from tests.web.bots.history import record_history
from tests.web.cache_helpers import (
    BROKER_URL,
    CACHE_URL,
    NEWCOMER_IP,
    empty_database,
    every_spelling,
    planted_pickle,
    site_keys,
    stored_names,
    use_site_cache,
)
from tests.web.conftest import logged_in
from tests.web.factories import active_bot
from web.bots.models import Bot
from web.cache_backend import SITE_CACHE_COMMANDS
from web.matches.models import Match
from web.pages.bot_page import bot_page_key
from web.pages.bot_page_cache import STATS
from web.pages.charts import bot_stats

pytestmark = pytest.mark.django_db

#: What a broker's database holds besides: the arena's queues, kombu's bindings, Celery's
#: unacknowledged messages and results.
BROKER_KEYS = [
    "urgent",
    "ladder",
    "reports",
    "maintenance",
    "unacked",
    "unacked_index",
    "_kombu.binding.urgent",
    "celery-task-meta-0b1c",
]


@pytest.fixture
def broker() -> Iterator[redis.Redis]:
    yield from empty_database(BROKER_URL)


@pytest.fixture
def cache_database() -> Iterator[redis.Redis]:
    yield from empty_database(CACHE_URL)


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "pickle-ran"


@pytest.fixture
def trio() -> list[Bot]:
    """ace, bea and cid with rated matches: ace's page has charts and a head-to-head."""
    bots = [active_bot(name=name) for name in ("ace", "bea", "cid")]
    record_history(bots, [([0, 1, 2], [[0, 1, 2], [1, 0, 2]]), ([0, 1], [[1, 0]])])
    return bots


@pytest.fixture
def visitor_user(db: None) -> User:
    return User.objects.create_user("visitor", "visitor@example.org", "a-long-pass-phrase")


def keys_of(bot: Bot, user: User, settings: LazySettings) -> list[str]:
    return site_keys(
        bot=bot,
        user_id=user.pk,
        signups=settings.SIGNUPS_PER_HOUR,
        resets=settings.PASSWORD_RESETS_PER_HOUR,
    )


def drive_the_site(bot: Bot, user: User) -> None:
    """What visitors do that reads the cache, each answer checked: anonymous API requests
    (the anonymous throttle), a user's (the user throttle), the bot page (its chart data
    and figures), the match lists (their counts), a sign-up and a password reset from a
    new address (django-ratelimit)."""
    anonymous = Client()
    listing = anonymous.get("/api/bots/")
    assert listing.status_code == 200
    assert {row["name"] for row in listing.json()["results"]} >= {"ace", "bea", "cid"}
    stats = anonymous.get(f"/api/bots/{bot.pk}/stats/")
    assert stats.status_code == 200 and stats.json()["elo"]["games"] == 3
    assert logged_in(user).get("/api/matches/").status_code == 200

    page = anonymous.get(bot.get_absolute_url())
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-chart="elo"' in html and 'data-points="4"' in html
    assert "lowest 1500 after game 0, highest 1508 after game 1" in html
    assert html.count("<tr data-opponent=") == 2

    newest = Match.objects.order_by("-id").first()
    assert newest is not None
    for client, path in [
        (anonymous, "/matches/"),
        (anonymous, f"/matches/?bot={bot.pk}"),
        (logged_in(user), "/matches/"),
    ]:
        listed = client.get(path)
        assert listed.status_code == 200, path
        assert f"#{newest.pk}<" in listed.content.decode(), path

    # Two sign-ups from one address: the first adds the count, the second increments it.
    for name in ("newcomer", "newcomer2"):
        signed_up = Client(REMOTE_ADDR=NEWCOMER_IP).post(
            "/accounts/signup/",
            {
                "username": name,
                "password1": "a-long-pass-phrase",
                "password2": "a-long-pass-phrase",
            },
        )
        assert signed_up.status_code == 302 and User.objects.filter(username=name).exists()
    reset = Client(REMOTE_ADDR=NEWCOMER_IP).post(
        "/accounts/password/reset/", {"email": "visitor@example.org"}
    )
    assert reset.status_code == 302 and len(mail.outbox) == 1


# --- (a) the broker's database --------------------------------------------------------------


def test_the_planted_pickle_runs_where_the_cache_used_to_live(
    settings: LazySettings, broker: redis.Redis, marker: Path
) -> None:
    """The attack as it was found, against the old configuration (the cache in the broker's
    database, Django's pickle serializer): the marker appears, so the tests below can fail."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": BROKER_URL,
        }
    }
    broker.set(":1:throttle_anon_127.0.0.1", planted_pickle(marker))
    Client().get("/api/bots/")
    assert marker.exists()


@pytest.mark.parametrize("cache_url", ["", CACHE_URL], ids=["memory-cache", "redis-cache"])
def test_pickles_in_every_key_of_the_brokers_database_never_run(
    cache_url: str,
    settings: LazySettings,
    broker: redis.Redis,
    cache_database: redis.Redis,
    marker: Path,
    trio: list[Bot],
    visitor_user: User,
) -> None:
    use_site_cache(settings, cache_url)
    ace = trio[0]
    names = keys_of(ace, visitor_user, settings)
    poison = planted_pickle(marker)
    for key in [*BROKER_KEYS, *every_spelling(names)]:
        broker.set(key, b"")
    for key in broker.scan_iter():  # every key of the broker's database, whatever it is
        broker.set(key, poison)
    planted = broker.dbsize()
    assert planted == len(BROKER_KEYS) + 3 * len(names)

    drive_the_site(ace, visitor_user)

    assert not marker.exists()
    # The site neither read nor wrote the broker's database: every key as planted.
    assert broker.dbsize() == planted
    assert all(broker.get(key) == poison for key in broker.scan_iter())
    if cache_url:  # the cache was used all the same, in its own database and under cache:
        kept = {key.decode() for key in cache_database.scan_iter()}
        assert kept and all(key.startswith("cache:1:") for key in kept)
        assert set(stored_names([bot_page_key(ace, "charts")])) <= kept


# --- (b) the cache's own database -----------------------------------------------------------


def test_pickles_in_the_caches_own_keys_are_refused_and_the_pages_still_served(
    settings: LazySettings,
    cache_database: redis.Redis,
    marker: Path,
    trio: list[Bot],
    visitor_user: User,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Whoever can write to the cache's database (it should be no one but the site) gets a
    refused value, never code run: the JSON serializer has no way to build an object."""
    use_site_cache(settings, CACHE_URL)
    ace = trio[0]
    stored = stored_names(keys_of(ace, visitor_user, settings))
    poison = planted_pickle(marker)
    for key in stored:
        cache_database.set(key, poison)
    caplog.set_level(logging.WARNING)

    drive_the_site(ace, visitor_user)

    assert not marker.exists()
    # A refused value is a miss: the page's data computed again and written over as JSON,
    # the throttles' histories counted afresh.
    charts_key, figures_key = stored_names(
        [bot_page_key(ace, "charts"), bot_page_key(ace, "figures")]
    )
    for key in (charts_key, figures_key):
        raw = cache_database.get(key)
        assert raw is not None and raw != poison
        json.loads(raw)
    history = json.loads(cache_database.get(stored[0]) or b"null")
    assert isinstance(history, list) and all(isinstance(t, float) for t in history)
    assert "cache value refused" in caplog.text
    assert "rate limit history refused" in caplog.text
    # django-ratelimit's INCR of a pickle is an error of Redis's, never an unpickling: the
    # newcomer was let through (logged) rather than shown an error.
    assert "signup limit not applied" in caplog.text


# --- (c) markup in the cached chart data ----------------------------------------------------


def test_markup_in_the_cached_chart_data_comes_out_escaped(
    settings: LazySettings, cache_database: redis.Redis, trio: list[Bot]
) -> None:
    use_site_cache(settings, CACHE_URL)
    ace, bea, _ = trio
    ace.refresh_from_db()
    data = STATS.encode(bot_stats(ace))
    assert isinstance(data, dict) and isinstance(data["head_to_head"], list)
    script = "<script>alert(document.cookie)</script>"
    row = data["head_to_head"][0]
    assert isinstance(row, list) and row[0] == bea.pk
    row[4] = script  # the opponent's name, the one text the chart data holds
    (key,) = stored_names([bot_page_key(ace, "charts")])
    cache_database.set(key, json.dumps(data))

    html = Client().get(ace.get_absolute_url()).content.decode()

    assert script not in html and "<script>alert" not in html
    assert "&lt;script&gt;alert(document.cookie)&lt;/script&gt;" in html
    assert f'<a href="/bots/{bea.pk}/">&lt;script&gt;' in html


@pytest.mark.parametrize(
    "where",
    ["rating", "moment", "match", "table size", "games", "whole"],
)
def test_markup_where_the_chart_data_holds_numbers_is_refused(
    where: str,
    settings: LazySettings,
    cache_database: redis.Redis,
    trio: list[Bot],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A number that is markup (or a record of the wrong shape) makes the whole value a
    miss: the page shows the bot's real history, and none of the planted markup."""
    use_site_cache(settings, CACHE_URL)
    ace = trio[0]
    ace.refresh_from_db()
    data = STATS.encode(bot_stats(ace))
    assert isinstance(data, dict)
    markup = '"><img src=x onerror=alert(1)>'
    elo, placements = data["elo"], data["placements"]
    assert isinstance(elo, list) and isinstance(placements, list)
    points = elo[0]
    assert isinstance(points, list) and isinstance(points[1], list)
    if where == "rating":
        points[1][1] = markup
    elif where == "moment":
        points[1][2] = markup
    elif where == "match":
        points[1][3] = markup
    elif where == "table size":
        assert isinstance(placements[0], list)
        placements[0][0] = markup
    elif where == "games":
        elo[1] = markup
    else:
        data = markup
    (key,) = stored_names([bot_page_key(ace, "charts")])
    cache_database.set(key, json.dumps(data))

    response = Client().get(ace.get_absolute_url())

    html = response.content.decode()
    assert response.status_code == 200
    assert "<img src=x" not in html and "onerror" not in html
    assert "lowest 1500 after game 0, highest 1508 after game 1" in html
    assert "cache value refused" in caplog.text
    # Written over with the real data.
    assert STATS.decode(json.loads(cache_database.get(key) or b"null")) == bot_stats(ace)


# --- Redis ACLs can confine the site's cache user ------------------------------------------


@pytest.fixture
def confined_cache_url() -> Iterator[str]:
    """A Redis user that may use the cache's keys (``cache:*``) with the commands Django's
    Redis cache sends, and nothing else: what docs/platform.md suggests for the site."""
    admin = redis.Redis.from_url(CACHE_URL)
    name, password = f"cucumbers-test-site-{os.getpid()}", secrets.token_hex(16)
    admin.acl_setuser(
        name,
        enabled=True,
        passwords=[f"+{password}"],
        keys=["cache:*"],
        commands=[f"+{command}" for command in SITE_CACHE_COMMANDS],
        reset=True,
        reset_keys=True,
        reset_channels=True,
    )
    where = admin.connection_pool.connection_kwargs
    try:
        yield f"redis://{name}:{password}@{where['host']}:{where['port']}/{where.get('db', 0)}"
    finally:
        admin.acl_deluser(name)
        admin.close()


def test_a_redis_user_confined_to_the_cache_keys_is_all_the_site_needs(
    settings: LazySettings,
    cache_database: redis.Redis,
    confined_cache_url: str,
    trio: list[Bot],
    visitor_user: User,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every key the site writes starts with ``cache:``, so an ACL ``~cache:*`` keeps the
    site's user out of the broker's keys (and an arena host's user can be kept out of these)."""
    caplog.set_level(logging.WARNING)
    use_site_cache(settings, confined_cache_url)

    drive_the_site(trio[0], visitor_user)

    assert caplog.text == ""  # no NOPERM anywhere: no refused command, no limit skipped
    kept = {key.decode() for key in cache_database.scan_iter()}
    assert len(kept) >= 8 and all(key.startswith("cache:") for key in kept)
    confined = redis.Redis.from_url(confined_cache_url)
    with pytest.raises(redis.exceptions.NoPermissionError):
        confined.set("unacked", b"x")  # the broker's keys are out of its reach
    with pytest.raises(redis.exceptions.NoPermissionError):
        confined.flushdb()
    confined.close()
