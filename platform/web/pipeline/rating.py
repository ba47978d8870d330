"""Record a played match, in ONE transaction: its games and replays, the participants'
placements and faults, and (for a rated match) every rating change.

Exactly once: the transaction locks the match row and records only while the match is
still ``running`` under the attempt that played it. Any other attempt (a worker that was
presumed dead and taken over, a duplicate message) finds it finished or held by another
attempt and discards its result. Concurrent matches sharing bots never lose a rating
update: each transaction reads the ratings *after* locking the bots' rows, always in the
order of their ids, so two transactions never wait on each other in a cycle.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.rating import EloSettings, rate_series
from cucumbers.match import GameOutcome
from web.bots.models import Bot

from .models import Match, MatchStatus, Participant, RatingChange
from .playing import Timings
from .recording import standings, store_games
from .replays import StoredFiles


def elo_settings() -> EloSettings:
    return EloSettings(
        k=float(settings.ELO_K),
        provisional_k=float(settings.ELO_PROVISIONAL_K),
        provisional_games=settings.PROVISIONAL_GAMES,
    )


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the transaction did: ``recorded`` is False when another attempt owns the match."""

    recorded: bool
    status: str


def record_result(
    match_id: int,
    attempt: uuid.UUID,
    outcomes: Sequence[GameOutcome],
    sandbox: str,
    timings: Timings,
) -> Recorded:
    """Record the match played by ``attempt``, unless it is no longer that attempt's."""
    with StoredFiles() as files, transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status != MatchStatus.RUNNING or match.attempt != attempt:
            return Recorded(False, match.status)
        participants = list(match.participants.order_by("index"))
        started = perf_counter()
        store_games(match, outcomes, files)
        timings.storage = perf_counter() - started
        started = perf_counter()
        for entrant, standing in zip(
            participants, standings(outcomes, len(participants)), strict=True
        ):
            entrant.placement = standing.placement
            entrant.mean_place = standing.mean_place
            entrant.wins = standing.wins
            entrant.faults = standing.faults
        if match.rated:
            rate(match, participants, outcomes)
        Participant.objects.bulk_update(
            participants,
            ["placement", "mean_place", "wins", "faults", "rating_before", "rating_after"],
        )
        match.status = MatchStatus.FINISHED
        match.finished_at = timezone.now()
        match.sandbox = sandbox
        match.failure_reason = ""
        match.save(update_fields=["status", "finished_at", "sandbox", "failure_reason"])
        timings.rating_transaction = perf_counter() - started
    return Recorded(True, match.status)


def rate(match: Match, participants: list[Participant], outcomes: Sequence[GameOutcome]) -> None:
    """Rate the games in order (``arena.rating.rate_series``); update the bots' ratings and
    tallies and append one history row per bot per game. The caller holds the match lock."""
    ids = sorted({p.bot_id for p in participants if p.bot_id is not None})
    # Fixed lock order (by id): concurrent matches sharing bots cannot deadlock.
    bots = {
        bot.pk: bot for bot in Bot.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    }
    entrants = [p for p in participants if p.bot_id in bots]
    if len(entrants) < 2:
        return  # bots deleted since the match was queued: nothing left to rate against
    positions = [participants.index(p) for p in entrants]
    placements = [
        [_place_among(outcome, positions, position) for position in positions]
        for outcome in outcomes
    ]
    rated = rate_series(
        [bots[p.bot_id].rating for p in entrants],  # type: ignore[index]
        [bots[p.bot_id].games_since_version for p in entrants],  # type: ignore[index]
        placements,
        elo_settings(),
    )
    history = []
    for i, entrant in enumerate(entrants):
        bot = bots[entrant.bot_id]  # type: ignore[index]
        entrant.rating_before = rated[0].before[i]
        entrant.rating_after = rated[-1].after[i]
        for outcome, game in zip(outcomes, rated, strict=True):
            history.append(
                RatingChange(
                    bot=bot,
                    version_id=entrant.version_id,
                    match=match,
                    game=outcome.game_number,
                    before=game.before[i],
                    after=game.after[i],
                    delta=game.after[i] - game.before[i],
                )
            )
        bot.rating = rated[-1].after[i]
        bot.games += len(outcomes)
        bot.wins += sum(
            outcome.place_of_bot(participants.index(entrant)) == 1 for outcome in outcomes
        )
        if entrant.version_id == bot.active_version_id:
            # Games of a version that was replaced meanwhile do not count towards the new
            # version's provisional period.
            bot.games_since_version += len(outcomes)
    RatingChange.objects.bulk_create(history)
    Bot.objects.bulk_update(bots.values(), ["rating", "games", "wins", "games_since_version"])


def _place_among(outcome: GameOutcome, positions: Sequence[int], position: int) -> int:
    """The place of bot ``position`` among the rated bots only (1 = best)."""
    mine = outcome.place_of_bot(position)
    return 1 + sum(outcome.place_of_bot(other) < mine for other in positions)
