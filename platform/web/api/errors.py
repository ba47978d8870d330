"""Domain errors as API errors with their HTTP status and a machine-readable code."""

from __future__ import annotations

from typing import Any

from rest_framework import views
from rest_framework.exceptions import APIException, ErrorDetail
from rest_framework.response import Response

from web.refusals import Refusal


class Refused(APIException):
    """A :class:`~web.refusals.Refusal` (an upload's, a challenge's) answered with its
    status (400, 403, 404, 409, 413, 429) and its problem as the ``code``."""

    def __init__(self, error: Refusal) -> None:
        self.status_code = int(error.http_status)
        super().__init__(detail=error.message, code=error.problem.value)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus a machine-readable ``code`` beside every ``detail``
    (``too_many_uploads``, ``not_authenticated``...)."""
    response = views.exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict):
        detail = response.data.get("detail")
        if isinstance(detail, ErrorDetail):
            response.data["code"] = detail.code
    return response
