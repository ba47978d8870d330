"""The leaderboard's table rows, built in Python.

50 rows a page, each with a bot's link, its owner's, its Elo with interval and markers, its
games and win rate: through the template engine (per-row variable lookups, ``{% url %}``,
``floatformat`` and ``widthratio``) they were 30 of the page's 35 ms; formatted here they
are about 1 ms. The markup is the one the template wrote.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from web.bots.models import Bot
from web.links import bot_url, profile_url

from .templatetags.elo import elo

#: The tie marker: seen as "≈" (the legend above the table says what it means), heard as
#: words (a symbol alone is read out as "almost equal to", or not at all).
_TIED = SafeString(
    ' <span class="tied" aria-hidden="true">≈</span>'
    '<span class="visually-hidden"> (tied: not separated from the bot above)</span>'
)
_NO_RANK = SafeString('<span aria-hidden="true">–</span><span class="visually-hidden">none</span>')


def win_rate(bot: Bot) -> str:
    """``{% widthratio bot.wins bot.games 100 %}%``, or a dash before any game."""
    if not bot.games:
        return "–"
    return f"{round(bot.wins / bot.games * 100)}%"  # widthratio's rounding


def rank_cell(rank: int | None, tied: bool) -> SafeString:
    """A rank as a number (with the tie marker), or a dash for a bot not rated yet."""
    if rank is None:
        return _NO_RANK
    return format_html("{}{}", rank, _TIED if tied else "")


def leaderboard_rows(rows: Sequence[tuple[int | None, Bot]], tied: set[int]) -> SafeString:
    """The ``<tr>`` of each (rank, bot); a bot in ``tied`` gets the tie marker beside its
    rank (and the row a class that draws the group)."""
    return format_html_join(
        "\n",
        '<tr{}><td class="num rank">{}</td><td><a href="{}">{}</a></td><td><a href="{}">{}</a>'
        '</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>',
        (
            (
                SafeString(' class="tied-row"') if bot.pk in tied else "",
                rank_cell(rank, bot.pk in tied),
                bot_url(bot.pk),
                bot.name,
                profile_url(bot.owner.username),
                bot.owner.username,
                elo(bot),
                bot.games,
                win_rate(bot),
            )
            for rank, bot in rows
        ),
    )
