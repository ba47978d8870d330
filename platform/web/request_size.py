"""Refuse a request body larger than anything the site accepts before a byte of it is read.

Django parses a multipart body into temporary files as it arrives: without this, a 100 MB
"bot" is read and written to disk before the upload's 256 KB check refuses it. The largest
legitimate body is an upload of ``UPLOAD_MAX_BYTES`` plus its form fields and multipart
framing (:data:`FRAMING_BYTES`). A body without a Content-Length (chunked) is read by Django
as empty, so the declared length is the whole story."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

#: Room for the form fields, file headers and boundaries of an upload.
FRAMING_BYTES = 64 * 1024


def largest_body() -> int:
    return int(settings.UPLOAD_MAX_BYTES) + FRAMING_BYTES


class RequestSizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0  # Django reads such a body as empty too
        if declared > largest_body():
            return self.refuse(request, declared)
        return self.get_response(request)

    @staticmethod
    def refuse(request: HttpRequest, declared: int) -> HttpResponse:
        limit = settings.UPLOAD_MAX_BYTES
        message = (
            f"the request is {declared / 1024:.0f} KB; a bot file may be at most"
            f" {limit / 1024:.0f} KB"
        )
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse(
                {"detail": message, "code": "too_large"}, status=413
            )
        else:
            response = render(request, "413.html", {"message": message}, status=413)
        # The unread body is still on the connection: do not try to reuse it.
        response["Connection"] = "close"
        return response
