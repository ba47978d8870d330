"""The site's cache: where it lives (never in the broker) and how it stores values (JSON,
never pickle). ``settings.py`` builds ``CACHES`` with :func:`site_caches`.

The broker is a trust boundary: every arena host can write to it. Django's Redis cache
unpickles what it reads, so a cache kept in the broker's database let anyone holding an
arena host's Redis credentials run code in the web server (a pickle planted under the
anonymous throttle key ran on the next anonymous API request). The cache therefore has a
URL of its own, ``CACHE_URL`` (its own database and credentials, which arena hosts do not
hold), is refused when it names the broker's database, and stores JSON, which can only
ever decode to plain data.

Every key starts with :data:`KEY_PREFIX` and a colon (Django writes ``cache:1:<key>``), so
a Redis ACL can confine the site's user to ``~cache:*`` (docs/platform.md).
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.core.exceptions import ImproperlyConfigured

#: The first part of every key the site writes: ``cache:<version>:<key>``.
KEY_PREFIX = "cache"
#: A Redis that does not answer must not hold a request up (throttles fail open, and
#: web/caching.py steps around it).
SOCKET_TIMEOUT_SECONDS = 1
#: The Redis commands the site's cache sends (Django's RedisCache as the site uses it:
#: get, set, add, delete, incr; SELECT for a database other than 0): all a Redis ACL user
#: for the cache needs, on the keys ``cache:*`` (docs/platform.md). FLUSHDB (cache.clear())
#: is for the tests only; the site never empties its cache.
SITE_CACHE_COMMANDS = ("select", "get", "set", "del", "exists", "incrby")
#: The redis-py default port and database, for comparing URLs that leave them out.
_DEFAULT_PORT = 6379
_DEFAULT_DB = 0


class NotJsonError(TypeError):
    """A value the site tried to cache is not plain JSON data: a bug, never stored."""


class UnreadableCacheValue(ValueError):
    """What the cache holds under a key is not JSON (a pickle planted by someone who should
    not write there, or a value of an older release): refused, never decoded otherwise."""


class JsonSerializer:
    """The serializer of Django's ``RedisCache`` (``OPTIONS["serializer"]``): JSON both ways.

    Integers are stored as they are, as Django's own serializer stores them, so that
    ``cache.incr()`` (django-ratelimit's counts) stays one atomic ``INCRBY``. Anything else
    becomes JSON text; a value that is not JSON (a model, a set, NaN) raises
    :class:`NotJsonError` rather than being stored some other way, and bytes that are
    neither an integer nor JSON raise :class:`UnreadableCacheValue`: there is no fallback
    to pickle in either direction.
    """

    def dumps(self, value: object) -> int | bytes:
        # type() and not isinstance(): True must not become the integer 1.
        if type(value) is int:
            return value
        try:
            return json.dumps(value, allow_nan=False, separators=(",", ":")).encode()
        except (TypeError, ValueError) as error:
            raise NotJsonError(
                f"the site caches JSON only, not {type(value).__name__}: {error}"
            ) from error

    def loads(self, data: bytes) -> Any:
        try:
            return int(data)
        except ValueError:
            pass
        try:
            return json.loads(data, parse_constant=_refuse_constant)
        except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
            raise UnreadableCacheValue(f"not JSON ({len(data)} bytes): {error}") from None


def _refuse_constant(name: str) -> float:
    # NaN and Infinity are not JSON, and dumps() never writes them.
    raise ValueError(f"{name} is not JSON")


def _location(url: str) -> tuple[str, int, int]:
    """The Redis server and database a URL names: (host or socket path, port, db)."""
    from redis.connection import parse_url

    try:
        parts: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
    except ValueError as error:
        raise ImproperlyConfigured(f"not a Redis URL: {error}") from None
    where = str(parts.get("path") or parts.get("host") or "localhost").lower()
    port = 0 if parts.get("path") else int(parts.get("port") or _DEFAULT_PORT)
    return where, port, int(parts.get("db") or _DEFAULT_DB)


def site_caches(cache_url: str, *, broker_url: str) -> dict[str, dict[str, Any]]:
    """``CACHES`` for ``CACHE_URL`` (Redis, JSON) or, without one, the local-memory cache;
    the broker's URL only to refuse a cache in the broker's database."""
    if not cache_url:
        # One process's memory: nothing outside it can write there. Never the broker.
        return {
            "default": {
                "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "KEY_PREFIX": KEY_PREFIX,
            }
        }
    # RedisCache takes several servers, split as it splits them (the first written, the
    # others read): none may be the broker's database.
    try:
        cache_locations = [_location(url) for url in re.split("[;,]", cache_url)]
    except ImproperlyConfigured as error:
        raise ImproperlyConfigured(f"CACHE_URL is {error}") from None
    if broker_url:
        try:
            broker = _location(broker_url)
        except ImproperlyConfigured as error:
            raise ImproperlyConfigured(f"REDIS_URL is {error}") from None
        if broker in cache_locations:
            host, port, db = broker
            raise ImproperlyConfigured(
                f"CACHE_URL names the broker's Redis database ({host}:{port}, db {db}), which"
                " every arena host can write: give the site's cache a database (and"
                " credentials) of its own, e.g. redis://site:PASSWORD@redis:6379/1"
            )
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": cache_url,
            "KEY_PREFIX": KEY_PREFIX,
            "OPTIONS": {
                "serializer": "web.cache_backend.JsonSerializer",
                "socket_connect_timeout": SOCKET_TIMEOUT_SECONDS,
                "socket_timeout": SOCKET_TIMEOUT_SECONDS,
            },
        }
    }
