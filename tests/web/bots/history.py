"""Rated match histories for the chart tests, written straight to the tables (bulk inserts:
a 10,000-game history must take seconds, not minutes, to set up)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from arena.contract import MatchKind
from web.bots.models import Bot
from web.matches.models import (
    Match,
    MatchGame,
    MatchStatus,
    Participant,
    RatingChange,
)

START = datetime(2025, 3, 1, 12, tzinfo=UTC)

#: A game's result: positions in the match's bot list, best first.
Placement = Sequence[int]


def rating_delta(place: int, size: int) -> float:
    """A stand-in for Elo that sums to zero at a table: +8 for first, −8 for last."""
    return 8 * (size - 1 - 2 * (place - 1)) / (size - 1)


def record_history(
    bots: Sequence[Bot],
    matches: Sequence[tuple[Sequence[int], Sequence[Placement]]],
    *,
    rated: bool = True,
    start: datetime = START,
) -> list[Match]:
    """Finished matches, each ``(seated bot positions in bots, games)``; for rated ones the
    rating history too, each game moving the seated bots by :func:`rating_delta`."""
    made = Match.objects.bulk_create(
        Match(
            game=bots[0].game,
            kind=MatchKind.LADDER if rated else MatchKind.CHALLENGE,
            status=MatchStatus.FINISHED,
            rated=rated,
            seed=i,
            games_planned=len(games),
            created_at=start + timedelta(hours=i),
            finished_at=start + timedelta(hours=i),
        )
        for i, (_, games) in enumerate(matches)
    )
    seats, played, history = [], [], []
    ratings = {bot.pk: bot.rating for bot in bots}
    counts = dict.fromkeys(ratings, 0)
    for i, (match, (seated, games)) in enumerate(zip(made, matches, strict=True)):
        seats += [
            Participant(
                match=match,
                index=index,
                bot=bots[b],
                version_id=bots[b].active_version_id,
                name=str(bots[b].name),
            )
            for index, b in enumerate(seated)
        ]
        for number, placement in enumerate(games, start=1):
            # placement holds positions in bots; the game stores participant indexes.
            played.append(
                MatchGame(
                    match=match,
                    number=number,
                    seed=number,
                    placement=[seated.index(b) for b in placement],
                )
            )
            if not rated:
                continue
            for place, b in enumerate(placement, start=1):
                bot = bots[b]
                before = ratings[bot.pk]
                ratings[bot.pk] = before + rating_delta(place, len(placement))
                counts[bot.pk] += 1
                history.append(
                    RatingChange(
                        bot=bot,
                        version_id=bot.active_version_id,  # as the pipeline records it
                        match=match,
                        game=number,
                        before=before,
                        after=ratings[bot.pk],
                        delta=ratings[bot.pk] - before,
                        created_at=start + timedelta(hours=i, seconds=number),
                    )
                )
    Participant.objects.bulk_create(seats, batch_size=5000)
    MatchGame.objects.bulk_create(played, batch_size=5000)
    RatingChange.objects.bulk_create(history, batch_size=5000)
    for bot in bots:
        bot.rating = ratings[bot.pk]
        bot.games += counts[bot.pk]
        bot.games_since_version += counts[bot.pk]
        bot.save(update_fields=["rating", "games", "games_since_version"])
    return made
