"""The API's errors: one shape for every refusal under ``/api/``,
``{"detail": ..., "code": ...}``, with ``fields`` beside them when a body or query
parameters do not validate. Domain refusals keep their own status and code (:class:`Refused`);
an address the API does not have (a malformed id, an unknown path) is a JSON 404, never the
site's HTML page."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import status, views
from rest_framework.exceptions import (
    APIException,
    ErrorDetail,
    UnsupportedMediaType,
    ValidationError,
)
from rest_framework.request import Request
from rest_framework.response import Response

from web.outages import MESSAGES as OUTAGE_MESSAGES
from web.outages import outage_of, outage_page, unavailable
from web.refusals import Refusal

#: The prefix of the API's paths, whose errors are JSON whichever view (or none) answers.
API_PREFIX = "/api/"
#: The ``code`` of a body or query that does not validate; ``fields`` says where.
INVALID = "invalid"
#: JSON as DRF writes it, for the answers Django's handlers give.
COMPACT = {"separators": (",", ":")}


class Refused(APIException):
    """A :class:`~web.refusals.Refusal` (an upload's, a challenge's) answered with its
    status (400, 403, 404, 409, 413, 429) and its problem as the ``code``; a link in its
    message is an absolute URL of the site that answers ``request``."""

    def __init__(self, error: Refusal, request: Request) -> None:
        self.status_code = int(error.http_status)
        detail = error.message_linking(request.build_absolute_uri)
        super().__init__(detail=detail, code=error.problem.value)


def _flattened(errors: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(field, message)`` pairs of DRF's nested errors; a list's items as ``name.0``."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            yield from _flattened(value, name)
    elif isinstance(errors, list):
        if all(isinstance(item, str) for item in errors):
            for item in errors:
                yield prefix, str(item)
        else:
            for index, value in enumerate(errors):
                yield from _flattened(value, f"{prefix}.{index}" if prefix else str(index))
    else:
        yield prefix, str(errors)


def invalid_body(errors: Any) -> dict[str, Any]:
    """The one shape for DRF's field errors: every message in ``detail`` (``field: message``,
    joined by ``;``), and the messages by field (``opponents.0``...) in ``fields``."""
    fields: dict[str, list[str]] = {}
    for name, message in _flattened(errors):
        fields.setdefault(name or "non_field_errors", []).append(message)
    detail = "; ".join(
        message if name == "non_field_errors" else f"{name}: {message}"
        for name, messages in fields.items()
        for message in messages
    )
    return {"detail": detail or "the request does not validate", "code": INVALID, "fields": fields}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, each answer in the one shape: ``detail`` and a machine-readable
    ``code`` (``too_many_uploads``, ``not_authenticated``, ``invalid``...)."""
    response = views.exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    if isinstance(exc, ValidationError):
        response.data = invalid_body(data)
    elif isinstance(data, dict) and isinstance(data.get("detail"), ErrorDetail):
        response.data = {"detail": str(data["detail"]), "code": data["detail"].code}
        if isinstance(exc, UnsupportedMediaType) and "view" in context:
            # Say what the operation takes: its one content type.
            taken = " or ".join(p.media_type for p in context["view"].get_parsers())
            response.data["detail"] += f" This operation takes {taken}."
    else:  # an APIException raised with a list or a dict: its messages, as field errors
        response.data = invalid_body(data) | {"code": getattr(exc, "default_code", "error")}
    return response


def _under_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The site's 404 (``handler404``): JSON under ``/api/``, the HTML page elsewhere."""
    if _under_api(request):
        return JsonResponse(
            {
                # An absolute link, as the refusals' (a client away from the site has no base).
                "detail": f"{request.path} is no address of the API"
                f" (see {request.build_absolute_uri(API_PREFIX + 'docs/')})",
                "code": "not_found",
            },
            status=status.HTTP_404_NOT_FOUND,
            json_dumps_params=COMPACT,
        )
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The site's 400 (``handler400``: a request Django itself refuses), JSON under ``/api/``."""
    if _under_api(request):
        return JsonResponse(
            {"detail": "bad request", "code": "bad_request"},
            status=status.HTTP_400_BAD_REQUEST,
            json_dumps_params=COMPACT,
        )
    return defaults.bad_request(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """The site's 500 (``handler500``), JSON under ``/api/``; a 503 with ``Retry-After``
    when the failure is an outage of the database or the storage (:mod:`web.outages`).
    Django calls it while handling the exception, which ``sys.exc_info`` then holds."""
    outage = outage_of(sys.exc_info()[1])
    if outage is not None:
        if not _under_api(request):
            return unavailable(outage_page(outage))
        body = {"detail": OUTAGE_MESSAGES[outage], "code": outage.value}
        return unavailable(
            JsonResponse(
                body, status=status.HTTP_503_SERVICE_UNAVAILABLE, json_dumps_params=COMPACT
            )
        )
    if _under_api(request):
        return JsonResponse(
            {"detail": "server error: the failure is logged", "code": "server_error"},
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
            json_dumps_params=COMPACT,
        )
    return defaults.server_error(request)
