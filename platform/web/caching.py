"""What the heavy pages keep in the cache (Redis in production), and for how long.

Only what can be named by what it depends on, or what may honestly lag a little:

- a bot page's chart data and its versions' figures (``web.pages.bot_page``): keyed by the
  bot's tallies (rated games, wins, rating), which every recorded rated game changes in the
  same transaction as the history they are drawn from, so a new game is never hidden. What
  can lag, for ``BOT_STATS_SECONDS`` (10 minutes) at most: the names of the head-to-head
  opponents (a deleted opponent stays listed until then);
- the number of matches of the match list (``web.matches.views``, a minute): only the
  "page 3 of 4,000" and where the last page is lag; the rows are read live;
- the landing page's live figures (``web.pages.landing``, 15 seconds): bots playing, games
  today, matches queued and playing, each at most that old.

What is kept is plain data, never markup: each value goes through a :class:`Codec` that
turns it into JSON and reads it back, checking its shape, and the page is rendered from
what was read (escaped like any other data). A computed value takes the same round trip
before it is used, so a page drawn from the cache and one drawn afresh are the same page,
and a value that is not JSON fails every test that computes it, whatever the cache. What
the cache holds that is not JSON (``web.cache_backend`` refuses it) or not of the shape its
reader expects is a miss: computed again and written over.

A cache that does not answer is stepped around (the value is computed, a warning logged):
the pages never fail because Redis does.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar

from django.core.cache import cache

from web.cache_backend import UnreadableCacheValue

logger = logging.getLogger(__name__)
T = TypeVar("T")

#: What JSON decodes to.
Json: TypeAlias = bool | int | float | str | list["Json"] | dict[str, "Json"] | None

_MISSING = object()


class WrongShape(ValueError):
    """A cached value decoded as JSON but is not what its reader expects."""


@dataclass(frozen=True)
class Codec(Generic[T]):
    """How one kind of value is kept: ``encode`` makes plain JSON data of it, ``decode``
    reads that back and raises :class:`WrongShape` (or another ``ValueError``) on anything
    it did not write."""

    encode: Callable[[T], Json]
    decode: Callable[[Json], T]


def remembered(key: str, seconds: int, compute: Callable[[], T], codec: Codec[T]) -> T:
    """``compute()``, through the cache under ``key`` for ``seconds``."""
    try:
        stored = cache.get(key, _MISSING)
    except UnreadableCacheValue as error:
        logger.warning("cache value refused (%s), computed again: %s", key, error)
        stored = _MISSING
    except Exception as error:  # the cache is down: the page is still served
        logger.warning("cache unavailable (%s): %s", key, error)
        return _round_trip(compute(), codec)
    if stored is not _MISSING:
        try:
            return codec.decode(stored)
        except (ValueError, TypeError) as error:
            logger.warning("cache value refused (%s), computed again: %s", key, error)
    data = codec.encode(compute())
    value = codec.decode(json.loads(_json(data)))
    try:
        cache.set(key, data, seconds)
    except Exception as error:
        logger.warning("cache unavailable (%s): %s", key, error)
    return value


def _json(data: Json) -> str:
    # Raises on anything that is not JSON: a bug of the codec, never hidden as an outage.
    return json.dumps(data, allow_nan=False)


def _round_trip(value: T, codec: Codec[T]) -> T:
    return codec.decode(json.loads(_json(codec.encode(value))))


# --- reading cached data back: each check raises WrongShape ---------------------------


def whole(value: Json) -> int:
    """An integer (not a bool)."""
    if type(value) is not int:
        raise WrongShape(f"expected an integer, found {type(value).__name__}")
    return value


def number(value: Json) -> float:
    """A finite number, integer or not (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise WrongShape(f"expected a number, found {type(value).__name__}")
    return float(value)


def text(value: Json) -> str:
    if not isinstance(value, str):
        raise WrongShape(f"expected text, found {type(value).__name__}")
    return value


def items(value: Json, length: int | None = None) -> list[Json]:
    """A list, of exactly ``length`` items when given."""
    if not isinstance(value, list):
        raise WrongShape(f"expected a list, found {type(value).__name__}")
    if length is not None and len(value) != length:
        raise WrongShape(f"expected {length} items, found {len(value)}")
    return value


def optional(read: Callable[[Json], T], value: Json) -> T | None:
    return None if value is None else read(value)


#: A whole number kept as it is (the match list's count).
COUNT: Codec[int] = Codec(encode=lambda count: count, decode=whole)
