"""My bots: the user's own bots, each with its latest versions (their status kept live by
``static/web/my_bots.js``) and, as on the bot's page, the card of a version that waits, for
its verdict or for its first rated game (``web.matches.version_wait``). A page of its own
here, above the matches it reads (the apps' layers: ``web.bots`` is below them)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from web.bots.models import Bot
from web.matches.version_wait import version_waits
from web.users import signed_in


@login_required
def my_bots(request: HttpRequest) -> HttpResponse:
    bots = [
        (bot, list(bot.versions.all()))
        for bot in Bot.objects.filter(owner=signed_in(request))
        .select_related("active_version")
        .prefetch_related("versions")
        .order_by("name")
    ]
    # Every bot's wait in a few queries, however many bots (not one bot page's worth each).
    rows = zip((bot for bot, _ in bots), version_waits(bots), strict=True)
    return render(request, "bots/my_bots.html", {"rows": list(rows)})
