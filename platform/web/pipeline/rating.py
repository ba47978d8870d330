"""Ratings from a rated match's games, inside the recording transaction
(:mod:`web.pipeline.recording`): multiplayer Elo game by game (``arena.rating``) and its
Bayesian companion that says how sure it is (``arena.skill``), the bots' tallies, and one
append-only history row per bot per game.

Concurrent matches sharing bots never lose a rating update: the ratings are read *after*
locking the bots' rows, always in the order of their ids, so two transactions never wait on
each other in a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena import skill
from arena.rating import rate_series
from web.bots.models import Bot
from web.elo import elo_settings
from web.matches.models import Match, Participant, RatingChange
from web.notifications.notify import first_rating

from .kind import Placed


def rate(match: Match, participants: Sequence[Participant], outcomes: Sequence[Placed]) -> None:
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
    skills = skill.rate_series(
        [skill.Skill(bots[p.bot_id].skill_mu, bots[p.bot_id].skill_sigma) for p in entrants],  # type: ignore[index]
        placements,
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
        bot.skill_mu, bot.skill_sigma = skills[i].mu, skills[i].sigma
        bot.games += len(outcomes)
        bot.wins += sum(
            outcome.place_of_bot(participants.index(entrant)) == 1 for outcome in outcomes
        )
        if entrant.version_id == bot.active_version_id:
            # Games of a version that was replaced meanwhile do not count towards the new
            # version's provisional period.
            first_rating(entrant.version_id, games_before=bot.games_since_version)
            bot.games_since_version += len(outcomes)
    RatingChange.objects.bulk_create(history)
    Bot.objects.bulk_update(
        bots.values(),
        ["rating", "skill_mu", "skill_sigma", "games", "wins", "games_since_version"],
    )


def _place_among(outcome: Placed, positions: Sequence[int], position: int) -> int:
    """The place of bot ``position`` among the rated bots only (1 = best)."""
    mine = outcome.place_of_bot(position)
    return 1 + sum(outcome.place_of_bot(other) < mine for other in positions)
