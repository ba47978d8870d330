"""Automatic retirement: a version that faults in most of its recent ladder games stops
playing, and its owner is told why (docs/platform.md, "Automatic retirement").

The policy: a bot's active version is retired when more than ``RETIREMENT_FAULT_PERCENT`` % of
its last ``RETIREMENT_GAMES`` rated ladder games (50 % of 20 by default: 11 of 20) have
a fault of its own: a timeout, an illegal move, a crash, a protocol error or a start-up
error at its own seat. Another seat's fault is not its own, and an infrastructure fault
never counts: a report with one is never recorded (the match is played again, see
``running.py``), and a stored fault that says ``infrastructure`` is skipped all the same.
Fewer games than the window are judged by the same count (11 faulty games), so a version
that crashes from its first move is retired after its eleventh faulty game.

The version becomes ``retired`` with the reason (public, on the bot page and in the API),
the bot keeps its rating and history and has no active version until a new upload passes
its validation (or its owner makes an earlier passed version active again); a version
retired for its faults cannot be made active by hand. Checked in the recording transaction
of a ladder match (:func:`review`), only for seats that faulted in it: a clean match costs
nothing.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from arena.contract import MatchKind
from web.bots.models import Bot, BotVersion, VersionStatus
from web.matches.models import Match, MatchGame, MatchStatus, Participant
from web.notifications.notify import version_retired

from .kinds import ladder

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """A version's recent rated ladder games: how many were looked at, how many had a
    fault of its own, and those faults by kind."""

    games: int
    faulty: int
    kinds: Counter[str]

    def over_threshold(self) -> bool:
        window = settings.RETIREMENT_GAMES
        return window > 0 and self.faulty * 100 > settings.RETIREMENT_FAULT_PERCENT * window

    def reason(self) -> str:
        kinds = ", ".join(f"{kind.replace('_', ' ')} {n}" for kind, n in self.kinds.most_common())
        return (
            f"a fault of its own in {self.faulty} of its last {self.games} rated games"
            f" ({kinds}); the limit is more than {settings.RETIREMENT_FAULT_PERCENT} % of"
            f" {settings.RETIREMENT_GAMES}"
        )


def fault_record(version_id: int) -> FaultRecord:
    """The last ``RETIREMENT_GAMES`` rated ladder games of the version, newest first."""
    window = settings.RETIREMENT_GAMES
    # Each match has at least one game: the last `window` matches hold the last games.
    seats = dict(
        Participant.objects.filter(
            version_id=version_id,
            match__kind=MatchKind.LADDER,
            match__rated=True,
            match__status=MatchStatus.FINISHED,
        )
        .order_by("-match__finished_at", "-match_id")
        .values_list("match_id", "index")[:window]
    )
    games = (
        MatchGame.objects.filter(match_id__in=list(seats))
        .order_by("-match__finished_at", "-match_id", "-number")
        .values_list("match_id", "faults")[:window]
    )
    faulty, kinds, looked_at = 0, Counter[str](), 0
    for match_id, faults in games:
        looked_at += 1
        own = [
            fault
            for fault in faults
            if fault.get("participant") == seats[match_id] and not fault.get("infrastructure")
        ]
        if own:
            faulty += 1
            kinds[str(own[0].get("kind", "fault"))] += 1
    return FaultRecord(looked_at, faulty, kinds)


def review(match: Match, participants: Sequence[Participant]) -> list[int]:
    """After a rated ladder match is recorded (in its transaction, bots locked by the
    rating): retire each active version that faulted in it and is now past the threshold.
    The ids of the versions retired."""
    if match.kind != MatchKind.LADDER or not match.rated:
        return []
    return [
        p.version_id
        for p in participants
        if p.faults and p.version_id is not None and p.bot_id is not None
        if retire_if_faulty(p.bot_id, p.version_id)
    ]


def retire_if_faulty(bot_id: int, version_id: int) -> bool:
    """Retire the version if it is still its bot's active one and past the threshold."""
    if not Bot.objects.filter(pk=bot_id, active_version_id=version_id).exists():
        return False  # replaced or retired already: it plays no more ladder games anyway
    record = fault_record(version_id)
    if not record.over_threshold():
        return False
    reason = record.reason()
    retired = BotVersion.objects.filter(pk=version_id, status=VersionStatus.ACTIVE).update(
        status=VersionStatus.RETIRED, retired_at=timezone.now(), retirement_reason=reason
    )
    if not retired:
        return False
    Bot.objects.filter(pk=bot_id, active_version_id=version_id).update(active_version=None)
    # Its queued ladder matches are dropped: a retired version gets no new rated game.
    ladder.reseat_retired(Bot.objects.get(pk=bot_id))
    logger.info('event=version.retired version=%s bot=%s reason="%s"', version_id, bot_id, reason)
    version_retired(version_id)
    return True
