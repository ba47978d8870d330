"""The API's pages: ``page`` (from 1) and ``page_size`` (1 to :data:`MAX_PAGE_SIZE`) are
checked, and junk is a 400 in the one error shape, never quietly the first page or the
default size. A page past the last is a 404, as DRF says it."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

from .bounds import MAX_PAGE_SIZE


def whole_number(request: Request, name: str, low: int, high: int | None = None) -> int | None:
    """The query parameter ``name`` as a whole number from ``low`` (to ``high``), or
    ``None`` when absent; anything else raises a 400 that names the parameter."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    value = None
    if raw.isascii() and raw.lstrip("-").isdigit():
        try:
            value = int(raw)
        except ValueError:  # more digits than Python converts
            value = None
    if value is None or value < low or (high is not None and value > high):
        expected = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise ValidationError({name: [f"A whole number {expected} is expected, not {raw[:40]!r}."]})
    return value


class Pages(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    last_page_strings = ()  # "last" is not a number: the schema says page is an integer

    def get_page_size(self, request: Request) -> int:
        size = whole_number(request, "page_size", 1, MAX_PAGE_SIZE)
        return size if size is not None else (self.page_size or 0)  # 0: no pages, as DRF

    def get_page_number(self, request: Request, paginator: Paginator[Any]) -> int:
        number = whole_number(request, "page", 1)
        return 1 if number is None else number

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        bounds = {
            "page": {"minimum": 1},
            "page_size": {"minimum": 1, "maximum": MAX_PAGE_SIZE, "default": self.page_size},
        }
        for parameter in parameters:
            parameter["schema"].update(bounds.get(parameter["name"], {}))
        return parameters
