"""A bot's public page: its versions, recent matches and charts. A page of the site, above
the apps it draws from (bots and matches), so that neither app imports the other's views."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from arena.contract import MatchKind
from web.bots import access
from web.bots.models import Bot
from web.bots.ranking import tied_on_page
from web.caching import remembered
from web.matches.list_rows import seat_rows
from web.matches.models import Participant
from web.matches.version_wait import version_wait

from . import versions
from .bot_page_cache import FIGURES, STATS
from .chart_rows import elo_markers, elo_rows
from .chart_svg import page_charts
from .charts import bot_stats

RECENT_MATCHES = 20
#: How long a bot's charts and figures are kept (web/caching.py: what may lag meanwhile).
BOT_STATS_SECONDS = 600


def bot_page_key(bot: Bot, what: str) -> str:
    """A key that changes with every rated game the bot plays."""
    return f"bot:{bot.pk}:{what}:{bot.games}:{bot.wins}:{bot.rating!r}"


def with_opponents(seats: list[Participant]) -> list[tuple[Participant, list[Participant]]]:
    """Each of the bot's seats with the other seats of its match (one query for all)."""
    others: dict[int, list[Participant]] = {}
    for other in Participant.objects.filter(match_id__in=[s.match_id for s in seats]).order_by(
        "index"
    ):
        others.setdefault(other.match_id, []).append(other)
    return [(seat, [o for o in others.get(seat.match_id, []) if o.pk != seat.pk]) for seat in seats]


def bot_detail(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = access.public_bot(bot_id)
    private = access.sees_private(request.user, bot)
    recent = Participant.objects.filter(bot=bot).select_related("match", "version")
    if not private:  # validation matches are the owner's feedback (see matches.access)
        recent = recent.exclude(match__kind=MatchKind.VALIDATION)
    figures = remembered(
        bot_page_key(bot, "figures"), BOT_STATS_SECONDS, lambda: versions.figures(bot), FIGURES
    )
    # The charts' data depends on the bot's history alone: read (four queries over up to
    # ten thousand games) once per rated game, not per visit. Their markup is drawn from it
    # at each visit, escaped: never kept in the cache, whose content must not become markup.
    stats = remembered(
        bot_page_key(bot, "charts"), BOT_STATS_SECONDS, lambda: bot_stats(bot), STATS
    )
    charts = page_charts(stats)
    # Rendered on its own (autoescaped, like any template), not included in the page: in
    # the page's deeper context its few hundred numbers took four times as long.
    charts_html = render_to_string(
        "bots/_charts.html",
        {
            "charts": charts,
            "bot": bot,
            "elo_points_html": elo_markers(charts.elo),
            "elo_rows_html": elo_rows(stats.elo),
        },
    )
    seated = with_opponents(list(recent.order_by("-match_id")[:RECENT_MATCHES]))
    all_versions = list(bot.versions.all())
    active = figures.get(bot.active_version_id or 0, versions.VersionFigures())
    return render(
        request,
        "bots/detail.html",
        {
            "bot": bot,
            "rank": bot.rank(),
            "tied_with": tied_on_page(bot),
            "versions": [
                (version, figures.get(version.pk, versions.VersionFigures()))
                for version in all_versions
            ],
            "passed": versions.PASSED,
            "private": private,
            "owner": access.is_owner(request.user, bot),
            "recent": seated,
            "recent_html": seat_rows(seated),
            "charts_html": charts_html,
            # Live, never cached: a place in a queue moves. The figures may lag a little,
            # but a version with rated games has left the wait for good.
            "wait": version_wait(bot, all_versions, active_rated_games=active.rated_games),
        },
    )


@login_required
@require_POST
def activate_version(request: HttpRequest, bot_id: int, number: int) -> HttpResponse:
    """The owner makes one of the bot's passed versions the one that plays."""
    bot = access.owned_bot(request.user, bot_id)
    try:
        version = versions.activate(bot, number)
    except versions.NotPlayable as refusal:
        messages.error(request, str(refusal))
    else:
        messages.success(request, f"{version} plays from now on.")
    return redirect(bot)
