"""Hourly limits per client on what anyone may do without an account (create one, ask for a
password reset), counted in the cache by django-ratelimit. The client is told apart as the
log-in lockout does (:func:`~web.accounts.addresses.client_ip`), so a forged
X-Forwarded-For buys no fresh allowance. Like the API's rate limits (web/api/throttling.py),
they fail open: a cache that does not answer, or holds a count that is not a number, lets
the action through (logged) rather than failing the page."""

from __future__ import annotations

import logging

from django.http import HttpRequest
from django_ratelimit.core import is_ratelimited

from .addresses import client_ip

logger = logging.getLogger(__name__)


def _client(group: str, request: HttpRequest) -> str:
    return client_ip(request)


def spend(request: HttpRequest, group: str, per_hour: int) -> bool:
    """Count one more ``group`` action of this request's client: False once that makes
    more than ``per_hour`` in the current hour (the action must then be refused)."""
    try:
        limited = is_ratelimited(
            request, group=group, key=_client, rate=f"{per_hour}/h", increment=True
        )
    except Exception as error:  # redis.ConnectionError; ResponseError: INCR of a non-number
        logger.warning(
            "%s limit not applied: the cache cannot be reached or read (%s: %s)",
            group,
            type(error).__name__,
            error,
        )
        return True
    return not limited
