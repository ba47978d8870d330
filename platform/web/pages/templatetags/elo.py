"""``{% elo bot %}``: a bot's Elo as every page shows it, built in Python.

The leaderboard shows 50 of them a page: through the template engine (an ``{% include %}``
and four ``floatformat`` per row) they cost more than the rest of its page. The markup is
the one the templates wrote, to the character.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import template
from django.conf import settings
from django.utils.html import format_html
from django.utils.safestring import SafeString

from web.rounding import whole

if TYPE_CHECKING:
    from web.bots.models import Bot

register = template.Library()

_UNRATED = SafeString(
    '<span class="unrated" title="no rated game yet: it starts at 1500">unrated</span>'
)


@register.simple_tag
def elo(bot: Bot) -> SafeString:
    """ "unrated" before the bot's first rated game; after, its Elo with its 95% interval
    (``arena.skill``), and "provisional" while its active version has played few games."""
    if not bot.games:
        return _UNRATED
    margin = bot.rating_margin
    shown = format_html(
        '{} <small class="interval" title="95% interval: {} to {}">±{}</small>',
        whole(bot.rating),
        whole(bot.rating - margin),
        whole(bot.rating + margin),
        whole(margin),
    )
    if bot.is_provisional:
        shown += format_html(
            ' <span class="provisional" title="fewer than {} rated games with its current'
            ' version: it moves fast">provisional</span>',
            settings.PROVISIONAL_GAMES,
        )
    return shown
