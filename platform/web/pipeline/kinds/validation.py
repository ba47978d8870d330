"""Validation: a new version's first match, a match like the others (the same job, report,
recording and moves: :mod:`web.pipeline.running`, :mod:`web.pipeline.transitions`). Its
whole policy is here:

- who it plays: built-in opponents (``VALIDATION_OPPONENTS``), unrated, ``VALIDATION_GAMES``
  games from a seed derived from the version, stopping after the candidate's first fault;
- what the version shows meanwhile: ``validating`` while its match runs, ``queued`` again
  whenever the match goes back to the queue (an infrastructure error, a lost worker);
- the verdict, in the recording transaction: rejected with the candidate's first fault and
  its own output in that game, or promoted to the bot's active version.

An infrastructure failure is never a verdict: the match is retried, and a validation match
that fails for good (the attempt cap) leaves the version ``queued``, to be validated again by
:func:`revalidate_failed` (beat).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.contract import MatchKind
from cucumbers.games import rules_for
from cucumbers.match import GameOutcome, derive_seed
from web.bots.models import Bot, BotVersion, RejectionKind, VersionStatus
from web.matches.models import Match, MatchStatus, Participant
from web.notifications.notify import version_rejected

from ..factory import create_match
from ..kind import KindPolicy
from . import ladder

#: The candidate of a validation match: its first fault ends the series.
CANDIDATE = 0

#: Characters of the bot's own output kept for its owner when it is rejected.
STDERR_TAIL_CHARS = 2000


def opponents(game: str) -> list[str]:
    """The built-in bots a version of ``game`` plays against (as many as the table holds)."""
    return list(settings.VALIDATION_OPPONENTS)[: rules_for(game).max_players - 1]


def queue_validation(version: BotVersion) -> Match:
    """A queued validation match for ``version``, sent once the caller's transaction
    commits (a broker that is down leaves it queued for the reaper: nothing is lost)."""
    bot = version.bot
    match = create_match(
        bot.game,
        MatchKind.VALIDATION,
        [bot],
        rated=False,
        versions=[version],
        names=[str(version)],
        builtins=opponents(bot.game),
        games=settings.VALIDATION_GAMES,
        seed=derive_seed("validation", version.sha256, version.pk),
    )
    version.validation_match = match
    version.save(update_fields=["validation_match"])
    return match


def decide(match: Match, outcomes: Sequence[GameOutcome]) -> None:
    """The verdict of a played validation match, inside its recording transaction."""
    version = (
        BotVersion.objects.select_for_update()
        .filter(validation_match=match, status__in=[VersionStatus.QUEUED, VersionStatus.VALIDATING])
        .first()
    )
    if version is None:
        return  # requeued by an admin meanwhile, with a new match: that one decides
    bot = Bot.objects.select_for_update().get(pk=version.bot_id)
    version.validated_at = timezone.now()
    fields = ["status", "validated_at"]
    for outcome in outcomes:
        mine = [f for f in outcome.faults if outcome.bots[f.seat] == CANDIDATE]
        if mine:
            fault = mine[0]
            version.status = VersionStatus.REJECTED
            version.rejection_kind = RejectionKind(fault.kind.value)
            version.rejection_detail = fault.detail
            version.stderr_tail = outcome.outputs[fault.seat][-STDERR_TAIL_CHARS:]
            fields += ["rejection_kind", "rejection_detail", "stderr_tail"]
            version_rejected(version.pk)  # its owner is told once this commits
            break
    else:
        promote(bot, version)
    version.save(update_fields=fields)


def promote(bot: Bot, version: BotVersion) -> None:
    """Make a version that passed the bot's active one, unless a newer one already is."""
    current = bot.active_version
    if current is not None and current.number > version.number:
        version.status = VersionStatus.RETIRED  # passed, but a newer version won the race
        return
    version.status = VersionStatus.ACTIVE
    if current is not None:
        BotVersion.objects.filter(pk=current.pk).update(status=VersionStatus.RETIRED)
    bot.active_version = version
    bot.games_since_version = 0  # a new version is provisional again
    bot.save(update_fields=["active_version", "games_since_version"])
    # The retired version plays no new rated game; the new one goes to the ladder first.
    ladder.reseat_retired(bot)
    if bot.active and settings.LADDER_DEBUT and settings.LADDER_QUEUE_TARGET > 0:
        ladder.queue_debut(bot)


def revalidate_failed() -> list[int]:
    """Queued versions whose validation match failed for good (the infrastructure gave
    up, never the bot) get a new validation match; their ids."""
    waiting = BotVersion.objects.filter(
        status=VersionStatus.QUEUED, validation_match__status=MatchStatus.FAILED
    ).select_related("bot")
    queued = []
    for version in waiting:
        with transaction.atomic():
            locked = BotVersion.objects.select_for_update().get(pk=version.pk)
            if (
                locked.status == VersionStatus.QUEUED
                and locked.validation_match_id == version.validation_match_id
            ):
                queue_validation(version)
                queued.append(version.pk)
    return queued


def version_validating(match_id: int) -> None:
    """A validation match started: its version is ``validating``."""
    BotVersion.objects.filter(validation_match_id=match_id, status=VersionStatus.QUEUED).update(
        status=VersionStatus.VALIDATING, validation_started_at=timezone.now()
    )


def version_waiting(match_id: int) -> None:
    """A validation match went back to the queue, or failed for good: its version waits
    again (``queued``), never rejected for it."""
    BotVersion.objects.filter(validation_match_id=match_id, status=VersionStatus.VALIDATING).update(
        status=VersionStatus.QUEUED, validation_started_at=None
    )


def on_version_submitted(sender: object, version: BotVersion, **kwargs: object) -> None:
    """:data:`web.bots.signals.version_submitted`: an upload (or staff) put a version in
    line for validation, inside its transaction: its match is queued in that transaction."""
    queue_validation(version)


class ValidationPolicy(KindPolicy):
    """The candidate's first fault ends the series; the version follows its match; the
    verdict is given when the match is recorded."""

    kind = MatchKind.VALIDATION

    def stop_after_fault_of(self) -> tuple[int, ...]:
        return (CANDIDATE,)

    def started(self, match_id: int) -> None:
        version_validating(match_id)

    def waiting(self, match_id: int) -> None:
        version_waiting(match_id)

    def recorded(
        self, match: Match, participants: Sequence[Participant], outcomes: Sequence[GameOutcome]
    ) -> None:
        decide(match, outcomes)
