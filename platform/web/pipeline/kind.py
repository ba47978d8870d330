"""What a kind of match decides, as the pipeline asks it: one small interface
(:class:`KindPolicy`) that each kind implements in a module of its own
(``web/pipeline/kinds/``), and the registry the pipeline looks kinds up in.

The pipeline's moves (:mod:`web.pipeline.transitions`) are the same for every kind; at each
one they call the kind's hook, so that what a kind does on an outcome (rate, give a verdict,
finish a tournament) is written once, in its own module. Who plays and how many games is
each kind module's own business: it queues its matches through the one factory
(:mod:`web.pipeline.factory`). Which queue a kind waits on is the broker's
(:data:`arena.broker.KIND_QUEUES`), read by both sides.

Adding a kind: a value of :class:`arena.contract.MatchKind`, its queue in
:data:`~arena.broker.KIND_QUEUES`, a module in ``kinds/`` with a :class:`KindPolicy`, and its
line in :data:`web.pipeline.kinds.POLICIES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.contract import MatchKind
from cucumbers.match import GameOutcome
from web.matches.models import Match, Participant


class Placed(Protocol):
    """A played game as rating reads it: a report's :class:`~cucumbers.match.GameOutcome`,
    or a game stored earlier (a held rotation of a deal set: ``recording.StoredGame``)."""

    @property
    def game_number(self) -> int: ...

    def place_of_bot(self, bot: int) -> int:
        """1-based place of the participant with index ``bot``."""
        ...


class KindPolicy:
    """A kind's hooks, each a no-op unless the kind needs it. Hooks run inside the
    transition's own work: keep them short, and idempotent where the docstring says so."""

    #: The kind this policy is for.
    kind: MatchKind

    def stop_after_fault_of(self) -> tuple[int, ...]:
        """Participant indexes whose first fault ends the series (the job's stop rule)."""
        return ()

    def refusal(self, match: Match, participants: Sequence[Participant]) -> str | None:
        """Why the match, about to be sent under a new attempt, must not be played any
        more (it then fails with this reason), or None."""
        return None

    def started(self, match_id: int) -> None:
        """A worker began the match (it is ``running``)."""

    def waiting(self, match_id: int) -> None:
        """The match went back to the queue, or failed for good: nothing of it counts."""

    def recorded(
        self, match: Match, participants: Sequence[Participant], outcomes: Sequence[GameOutcome]
    ) -> None:
        """The match's games and standings are being recorded, inside that transaction
        (the match row locked): what the kind makes of them (ratings, a verdict)."""

    def set_recorded(
        self, match: Match, participants: Sequence[Participant], games: Sequence[Placed]
    ) -> None:
        """A rotation of a deal set whose last rotation is being recorded, inside that
        transaction (the set's rows locked), rotation by rotation in order: what the kind
        makes of a set played whole (ratings). A held rotation's games were never rated."""

    def ended(self, match_id: int) -> None:
        """The match ended, finished or failed for good, and the transaction that ended it
        committed. May be heard twice (the reaper and a report): must be idempotent."""


_POLICIES: dict[MatchKind, KindPolicy] = {}


def register(policy: KindPolicy) -> None:
    """Make ``policy`` the one its kind is looked up as (the pipeline's app does it for
    :data:`web.pipeline.kinds.POLICIES` when Django starts)."""
    _POLICIES[policy.kind] = policy


def policy_for(kind: str) -> KindPolicy:
    """The policy of a match of ``kind`` (a :class:`MatchKind` value)."""
    try:
        return _POLICIES[MatchKind(kind)]
    except KeyError:
        raise LookupError(f"no policy is registered for {kind!r} matches") from None
