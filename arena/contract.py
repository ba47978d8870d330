"""The arena's contract with the platform: a :class:`MatchJob` says what to play, a
:class:`MatchReport` says what happened. Both travel as JSON through the broker, carry their
schema's name and version, and are validated strictly on both ends (unknown fields, wrong
types and impossible values are refused with a :class:`ContractError` naming the field), so
a worker and a site of different releases fail loudly instead of misreading each other.

Nothing here knows Django: a worker on another host needs only this, the SDK and a sandbox.

A job carries each seat's whole source (bots are small files, capped at upload) with its
SHA-256, which the worker checks before it plays: the worker needs no storage credentials,
and a job cannot be played with a source other than the one the platform queued.

A job, a ``started`` message and a report travel signed (:mod:`arena.signing`): the job by
the platform, the others by the arena host that played it. The attempt id is no secret: it
names the attempt, and the signatures say who speaks.

A report's faults say by a field, never by their wording, whether the bot or the
infrastructure caused them; a report whose ``status`` is ``infrastructure_error`` counts for
nothing (the platform retries the match) and charges no bot.
"""

from __future__ import annotations

import hashlib
import uuid
from enum import StrEnum
from typing import Annotated, Any, Final, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cucumbers.faults import Fault, FaultKind
from cucumbers.games import rules_for
from cucumbers.match import SEED_BITS, GameOutcome
from cucumbers.move_output import (
    GAME_MOVE_OUTPUT_CHARS,
    MOVE_OUTPUT_CHARS,
    MOVE_OUTPUT_LINES,
    MoveOutput,
)
from cucumbers.runners.base import Limits
from cucumbers.tracebacks import (
    HEAD_FRAMES,
    MAX_CODE_CHARS,
    MAX_EXCEPTION_CHARS,
    MAX_NAME_CHARS,
    TAIL_FRAMES,
    BotTraceback,
    Frame,
)

JOB_SCHEMA: Final = "cucumbers-match-job/1"
REPORT_SCHEMA: Final = "cucumbers-match-report/1"
STARTED_SCHEMA: Final = "cucumbers-match-started/1"
#: Largest source a job may carry (the platform's upload limit is below it).
MAX_SOURCE_CHARS = 1_000_000
#: Most games a job may ask for.
MAX_GAMES = 200

Seed = Annotated[int, Field(ge=0, lt=2**SEED_BITS)]
Count = Annotated[int, Field(ge=0)]
Name = Annotated[str, Field(min_length=1, max_length=100)]


class ContractError(ValueError):
    """A job or report that does not follow its schema; the message names what is wrong."""


class _Message(BaseModel):
    # Strict: "5" is not 5 and 1 is not True; extra fields are refused, not ignored.
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class MatchKind(StrEnum):
    """Why a match is played: each kind has its own policy on the platform and its own
    urgency on the broker (a new upload's verdict is awaited by a person)."""

    VALIDATION = "validation"
    LADDER = "ladder"
    CHALLENGE = "challenge"
    TOURNAMENT = "tournament"


class JobLimits(_Message):
    """The time limits of every bot of the match (resource limits are the worker's)."""

    move_seconds: Annotated[float, Field(gt=0, le=60)]
    bank_seconds: Annotated[float, Field(ge=0, le=600)]
    startup_seconds: Annotated[float, Field(gt=0, le=120)]

    def limits(self) -> Limits:
        return Limits(
            move_seconds=self.move_seconds,
            bank_seconds=self.bank_seconds,
            startup_seconds=self.startup_seconds,
        )


