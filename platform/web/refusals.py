"""A request refused before anything was stored or queued (an upload, a challenge): a
machine-readable problem code, the HTTP status it is answered with, and a message safe to
show the user. The web form shows the message; the API answers with the status and
``{"detail": message, "code": problem}`` (:class:`web.api.errors.Refused`)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from http import HTTPStatus
from typing import ClassVar


class Refusal(Exception):
    """Subclasses name their problems' HTTP statuses in :attr:`statuses` (400 unless
    listed)."""

    statuses: ClassVar[Mapping[str, HTTPStatus]] = {}

    def __init__(self, problem: StrEnum, message: str) -> None:
        super().__init__(message)
        self.problem = problem
        self.message = message

    @property
    def http_status(self) -> HTTPStatus:
        return self.statuses.get(self.problem, HTTPStatus.BAD_REQUEST)
