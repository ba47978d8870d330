"""A match being sent as the arena's :class:`~arena.contract.MatchJob`: what a worker needs to
play it and nothing more (the sources travel inside the job, with their digests; no worker
reads the platform's database or storage)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from arena.contract import JobLimits, JobSeat, MatchJob, MatchKind
from cucumbers.loader import BUILTIN_PREFIX
from cucumbers.runners.base import Limits
from web.matches.deals import played_seed
from web.matches.models import Match, Participant

from .kind import policy_for


class UnplayableMatch(Exception):
    """The match cannot be turned into a job (a source missing from storage or not what
    was uploaded): the platform's failure, never a bot's."""


def job_for(match: Match, participants: Sequence[Participant], attempt: uuid.UUID) -> MatchJob:
    """The job of ``match`` under ``attempt``; ``participants`` in index order, with their
    versions loaded. Raises :class:`UnplayableMatch`."""
    limits = Limits()
    kind = MatchKind(match.kind)
    try:
        return MatchJob(
            match=match.pk,
            attempt=attempt,
            kind=kind,
            game=match.game,
            seed=played_seed(match),  # keyed: the stored seed alone tells nothing
            games=match.games_planned,
            limits=JobLimits(
                move_seconds=limits.move_seconds,
                bank_seconds=limits.bank_seconds,
                startup_seconds=limits.startup_seconds,
            ),
            seats=tuple(_seat(entrant) for entrant in participants),
            stop_after_fault_of=policy_for(kind).stop_after_fault_of(),
            duplicate=match.duplicate,
            rotation=match.rotation,
        )
    except (OSError, UnicodeDecodeError, ValueError) as error:  # pydantic's errors included
        raise UnplayableMatch(f"{match} cannot be played: {error}") from error


def builtin_name(name: str) -> str:
    """How a built-in opponent's participant is named (its ``bot`` and ``version`` are
    empty): as the SDK names it on the command line, ``builtin:NAME``."""
    return f"{BUILTIN_PREFIX}{name}"


def is_builtin(entrant: Participant) -> bool:
    """Whether ``entrant`` is a built-in opponent (an uploaded bot deleted since it was
    queued has lost its version too, but keeps its ``owner/name``)."""
    return entrant.version is None and entrant.name.startswith(BUILTIN_PREFIX)


def _seat(entrant: Participant) -> JobSeat:
    version = entrant.version
    if version is None:
        return JobSeat(name=entrant.name, builtin=entrant.name.removeprefix(BUILTIN_PREFIX))
    return JobSeat(
        name=entrant.name,
        source=version.read_source(),
        sha256=version.sha256,
        filename=version.filename,
        bot=entrant.bot_id,
        version=version.number,
    )