class JobSeat(_Message):
    """One bot of the match (its index in ``MatchJob.seats`` is its index in the match's
    bot list): a built-in bot, or an uploaded source with its digest.

    ``filename`` is the author's file name: the bot runs from a file of that name, so its
    crash details name the author's file, not the sandbox's. ``bot`` and ``version`` are
    the platform's ids, written into the replay's player entry.
    """

    name: Name
    builtin: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]{0,39}$")] | None = None
    source: Annotated[str, Field(max_length=MAX_SOURCE_CHARS)] | None = None
    filename: Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.py$")] = "bot.py"
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    bot: int | None = None
    version: int | None = None

    @model_validator(mode="after")
    def _one_kind_of_bot(self) -> Self:
        if (self.builtin is None) == (self.source is None):
            raise ValueError("a seat is either a builtin or a source, exactly one of them")
        if self.source is not None:
            if self.sha256 is None:
                raise ValueError("a source comes with its sha256")
            if hashlib.sha256(self.source.encode()).hexdigest() != self.sha256:
                raise ValueError("the source does not match its sha256")
        return self

    def player_info(self) -> dict[str, int]:
        """What the replay's player entry says of this bot beyond its seat and name."""
        info = {"bot": self.bot, "version": self.version}
        return {key: value for key, value in info.items() if value is not None}


class MatchJob(_Message):
    """What to play: ``games`` games of ``game`` from ``seed`` between ``seats``, each game's
    deal and seating from the SDK's ``game_plan``. ``duplicate`` with a ``rotation``: this
    match plays that seat rotation of deals 1..``games``, and the other rotations are other
    matches (fresh bot processes: no bot sees a deal twice); ``duplicate`` without one (never
    sent by the platform: ``python -m arena match`` on one's desk) plays every rotation of
    each deal in this match, so ``games`` is a multiple of the number of seats. ``attempt`` is the
    platform's claim on the match: the report echoes it, and only the attempt that holds
    the match is recorded.

    ``stop_after_fault_of``: bot indexes whose first fault ends the series after that game
    (validation stops at the first fault of the version it judges).
    """

    schema_: Literal["cucumbers-match-job/1"] = Field(JOB_SCHEMA, alias="schema")
    match: Annotated[int, Field(ge=1)]
    attempt: uuid.UUID
    kind: MatchKind
    game: str
    seed: Seed
    games: Annotated[int, Field(ge=1, le=MAX_GAMES)]
    limits: JobLimits
    seats: tuple[JobSeat, ...]
    stop_after_fault_of: tuple[Count, ...] = ()
    duplicate: bool = False
    rotation: Count | None = None

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _playable(self) -> Self:
        try:
            rules_for(self.game).check_players(len(self.seats))
        except (KeyError, ValueError) as error:
            raise ValueError(str(error).strip("'\"")) from None
        if self.rotation is not None:
            if not self.duplicate:
                raise ValueError("a rotation belongs to duplicate deals")
            if self.rotation >= len(self.seats):
                raise ValueError("a rotation is a seat turn: below the number of seats")
        elif self.duplicate and self.games % len(self.seats):
            raise ValueError("a duplicate match plays a whole number of seat rotations")
        if any(bot >= len(self.seats) for bot in self.stop_after_fault_of):
            raise ValueError("stop_after_fault_of names a bot the match does not have")
        return self


class ReportFrame(_Message):
    """One frame of a bot's own file in a traceback (:mod:`cucumbers.tracebacks`)."""

    file: Annotated[str, Field(max_length=MAX_NAME_CHARS)]
    line: int
    function: Annotated[str, Field(max_length=MAX_NAME_CHARS)]
    code: Annotated[str, Field(max_length=MAX_CODE_CHARS)]


class ReportTraceback(_Message):
    """The bot's own frames and its exception, for its owner only (never in a replay)."""

    frames: Annotated[tuple[ReportFrame, ...], Field(max_length=HEAD_FRAMES + TAIL_FRAMES)]
    exception: Annotated[str, Field(max_length=MAX_EXCEPTION_CHARS)]
    omitted: Count = 0

    @classmethod
    def of(cls, traceback: BotTraceback) -> ReportTraceback:
        return cls(
            frames=tuple(
                ReportFrame(file=f.file, line=f.line, function=f.function, code=f.code)
                for f in traceback.frames
            ),
            exception=traceback.exception,
            omitted=traceback.omitted,
        )

    def traceback(self) -> BotTraceback:
        frames = tuple(Frame(f.file, f.line, f.function, f.code) for f in self.frames)
        return BotTraceback(frames, self.exception, self.omitted)


