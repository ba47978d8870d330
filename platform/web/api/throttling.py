"""The API's rate limits, counted in the cache (Redis in production), that fail open: when
the cache cannot be reached, requests are let through (and the outage logged) instead of
every API request answering 500. The limits guard against floods, not against a cache that
is down; the uploads' own quota is counted in the database and still holds. A history the
cache holds that is not JSON (web/cache_backend.py refuses it) is counted afresh."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from web.cache_backend import UnreadableCacheValue

if TYPE_CHECKING:  # DRF imports its throttles from rest_framework.views: no cycle at run time
    from rest_framework.request import Request
    from rest_framework.views import APIView

logger = logging.getLogger(__name__)

#: At most one log line per this many seconds while the cache is down.
LOG_EVERY_SECONDS = 60.0
_last_logged = 0.0


class FailOpen(SimpleRateThrottle):
    """A rate throttle that lets the request through when its cache fails."""

    def allow_request(self, request: Request, view: APIView) -> bool:
        global _last_logged
        try:
            try:
                return super().allow_request(request, view)
            except UnreadableCacheValue as error:
                # Never written by the site: dropped, and this request counted afresh.
                logger.warning("rate limit history refused (%s): %s", self.key, error)
                self.cache.delete(self.key)
                return super().allow_request(request, view)
        except Exception as error:  # redis.ConnectionError, TimeoutError, ...
            now = time.monotonic()
            if now - _last_logged >= LOG_EVERY_SECONDS:
                _last_logged = now
                logger.warning(
                    "rate limits not applied: the cache cannot be reached (%s: %s)",
                    type(error).__name__,
                    error,
                )
            return True


class FailOpenAnonRateThrottle(FailOpen, AnonRateThrottle):
    """DRF's per-address limit for anonymous requests, failing open."""


class FailOpenUserRateThrottle(FailOpen, UserRateThrottle):
    """DRF's per-user limit, failing open."""
