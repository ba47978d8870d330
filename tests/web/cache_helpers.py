"""What the cache attack tests share: the two Redis databases they own, a pickle that leaves
a mark when anything unpickles it, the site's cache set up as settings.py sets it up, and
the names of every key the site reads, computed as Django, DRF and django-ratelimit make
them."""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import LazySettings
from django.core.cache import cache
from django_ratelimit import ALL
from django_ratelimit.core import _get_window, _make_cache_key
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from web.bots.models import Bot
from web.cache_backend import site_caches
from web.pages.bot_page import bot_page_key

#: The broker's database in these tests (every arena host can write the real one), and the
#: cache's own: databases no other suite uses, emptied before and after each test.
BROKER_URL = os.environ.get("CUCUMBERS_TEST_BROKER_REDIS_URL", "redis://127.0.0.1:6379/11")
CACHE_URL = os.environ.get("CUCUMBERS_TEST_CACHE_REDIS_URL", "redis://127.0.0.1:6379/12")

#: The addresses the test clients come from (REMOTE_ADDR; no proxy is trusted in tests).
VISITOR_IP = "127.0.0.1"
NEWCOMER_IP = "203.0.113.9"
HOUR = 3600


class Planted:
    """Unpickled, it creates ``marker``: code run by whoever loads the pickle, as the
    attacker's ran inside a gunicorn worker."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return (Path.touch, (self.marker,))


def planted_pickle(marker: Path) -> bytes:
    return pickle.dumps(Planted(marker), protocol=pickle.HIGHEST_PROTOCOL)


def empty_database(url: str) -> Iterator[redis.Redis]:
    """A client of the database at ``url``, emptied before and after the test."""
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.ConnectionError as error:
        pytest.fail(f"Redis at {url} does not answer (make services): {error}")
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


def use_site_cache(settings: LazySettings, cache_url: str, broker_url: str = BROKER_URL) -> None:
    """The cache as settings.py builds it from ``CACHE_URL`` and ``REDIS_URL``."""
    settings.REDIS_URL = broker_url
    settings.CACHE_URL = cache_url
    settings.CACHES = site_caches(cache_url, broker_url=broker_url)


def rate_limit_keys(group: str, per_hour: int, ip: str) -> list[str]:
    """django-ratelimit's keys for ``group`` and this client, this hour's window and the
    next (the window may turn during the test)."""
    rate = f"{per_hour}/h"
    window = _get_window(ip, HOUR)
    return [_make_cache_key(group, w, rate, ip, ALL) for w in (window, window + HOUR)]


def site_keys(*, bot: Bot, user_id: int, signups: int, resets: int) -> list[str]:
    """Every key the site reads while the tests drive it, as the site names them."""
    bot.refresh_from_db()  # its tallies name its page's keys
    return [
        AnonRateThrottle.cache_format % {"scope": "anon", "ident": VISITOR_IP},
        AnonRateThrottle.cache_format % {"scope": "anon", "ident": NEWCOMER_IP},
        UserRateThrottle.cache_format % {"scope": "user", "ident": user_id},
        *rate_limit_keys("signup", signups, NEWCOMER_IP),
        *rate_limit_keys("password-reset", resets, NEWCOMER_IP),
        bot_page_key(bot, "charts"),
        bot_page_key(bot, "figures"),
        # The match list's counts (web.matches.views): viewer kind, game, bot.
        "match-count:public::",
        f"match-count:public::{bot.pk}",
        f"match-count:user{user_id}::",
    ]


def stored_names(keys: list[str]) -> list[str]:
    """The keys as the configured cache stores them (``cache:1:...``)."""
    return [cache.make_key(key) for key in keys]


def every_spelling(keys: list[str]) -> list[str]:
    """Each key bare, as the old configuration stored it (no prefix, version 1: ``:1:``)
    and as the site stores it now (``cache:1:``)."""
    return [spelled for key in keys for spelled in (key, f":1:{key}", f"cache:1:{key}")]