class ReportFault(_Message):
    """A fault of one game; ``infrastructure``: the sandbox failed, not the bot;
    ``traceback``: the bot's own frames, when its code raised."""

    seat: Count
    round: Count
    trick: Count
    kind: FaultKind
    detail: Annotated[str, Field(max_length=1000)]
    infrastructure: bool
    traceback: ReportTraceback | None = None

    @classmethod
    def of(cls, fault: Fault) -> ReportFault:
        return cls(
            seat=fault.seat,
            round=fault.round,
            trick=fault.trick,
            kind=fault.kind,
            detail=fault.detail,
            infrastructure=fault.infrastructure,
            traceback=ReportTraceback.of(fault.traceback) if fault.traceback else None,
        )

    def fault(self) -> Fault:
        trace = self.traceback.traceback() if self.traceback is not None else None
        return Fault(
            self.seat, self.round, self.trick, self.kind, self.detail, self.infrastructure, trace
        )


class ReportMoveOutput(_Message):
    """The lines a seat's bot printed during its decision at ``round``/``trick``."""

    round: Annotated[int, Field(ge=1)]
    trick: Annotated[int, Field(ge=1)]
    lines: Annotated[
        tuple[Annotated[str, Field(max_length=MOVE_OUTPUT_CHARS)], ...],
        Field(min_length=1, max_length=MOVE_OUTPUT_LINES + 2),  # the notes of cuts
    ]

    @classmethod
    def of(cls, move: MoveOutput) -> ReportMoveOutput:
        return cls(round=move.round, trick=move.trick, lines=move.lines)

    def move(self) -> MoveOutput:
        return MoveOutput(self.round, self.trick, self.lines)


class GameReport(_Message):
    """One game as the SDK's :class:`~cucumbers.match.GameOutcome` has it; ``outputs`` are
    each seat's output tail in that game and ``move_output`` (empty from a worker that
    does not capture it) each seat's lines per move, both for the bot's owner only: the
    ``replay`` holds nothing private (the platform stores it as the public replay)."""

    number: Annotated[int, Field(ge=1)]
    seed: Seed
    bots: tuple[Count, ...]
    placement: tuple[Count, ...]
    scores: tuple[int, ...]
    faults: tuple[ReportFault, ...]
    rounds: Count
    capped: bool
    moves: tuple[Count, ...]
    think_seconds: tuple[Annotated[float, Field(ge=0)], ...]
    outputs: tuple[str, ...]
    replay: dict[str, Any] | None
    move_output: tuple[tuple[ReportMoveOutput, ...], ...] = ()

    @model_validator(mode="after")
    def _one_entry_per_seat(self) -> Self:
        seats = len(self.bots)
        per_seat = (self.placement, self.scores, self.moves, self.think_seconds, self.outputs)
        if any(len(values) != seats for values in per_seat):
            raise ValueError("every per-seat list has one entry per seat")
        if self.move_output and len(self.move_output) != seats:
            raise ValueError("move_output has one entry per seat, or none")
        for moves in self.move_output:
            if sum(len(line) + 1 for move in moves for line in move.lines) > 2 * (
                GAME_MOVE_OUTPUT_CHARS + MOVE_OUTPUT_CHARS
            ):
                raise ValueError("a seat's move_output is over the per-game output limit")
        if sorted(self.bots) != list(range(seats)) or sorted(self.placement) != list(range(seats)):
            raise ValueError("bots and placement are each a permutation of the seats")
        if any(fault.seat >= seats for fault in self.faults):
            raise ValueError("a fault names a seat the game does not have")
        return self

    @classmethod
    def of(cls, outcome: GameOutcome) -> GameReport:
        return cls(
            number=outcome.game_number,
            seed=outcome.seed,
            bots=outcome.bots,
            placement=outcome.placement,
            scores=outcome.scores,
            faults=tuple(ReportFault.of(fault) for fault in outcome.faults),
            rounds=outcome.rounds,
            capped=outcome.capped,
            moves=outcome.moves,
            think_seconds=outcome.think_seconds,
            outputs=outcome.outputs,
            replay=outcome.replay,
            move_output=tuple(
                tuple(ReportMoveOutput.of(move) for move in moves) for moves in outcome.move_output
            ),
        )

    def outcome(self) -> GameOutcome:
        return GameOutcome(
            game_number=self.number,
            seed=self.seed,
            bots=self.bots,
            placement=self.placement,
            scores=self.scores,
            faults=tuple(fault.fault() for fault in self.faults),
            rounds=self.rounds,
            capped=self.capped,
            moves=self.moves,
            think_seconds=self.think_seconds,
            outputs=self.outputs,
            replay=self.replay,
            move_output=tuple(tuple(move.move() for move in moves) for moves in self.move_output),
        )


