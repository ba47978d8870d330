"""A bot's public page: its versions, recent matches and charts. A page of the site, above
the apps it draws from (bots and matches), so that neither app imports the other's views."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from web.bots import access
from web.matches.models import MatchKind, Participant

from .chart_svg import page_charts
from .charts import bot_stats

RECENT_MATCHES = 20


def bot_detail(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = access.public_bot(bot_id)
    private = access.sees_private(request.user, bot)
    recent = Participant.objects.filter(bot=bot).select_related("match", "version")
    if not private:  # validation matches are the owner's feedback (see matches.access)
        recent = recent.exclude(match__kind=MatchKind.VALIDATION)
    return render(
        request,
        "bots/detail.html",
        {
            "bot": bot,
            "rank": bot.rank(),
            "versions": bot.versions.all(),
            "private": private,
            "owner": access.is_owner(request.user, bot),
            "recent": recent.order_by("-match_id")[:RECENT_MATCHES],
            "charts": page_charts(bot_stats(bot)),
        },
    )
