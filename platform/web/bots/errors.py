"""Why an upload was refused: one code per kind of bad input, one clear message each."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from http import HTTPStatus

from web.refusals import Refusal


class UploadProblem(StrEnum):
    BAD_FILENAME = "bad_filename"
    WRONG_EXTENSION = "wrong_extension"
    EMPTY = "empty"
    TOO_LARGE = "too_large"
    NOT_UTF8 = "not_utf8"
    SYNTAX_ERROR = "syntax_error"
    NO_BOT = "no_bot"
    SEVERAL_BOTS = "several_bots"
    BAD_BOT_NAME = "bad_bot_name"
    DUPLICATE_NAME = "duplicate_name"
    UNKNOWN_BOT = "unknown_bot"
    GAME_MISMATCH = "game_mismatch"
    FOREIGN_BOT = "foreign_bot"
    TOO_MANY_UPLOADS = "too_many_uploads"
    TOO_MANY_BOTS = "too_many_bots"
    DUPLICATE_VERSION = "duplicate_version"


#: The HTTP status each problem is answered with (400 unless listed).
HTTP_STATUS: Mapping[str, HTTPStatus] = {
    UploadProblem.TOO_LARGE: HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
    UploadProblem.DUPLICATE_NAME: HTTPStatus.CONFLICT,
    UploadProblem.GAME_MISMATCH: HTTPStatus.CONFLICT,
    UploadProblem.UNKNOWN_BOT: HTTPStatus.NOT_FOUND,
    UploadProblem.FOREIGN_BOT: HTTPStatus.FORBIDDEN,
    UploadProblem.TOO_MANY_UPLOADS: HTTPStatus.TOO_MANY_REQUESTS,
    UploadProblem.TOO_MANY_BOTS: HTTPStatus.CONFLICT,
    UploadProblem.DUPLICATE_VERSION: HTTPStatus.CONFLICT,
}


class UploadError(Refusal):
    """An upload refused before anything was stored. ``message`` is safe to show to the
    uploader: it never quotes the source beyond what the uploader sent."""

    statuses = HTTP_STATUS
