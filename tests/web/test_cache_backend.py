"""The cache's JSON serializer, against a real Redis database of the tests' own, and what
``web.caching.remembered`` does with values that are not JSON, with values it did not write
and with a cache that does not answer."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import pytest
import redis
from django.conf import LazySettings
from django.core.cache import cache
from django.test import Client
from rest_framework.throttling import SimpleRateThrottle

from tests.web.cache_helpers import CACHE_URL, empty_database, planted_pickle, use_site_cache
from web.bots.models import Bot
from web.cache_backend import JsonSerializer, NotJsonError, UnreadableCacheValue, site_caches
from web.caching import COUNT, Codec, Json, WrongShape, remembered, whole


@pytest.fixture
def redis_cache(settings: LazySettings) -> Iterator[redis.Redis]:
    """The site's cache in its own Redis database (as with ``CACHE_URL``); the database's
    client, to look at what is stored and to plant what the site did not write."""
    use_site_cache(settings, CACHE_URL)
    yield from empty_database(CACHE_URL)


def test_integers_are_stored_as_integers_so_incr_stays_one_redis_command(
    redis_cache: redis.Redis,
) -> None:
    assert cache.add("count", 1)
    assert cache.incr("count") == 2 and cache.incr("count", 5) == 7
    assert redis_cache.get("cache:1:count") == b"7"
    assert cache.get("count") == 7
    assert JsonSerializer().dumps(41) == 41


@pytest.mark.parametrize(
    "value",
    [
        [1733100000.25, 1733100001.5],  # a DRF throttle's history
        {"elo": [[0, 1500.0, "2025-03-01T12:00:00+00:00", 7]], "games": 1},
        "a name <b>",
        True,  # a bool is JSON's true, never the integer 1
        None,
        -3.5,
    ],
)
def test_what_the_site_caches_is_stored_as_json_and_read_back_equal(
    redis_cache: redis.Redis, value: Json
) -> None:
    cache.set("value", value)
    assert json.loads(redis_cache.get("cache:1:value") or b"") == value
    read = cache.get("value")
    assert read == value and type(read) is type(value)


@pytest.mark.parametrize(
    "value",
    [
        object(),
        {1, 2},
        math.nan,
        math.inf,
        datetime(2025, 3, 1, tzinfo=UTC),
        b"bytes",
        Bot(name="a model"),
        {"nested": [object()]},
    ],
    ids=["object", "set", "nan", "inf", "datetime", "bytes", "model", "nested"],
)
def test_a_value_that_is_not_json_is_refused_loudly_and_nothing_is_stored(
    redis_cache: redis.Redis, value: object
) -> None:
    with pytest.raises(NotJsonError, match="the site caches JSON only"):
        cache.set("value", value)
    assert not redis_cache.exists("cache:1:value")


def test_bytes_that_are_not_json_are_refused_and_never_unpickled(
    redis_cache: redis.Redis, tmp_path: Path
) -> None:
    marker = tmp_path / "pickle-ran"
    redis_cache.set("cache:1:planted", planted_pickle(marker))
    redis_cache.set("cache:1:nan", b"NaN")
    redis_cache.set("cache:1:deep", b"[" * 100_000)
    for key in ("planted", "nan", "deep"):
        with pytest.raises(UnreadableCacheValue, match="not JSON"):
            cache.get(key)
    assert not marker.exists()


# --- remembered() ----------------------------------------------------------------------


def answer(value: object) -> Codec[int]:
    """A codec that hands the cache ``value`` whatever it computed (a codec's bug)."""
    return Codec(encode=lambda _: cast(Json, value), decode=whole)


@pytest.mark.parametrize("where", ["memory", "redis"])
def test_a_computed_value_that_is_not_json_fails_loudly_whatever_the_cache(
    where: str, settings: LazySettings
) -> None:
    # The local-memory cache would pickle it quietly: remembered() checks JSON itself.
    use_site_cache(settings, CACHE_URL if where == "redis" else "")
    with pytest.raises(TypeError, match="not JSON serializable"):
        remembered("odd", 60, lambda: 1, answer({"when": datetime(2025, 3, 1, tzinfo=UTC)}))


def test_a_fresh_value_and_a_cached_one_are_the_same(redis_cache: redis.Redis) -> None:
    """The computed value takes the JSON round trip too: a dict keyed by integers comes
    back keyed by text from the cache, so the page must never see the integers."""
    codec: Codec[dict[int | str, str]] = Codec(
        encode=lambda names: cast(Json, names),
        decode=lambda data: cast(dict[int | str, str], data),
    )
    computed = remembered("ids", 60, lambda: {7: "seven"}, codec)
    cached = remembered("ids", 60, lambda: {}, codec)
    assert computed == cached == {"7": "seven"}


def test_a_stored_value_of_the_wrong_shape_is_a_miss_written_over(
    redis_cache: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    redis_cache.set("cache:1:count", b'"<b>12</b>"')
    assert remembered("count", 60, lambda: 12, COUNT) == 12
    assert redis_cache.get("cache:1:count") == b"12"
    assert "cache value refused (count)" in caplog.text
    with pytest.raises(WrongShape):
        whole(True)


def test_a_cache_that_does_not_answer_is_stepped_around(
    settings: LazySettings, caplog: pytest.LogCaptureFixture
) -> None:
    settings.CACHES = site_caches("redis://127.0.0.1:9/0", broker_url="")  # nobody listens
    assert remembered("count", 60, lambda: 5, COUNT) == 5
    assert "cache unavailable (count)" in caplog.text


def test_the_limits_count_in_the_redis_cache_as_before(
    db: None, redis_cache: redis.Redis, monkeypatch: pytest.MonkeyPatch, settings: LazySettings
) -> None:
    """The API's throttle (a list of times) and django-ratelimit's counts (INCR) through the
    JSON serializer: the fourth anonymous request in a minute and the second sign-up in an
    hour are refused, as with Django's own serializer."""
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "3/minute", "user": None})
    statuses = [Client().get("/api/bots/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    history = json.loads(redis_cache.get("cache:1:throttle_anon_127.0.0.1") or b"")
    assert len(history) == 3 and all(isinstance(t, float) for t in history)

    settings.SIGNUPS_PER_HOUR = 1
    signed = [
        Client(REMOTE_ADDR="203.0.113.77")
        .post(
            "/accounts/signup/",
            {
                "username": name,
                "password1": "a-long-pass-phrase",
                "password2": "a-long-pass-phrase",
            },
        )
        .status_code
        for name in ("first", "second")
    ]
    assert signed == [302, 429]
    counts = [redis_cache.get(key) for key in redis_cache.scan_iter("cache:1:rl:*")]
    assert counts == [b"2"]


def test_sign_ups_and_resets_are_let_through_when_the_cache_does_not_answer(
    db: None, settings: LazySettings, caplog: pytest.LogCaptureFixture
) -> None:
    """As the API's throttles do: a cache that is down lets the action through (logged)
    rather than answering 500."""
    settings.CACHES = site_caches("redis://127.0.0.1:9/0", broker_url="")  # nobody listens
    response = Client().post(
        "/accounts/signup/",
        {
            "username": "offline",
            "password1": "a-long-pass-phrase",
            "password2": "a-long-pass-phrase",
        },
    )
    assert response.status_code == 302
    assert "signup limit not applied: the cache cannot be reached or read" in caplog.text
    reset = Client().post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert reset.status_code == 302
    assert "password-reset limit not applied" in caplog.text
