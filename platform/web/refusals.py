"""A request refused before anything was stored or queued (an upload, a challenge): a
machine-readable problem code, the HTTP status it is answered with, and a message safe to
show the user. The web form shows the message; the API answers with the status and
``{"detail": message, "code": problem}`` (:class:`web.api.errors.Refused`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from http import HTTPStatus
from typing import ClassVar


class Refusal(Exception):
    """Subclasses name their problems' HTTP statuses in :attr:`statuses` (400 unless
    listed)."""

    statuses: ClassVar[Mapping[str, HTTPStatus]] = {}

    def __init__(self, problem: StrEnum, message: str, *, link: str | None = None) -> None:
        text = message if link is None else f"{message}; see {link}"
        super().__init__(text)
        self.problem = problem
        #: What to show: the message, and the link's path when there is one.
        self.message = text
        #: A page of the site the message points to (a path), or ``None``.
        self.link = link
        self._without_link = message

    def message_linking(self, absolute: Callable[[str], str]) -> str:
        """The message with its link made absolute by ``absolute`` (an API answer's: its
        client reads it away from the site, where a path leads nowhere)."""
        if self.link is None:
            return self.message
        return f"{self._without_link}; see {absolute(self.link)}"

    @property
    def http_status(self) -> HTTPStatus:
        return self.statuses.get(self.problem, HTTPStatus.BAD_REQUEST)
