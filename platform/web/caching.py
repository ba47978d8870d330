"""What the heavy pages keep in the cache (Redis in production), and for how long.

Only what can be named by what it depends on, or what may honestly lag a little:

- a bot page's charts and its versions' figures (``web.pages.bot_page``): keyed by the
  bot's tallies (rated games, wins, rating), which every recorded rated game changes in the
  same transaction as the history they are drawn from, so a new game is never hidden. What
  can lag, for ``BOT_STATS_SECONDS`` (10 minutes) at most: the names of the head-to-head
  opponents (a deleted opponent stays listed until then);
- the number of matches of the match list (``web.matches.views``, a minute): only the
  "page 3 of 4,000" and where the last page is lag; the rows are read live.

A cache that does not answer is stepped around (the value is computed, a warning logged):
the pages never fail because Redis does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar, cast

from django.core.cache import cache

logger = logging.getLogger(__name__)
T = TypeVar("T")

_MISSING = object()


def remembered(key: str, seconds: int, compute: Callable[[], T]) -> T:
    """``compute()``, through the cache under ``key`` for ``seconds``."""
    try:
        value = cache.get(key, _MISSING)
    except Exception as error:  # the cache is down: the page is still served
        logger.warning("cache unavailable (%s): %s", key, error)
        return compute()
    if value is not _MISSING:
        return cast(T, value)
    value = compute()
    try:
        cache.set(key, value, seconds)
    except Exception as error:
        logger.warning("cache unavailable (%s): %s", key, error)
    return value
