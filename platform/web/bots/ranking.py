"""A leaderboard's order and ranks, the same on every page and in the API.

Rated bots (at least one rated game) come first, best Elo first, ties by age; bots with no
rated game yet come after them, oldest first, and have no rank: their 1500 is a starting
point, not a measure. A rated bot's rank is its place among the rated bots of its game.

Neighbours whose 95% intervals overlap form a *tie group*: each keeps its number, and the
pages mark it and say in words that the ladder cannot tell it from the bot above yet.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q

from .models import LEADERBOARD_ORDER, UNRATED, Bot

__all__ = ["LEADERBOARD_ORDER", "UNRATED", "is_rated", "ranks", "rated_above", "tied_with_above"]


def is_rated(bot: Bot) -> bool:
    return bot.games > 0


def ranks(rows: Sequence[Bot], first: int) -> list[int | None]:
    """The rank of each of ``rows`` (a page in leaderboard order starting at position
    ``first``): their positions while rated, None once unrated (those come last)."""
    return [first + index if is_rated(bot) else None for index, bot in enumerate(rows)]


def tied_with_above(ranked: Sequence[Bot], above: Bot | None) -> set[int]:
    """The ids of the rated bots whose 95% interval overlaps the one of the rated bot ranked
    just above (``above``: the one before the page's first row): not separated yet."""
    tied = set()
    for bot in ranked:
        if not is_rated(bot):
            break
        if above is not None and bot.rating_high >= above.rating_low:
            tied.add(bot.pk)
        above = bot
    return tied


def rated_above(bot: Bot) -> Bot | None:
    """The rated bot ranked just above ``bot`` on its leaderboard (None for the first)."""
    ahead = Bot.objects.on_leaderboard(bot.game).filter(
        Q(games__gt=0), Q(rating__gt=bot.rating) | Q(rating=bot.rating, id__lt=bot.pk)
    )
    return ahead.order_by("rating", "-id").first()


def tied_on_page(bot: Bot) -> Bot | None:
    """The bot above ``bot`` when the two are tied (see :func:`tied_with_above`)."""
    above = rated_above(bot) if is_rated(bot) and bot.on_leaderboard else None
    return above if above is not None and bot.pk in tied_with_above([bot], above) else None
