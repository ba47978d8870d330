"""The contract of a move review between the platform and the arena (the site's "Review" of
one participant's decisions in a match): a :class:`ReviewJob` says which games to review and
how, a :class:`ReviewResult` carries what :func:`cucumbers.review.review_json` made of each.
Both travel as JSON through the broker, signed (:mod:`arena.signing`: the job by the
platform for :attr:`~arena.signing.Purpose.REVIEW_JOB`, the result by the arena host for
:attr:`~arena.signing.Purpose.REVIEW_RESULT`), and are validated strictly on both ends, as
the match contract's messages are (:mod:`arena.contract`).

A job carries each game's public replay (the review needs the moves and the seed, never a
bot's private output) and the reviewed participant's seat in it: the worker runs no bot and
needs no storage. ``attempt`` is the platform's claim on the review, echoed by the result:
only the result of the attempt the review waits for is recorded.

No Django here: the arena worker reads it, and so does the platform.
"""

from __future__ import annotations

import uuid
from enum import StrEnum
from typing import Annotated, Any, Final, Literal, Self, TypeVar

from pydantic import ConfigDict, Field, ValidationError, model_validator

from .contract import MAX_GAMES, ContractError, Count, Name, Seed, _Message

JOB_SCHEMA: Final = "cucumbers-review-job/1"
RESULT_SCHEMA: Final = "cucumbers-review-result/1"
#: The most deals per decision a job may ask for (the SDK's default is 1000).
MAX_DEALS: Final = 20_000


class ReviewGame(_Message):
    """One game to review: its number in the match, the reviewed seat and its replay."""

    number: Annotated[int, Field(ge=1)]
    seat: Count
    replay: dict[str, Any]


class ReviewJob(_Message):
    """Review ``participant``'s decisions in ``games`` of ``match``, each with ``deals``
    deals per decision from ``seed`` (deterministic for these)."""

    schema_: Literal["cucumbers-review-job/1"] = Field(JOB_SCHEMA, alias="schema")
    review: Annotated[int, Field(ge=1)]
    attempt: uuid.UUID
    match: Annotated[int, Field(ge=1)]
    participant: Count
    seed: Seed
    deals: Annotated[int, Field(ge=2, le=MAX_DEALS)]
    games: Annotated[tuple[ReviewGame, ...], Field(min_length=1, max_length=MAX_GAMES)]

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _distinct_games(self) -> Self:
        numbers = [game.number for game in self.games]
        if len(set(numbers)) != len(numbers):
            raise ValueError("each game once")
        return self


class ReviewStatus(StrEnum):
    """``done``: every game reviewed. ``failed``: none recorded (``reason`` says why: a
    replay this engine cannot rebuild, the time limit)."""

    DONE = "done"
    FAILED = "failed"


class ReviewedGame(_Message):
    """One game's review: the SDK's ``cucumbers-review/1`` object (``review_json``)."""

    number: Annotated[int, Field(ge=1)]
    seat: Count
    review: dict[str, Any]


class ReviewResult(_Message):
    """What became of a review job: ``worker`` reviewed it, in ``seconds``."""

    schema_: Literal["cucumbers-review-result/1"] = Field(RESULT_SCHEMA, alias="schema")
    review: Annotated[int, Field(ge=1)]
    attempt: uuid.UUID
    worker: Name
    status: ReviewStatus
    reason: Annotated[str, Field(max_length=2000)] = ""
    games: tuple[ReviewedGame, ...] = ()
    seconds: Annotated[float, Field(ge=0)] = 0.0

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.status is ReviewStatus.DONE and not self.games:
            raise ValueError("a done review has its games")
        if self.status is ReviewStatus.FAILED and (self.games or not self.reason):
            raise ValueError("a failed review says why, and has no games")
        return self


def dump(message: ReviewJob | ReviewResult) -> str:
    """The message as the JSON text that travels."""
    return message.model_dump_json(by_alias=True)


_Model = TypeVar("_Model", ReviewJob, ReviewResult)


def _load(model: type[_Model], text: str | bytes) -> _Model:
    try:
        return model.model_validate_json(text)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc']) or 'message'}: {problem['msg']}"
            for problem in error.errors()
        )
        raise ContractError(f"not a valid {model.__name__}: {problems}") from None


def load_review_job(text: str | bytes) -> ReviewJob:
    """A review job from its JSON text; raises :class:`~arena.contract.ContractError`."""
    return _load(ReviewJob, text)


def load_review_result(text: str | bytes) -> ReviewResult:
    """A review result from its JSON text; raises :class:`~arena.contract.ContractError`."""
    return _load(ReviewResult, text)
