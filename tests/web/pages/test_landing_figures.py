"""The landing page's live figures go through the site's cache for a few seconds: a crowd
on the landing page counts them once, not four counts a visit; what is kept is JSON, read
back checked, and a cache that does not answer is stepped around."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis
from django.conf import LazySettings
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.web.cache_helpers import CACHE_URL, empty_database, use_site_cache
from tests.web.factories import MatchFactory, active_bot
from web.matches.models import MatchStatus
from web.pages.landing import (
    LIVE_FIGURES_KEY,
    LIVE_FIGURES_SECONDS,
    LiveFigures,
    count_live_figures,
    live_figures,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_cache(settings: LazySettings) -> Iterator[redis.Redis]:
    """The site's cache in a Redis database of the tests' own (as with ``CACHE_URL``)."""
    use_site_cache(settings, CACHE_URL)
    yield from empty_database(CACHE_URL)


def figures_on(page: str) -> list[str]:
    start = page.index('<dl class="live-figures"')
    return [part.split("<")[0] for part in page[start:].split("<dd>")[1:5]]


def test_the_figures_are_counted_once_then_read_from_the_cache(redis_cache: redis.Redis) -> None:
    active_bot()
    MatchFactory(status=MatchStatus.QUEUED)
    with CaptureQueriesContext(connection) as first:
        assert live_figures() == LiveFigures(bots=1, games_today=0, queued=1, playing=0)
    assert len(first.captured_queries) == 4
    stored = redis_cache.get(f"cache:1:{LIVE_FIGURES_KEY}")
    assert stored is not None and json.loads(stored) == [1, 0, 1, 0]
    assert 0 < redis_cache.ttl(f"cache:1:{LIVE_FIGURES_KEY}") <= LIVE_FIGURES_SECONDS
    MatchFactory(status=MatchStatus.QUEUED)
    with CaptureQueriesContext(connection) as second:
        assert live_figures().queued == 1  # a few seconds old, as promised
    assert len(second.captured_queries) == 0
    assert count_live_figures().queued == 2  # what the next one counts
    cache.delete(LIVE_FIGURES_KEY)  # as the key's expiry would
    assert live_figures().queued == 2


def test_the_landing_page_shows_the_kept_figures(client: Client, redis_cache: redis.Redis) -> None:
    MatchFactory(status=MatchStatus.RUNNING)
    assert figures_on(client.get("/").content.decode()) == ["0", "0", "0", "1"]
    MatchFactory(status=MatchStatus.RUNNING)
    assert figures_on(client.get("/").content.decode()) == ["0", "0", "0", "1"]


def test_a_kept_value_of_another_shape_is_counted_again(redis_cache: redis.Redis) -> None:
    MatchFactory(status=MatchStatus.QUEUED)
    redis_cache.set(f"cache:1:{LIVE_FIGURES_KEY}", json.dumps([1, 2, "lots", 4]))
    assert live_figures().queued == 1
    stored = redis_cache.get(f"cache:1:{LIVE_FIGURES_KEY}")
    assert stored is not None and json.loads(stored) == [0, 0, 1, 0]
