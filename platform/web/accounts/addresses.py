"""Who a request comes from, as the log-in lockout counts clients: the address the last of
our ``TRUSTED_PROXIES`` proxies saw (its entry in X-Forwarded-For), or ``REMOTE_ADDR`` when
no proxy is trusted. The same rule as the API's rate limit (DRF's ``NUM_PROXIES``), so a
forged header buys no fresh attempts."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    remote = str(request.META.get("REMOTE_ADDR", ""))
    proxies = settings.TRUSTED_PROXIES
    if proxies <= 0:
        return remote
    forwarded = [
        part.strip() for part in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",")
    ]
    forwarded = [part for part in forwarded if part]
    if not forwarded:
        return remote
    return forwarded[-min(proxies, len(forwarded))]
