"""Outage answers: while the database or the storage is away, the site says so and when to
ask again, instead of a 500 with an HTML error page.

Django's handler for an uncaught exception (``handler500``, :func:`web.api.errors.server_error`)
asks :func:`outage_of` what the exception was: a database that cannot be reached (or whose
connection broke: ``OperationalError``, ``InterfaceError``), or a storage that cannot be
written (a full or read-only disk, an I/O error, an object store that does not answer).
Then it answers 503 with ``Retry-After``: under ``/api/`` in the API's one error shape
(``{"detail": ..., "code": "database_unavailable"}`` or ``"storage_unavailable"``), on the
site's pages a short "back soon" page that needs neither the database nor a session. The
failure itself is logged by Django as any uncaught exception is.
"""

from __future__ import annotations

import errno
from enum import StrEnum
from typing import Final

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string

#: OSError numbers of a storage that cannot take a write now (full, read-only, failing).
STORAGE_ERRNOS: Final = frozenset(
    {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EACCES, errno.EPERM}
)
#: Exception class names of an object store (S3's botocore) that does not answer.
OBJECT_STORE_ERRORS: Final = frozenset(
    {"EndpointConnectionError", "ConnectTimeoutError", "ReadTimeoutError", "ConnectionClosedError"}
)


class Outage(StrEnum):
    """What is away; the value is the API's ``code``."""

    DATABASE = "database_unavailable"
    STORAGE = "storage_unavailable"


MESSAGES: Final = {
    Outage.DATABASE: "the database is unavailable: nothing was changed; try again shortly",
    Outage.STORAGE: "the file storage is unavailable: nothing was stored; try again shortly",
}


def outage_of(error: BaseException | None) -> Outage | None:
    """The outage ``error`` (or an exception it was raised from) shows, if any."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OperationalError | InterfaceError):
            return Outage.DATABASE
        if isinstance(error, OSError) and error.errno in STORAGE_ERRNOS:
            return Outage.STORAGE
        if type(error).__name__ in OBJECT_STORE_ERRORS:
            return Outage.STORAGE
        error = error.__cause__ or error.__context__
    return None


def outage_page(outage: Outage) -> HttpResponse:
    """The site's short "back soon" page (503), rendered without the request: no context
    processor, no session, no user, none of which can be read while the database is away."""
    page = render_to_string("503.html", {"storage": outage is Outage.STORAGE})
    return HttpResponse(page, status=503)


def unavailable(response: HttpResponse) -> HttpResponse:
    """``response`` with ``Retry-After`` and never cached."""
    response["Retry-After"] = str(settings.OUTAGE_RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response
