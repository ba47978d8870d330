"""The leaderboard of each game: rank, bot, owner, Elo, games, win rate, provisional marker.

Paginated on the partial index ``bot_leaderboard`` (game, rating desc, id): a page costs a
count and one index range, whatever the number of bots.
"""

from __future__ import annotations

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from web.bots.models import Bot, Game


def leaderboard(request: HttpRequest, game: str = Game.FIVE_CUCUMBERS) -> HttpResponse:
    if game not in Game.values:
        raise Http404("no such game")
    bots = Bot.objects.on_leaderboard(game).select_related("owner")
    page = Paginator(bots, settings.LEADERBOARD_PAGE_SIZE).get_page(request.GET.get("page"))
    offset = page.start_index()
    rows = [(offset + index, bot) for index, bot in enumerate(page.object_list)]
    return render(
        request,
        "pages/leaderboard.html",
        {
            "game": Game(game),
            "games": Game,
            "page": page,
            "rows": rows,
            "provisional_games": settings.PROVISIONAL_GAMES,
        },
    )
