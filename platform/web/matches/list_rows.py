"""The match list's table rows, and the bot page's recent matches, built in Python.

50 matches and some 225 seats a page, each seat a link: through the template engine (a
``{% url %}`` per seat, two ``date`` filters per row, a few hundred variable lookups) they
were 30 of the page's 35 ms; formatted here, a few. The markup is the one the template
wrote.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from web.links import bot_url, match_url
from web.rounding import fixed

from .models import Match, MatchStatus, Participant
from .templatetags.when import ago


def finished(moment: datetime | None) -> SafeString:
    """When, as "3 minutes ago", with the date and time (UTC) in the markup."""
    if moment is None:
        return SafeString("")
    local = timezone.localtime(moment)
    return format_html(
        '<time datetime="{}" title="{} UTC">{}</time>',
        local.isoformat(),  # the date filter's "c"
        local.strftime("%Y-%m-%d %H:%M"),
        ago(moment),
    )


def seats(participants: Iterable[Participant]) -> SafeString:
    """The seats' names, best first, each a link to its bot while the bot exists."""
    return SafeString(
        ", ".join(
            format_html('<a href="{}">{}</a>', bot_url(p.bot_id), p.name)
            if p.bot_id
            else format_html("{}", p.name)
            for p in participants
        )
    )


def match_rows(matches: Iterable[Match]) -> SafeString:
    """The ``<tr>`` of each match (its seats prefetched)."""
    return format_html_join(
        "\n",
        '<tr><td><a href="{}">#{}</a></td><td>{}</td><td>{}</td>\n'
        '      <td>{}</td>\n      <td class="hide-small">{}</td></tr>',
        (
            (
                match_url(match.pk),
                match.pk,
                match.get_game_display(),
                match.get_kind_display(),
                seats(match.participants.all()),
                finished(match.finished_at),
            )
            for match in matches
        ),
    )


def seat_rows(recent: Iterable[tuple[Participant, list[Participant]]]) -> SafeString:
    """The ``<tr>`` of each of a bot's seats (its match and version loaded) beside the
    other seats of its match: the bot page's recent matches."""
    return format_html_join(
        "\n",
        '<tr><td><a href="{}">#{}</a>{}</td>\n'
        '      <td class="hide-small">{}</td>\n'
        "      <td>{}</td>\n"
        "      <td>{}</td>\n"
        '      <td class="num">{}</td><td class="num hide-small">{}</td>\n'
        '      <td class="num">{}</td></tr>',
        (
            (
                match_url(seat.match_id),
                seat.match_id,
                format_html(' <small class="muted">v{}</small>', seat.version.number)
                if seat.version
                else "",
                finished(seat.match.finished_at)
                if seat.match.finished_at and seat.match.status != MatchStatus.HELD
                else seat.match.get_status_display(),
                seat.match.get_kind_display(),
                seats(opponents),
                seat.placement or "–",
                seat.faults,
                "–" if seat.rating_change is None else fixed(seat.rating_change, 1),
            )
            for seat, opponents in recent
        ),
    )
