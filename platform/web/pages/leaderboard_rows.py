"""The leaderboard's table rows, built in Python.

50 rows a page, each with a bot's link, its owner's, its Elo with interval and markers, its
games and win rate: through the template engine (per-row variable lookups, ``{% url %}``,
``floatformat`` and ``widthratio``) they were 30 of the page's 35 ms; formatted here they
are about 1 ms. The markup is the one the template wrote.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html_join
from django.utils.safestring import SafeString

from web.bots.models import Bot
from web.links import bot_url, profile_url

from .templatetags.elo import elo

_TIED = SafeString(
    '<span class="tied" title="its 95% interval overlaps the bot above: the ladder cannot'
    ' tell them apart yet">≈</span>'
)


def win_rate(bot: Bot) -> str:
    """``{% widthratio bot.wins bot.games 100 %}%``, or a dash before any game."""
    if not bot.games:
        return "–"
    return f"{round(bot.wins / bot.games * 100)}%"  # widthratio's rounding


def leaderboard_rows(rows: Sequence[tuple[int, Bot]], tied: set[int]) -> SafeString:
    """The ``<tr>`` of each (rank, bot); a bot in ``tied`` shows "≈" for its rank."""
    return format_html_join(
        "\n",
        '<tr><td class="num">{}</td><td><a href="{}">{}</a></td><td><a href="{}">{}</a></td>'
        '<td class="num">{}</td><td class="num hide-small">{}</td><td class="num">{}</td></tr>',
        (
            (
                _TIED if bot.pk in tied else rank,
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