class ReportStatus(StrEnum):
    """``played``: the games count. ``infrastructure_error``: they do not (``reason`` says
    why); the platform plays the match again later, and no bot is charged."""

    PLAYED = "played"
    INFRASTRUCTURE_ERROR = "infrastructure_error"


class Timings(_Message):
    """Seconds the worker spent in each part of the match."""

    sandbox_start: Annotated[float, Field(ge=0)] = 0.0
    games: Annotated[float, Field(ge=0)] = 0.0
    moves: Annotated[float, Field(ge=0)] = 0.0
    sandbox_stop: Annotated[float, Field(ge=0)] = 0.0


Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class MatchReport(_Message):
    """What happened to a job: ``worker`` and ``sandbox`` say who played it and how.
    ``sources``: per seat, the SHA-256 of the file the worker staged and played (None for a
    built-in), computed from what it wrote, for the platform to compare with the job's."""

    schema_: Literal["cucumbers-match-report/1"] = Field(REPORT_SCHEMA, alias="schema")
    match: Annotated[int, Field(ge=1)]
    attempt: uuid.UUID
    worker: Name
    sandbox: Name
    status: ReportStatus
    reason: Annotated[str, Field(max_length=2000)] = ""
    games: tuple[GameReport, ...] = ()
    sources: tuple[Digest | None, ...] = ()
    timings: Timings = Timings()

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.status is ReportStatus.PLAYED:
            if not self.games:
                raise ValueError("a played match has at least one game")
            if any(f.infrastructure for game in self.games for f in game.faults):
                raise ValueError("a played match has no infrastructure fault")
        elif not self.reason:
            raise ValueError("an infrastructure error says why")
        return self

    def outcomes(self) -> list[GameOutcome]:
        return [game.outcome() for game in self.games]


class MatchStarted(_Message):
    """A worker began ``attempt`` of ``match``: the platform shows it running, on
    ``worker``, and its lease starts."""

    schema_: Literal["cucumbers-match-started/1"] = Field(STARTED_SCHEMA, alias="schema")
    match: Annotated[int, Field(ge=1)]
    attempt: uuid.UUID
    worker: Name
    sandbox: Name

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, populate_by_name=True)


def dump(message: MatchJob | MatchReport | MatchStarted) -> str:
    """The message as the JSON text that travels."""
    return message.model_dump_json(by_alias=True)


def load_job(text: str | bytes) -> MatchJob:
    """A job from its JSON text; raises :class:`ContractError`."""
    return _load(MatchJob, text)


def load_report(text: str | bytes) -> MatchReport:
    """A report from its JSON text; raises :class:`ContractError`."""
    return _load(MatchReport, text)


def load_started(text: str | bytes) -> MatchStarted:
    """A started message from its JSON text; raises :class:`ContractError`."""
    return _load(MatchStarted, text)


_Model = TypeVar("_Model", MatchJob, MatchReport, MatchStarted)


def _load(model: type[_Model], text: str | bytes) -> _Model:
    try:
        return model.model_validate_json(text)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc']) or 'message'}: {problem['msg']}"
            for problem in error.errors()
        )
        raise ContractError(f"not a valid {model.__name__}: {problems}") from None
