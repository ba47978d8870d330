"""A request refused before anything was stored or queued (an upload, a challenge, a
tournament entry, a move review): a machine-readable problem code from one vocabulary
(:class:`Problem`), the HTTP status it is answered with (:data:`HTTP_STATUS`), and a message
safe to show the user. The web form shows the message; the API answers with the status and
``{"detail": message, "code": problem}`` (:class:`web.api.errors.Refused`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from http import HTTPStatus


class Problem(StrEnum):
    """Why a request was refused: one code per kind of bad input, the same code for the
    same problem whatever was asked (an upload, a challenge, an entry)."""

    # A bot the request names.
    UNKNOWN_BOT = "unknown_bot"
    FOREIGN_BOT = "foreign_bot"
    NOT_PLAYING = "not_playing"
    GAME_MISMATCH = "game_mismatch"
    # Uploads (web/bots/uploads.py, source_check.py).
    BAD_FILENAME = "bad_filename"
    WRONG_EXTENSION = "wrong_extension"
    EMPTY = "empty"
    TOO_LARGE = "too_large"
    NOT_UTF8 = "not_utf8"
    SYNTAX_ERROR = "syntax_error"
    NO_BOT = "no_bot"
    SEVERAL_BOTS = "several_bots"
    #: ``BOT = ...`` names something that is not one of the file's bot classes.
    BAD_BOT_CHOICE = "bad_bot_choice"
    BAD_BOT_NAME = "bad_bot_name"
    DUPLICATE_NAME = "duplicate_name"
    TOO_MANY_UPLOADS = "too_many_uploads"
    TOO_MANY_BOTS = "too_many_bots"
    DUPLICATE_VERSION = "duplicate_version"
    # Challenges (web/pipeline/kinds/challenge.py).
    DUPLICATE_BOT = "duplicate_bot"
    TABLE_SIZE = "table_size"
    TOO_MANY_CHALLENGES = "too_many_challenges"
    BAD_GAMES = "bad_games"
    # Tournament entries (web/tournaments/entering.py).
    CLOSED = "entries_closed"
    ALREADY_ENTERED = "already_entered"
    UNKNOWN_ENTRY = "unknown_entry"
    # Move reviews (web/reviews/asking.py).
    UNKNOWN_PARTICIPANT = "unknown_participant"
    NOT_REVIEWABLE = "not_reviewable"
    TOO_MANY_REVIEWS = "too_many_reviews"


#: The HTTP status each problem is answered with (400 unless listed).
HTTP_STATUS: Mapping[Problem, HTTPStatus] = {
    Problem.UNKNOWN_BOT: HTTPStatus.NOT_FOUND,
    Problem.UNKNOWN_ENTRY: HTTPStatus.NOT_FOUND,
    Problem.UNKNOWN_PARTICIPANT: HTTPStatus.NOT_FOUND,
    Problem.FOREIGN_BOT: HTTPStatus.FORBIDDEN,
    # In conflict with what the bot, the site or the event is now.
    Problem.NOT_PLAYING: HTTPStatus.CONFLICT,
    Problem.GAME_MISMATCH: HTTPStatus.CONFLICT,
    Problem.DUPLICATE_NAME: HTTPStatus.CONFLICT,
    Problem.DUPLICATE_VERSION: HTTPStatus.CONFLICT,
    Problem.TOO_MANY_BOTS: HTTPStatus.CONFLICT,
    Problem.CLOSED: HTTPStatus.CONFLICT,
    Problem.ALREADY_ENTERED: HTTPStatus.CONFLICT,
    Problem.NOT_REVIEWABLE: HTTPStatus.CONFLICT,
    Problem.TOO_LARGE: HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
    Problem.TOO_MANY_UPLOADS: HTTPStatus.TOO_MANY_REQUESTS,
    Problem.TOO_MANY_CHALLENGES: HTTPStatus.TOO_MANY_REQUESTS,
    Problem.TOO_MANY_REVIEWS: HTTPStatus.TOO_MANY_REQUESTS,
}


class Refusal(Exception):
    """A refusal; each service raises its own subclass, so that its callers catch only
    what it refuses."""

    def __init__(self, problem: Problem, message: str, *, link: str | None = None) -> None:
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
        return HTTP_STATUS.get(self.problem, HTTPStatus.BAD_REQUEST)
