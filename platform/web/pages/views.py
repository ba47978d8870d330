"""The landing page and the leaderboard of each game (rank, bot, owner, Elo, games, win
rate, provisional marker), the documents (rules, ratings...), the getting-started page and
the SDK's wheel.

Leaderboards are paginated on the partial index ``bot_leaderboard`` (game, rating desc, id):
a page costs a count and one index range, whatever the number of bots.
"""

from __future__ import annotations

from django.conf import settings
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control

from web.bots.models import Bot, Game

from . import documents, sdk


def home(request: HttpRequest) -> HttpResponse:
    """What this is and how to start, beside the first game's leaderboard."""
    return leaderboard(request, Game.FIVE_CUCUMBERS, landing=True)


def leaderboard(
    request: HttpRequest, game: str = Game.FIVE_CUCUMBERS, *, landing: bool = False
) -> HttpResponse:
    if game not in Game.values:
        raise Http404("no such game")
    bots = Bot.objects.on_leaderboard(game).select_related("owner")
    page = Paginator(bots, settings.LEADERBOARD_PAGE_SIZE).get_page(request.GET.get("page"))
    offset = page.start_index()
    rows = [(offset + index, bot) for index, bot in enumerate(page.object_list)]
    above = bots[offset - 2] if offset > 1 and rows else None  # the last bot of the page before
    return render(
        request,
        "pages/leaderboard.html",
        {
            "game": Game(game),
            "games": Game,
            "page": page,
            "rows": rows,
            "provisional_games": settings.PROVISIONAL_GAMES,
            "landing": landing,
            "tied": overlapping([bot for _, bot in rows], above),
        },
    )


def overlapping(ranked: list[Bot], above: Bot | None) -> set[int]:
    """The bots whose 95% interval overlaps the one of the bot ranked just above: the
    ladder cannot tell them apart yet, and the page says so instead of ranking them."""
    tied = set()
    for bot in ranked:
        if above is not None and bot.rating_high >= above.rating_low:
            tied.add(bot.pk)
        above = bot
    return tied


def document(request: HttpRequest, slug: str) -> HttpResponse:
    if slug not in documents.PUBLIC:
        raise Http404("no such document")
    return render(request, "pages/document.html", {"doc": documents.document(slug)})


def getting_started(request: HttpRequest) -> HttpResponse:
    """The commands a newcomer runs, written for this site (its address, its SDK)."""
    wheel = sdk.current_wheel()
    return render(
        request,
        "pages/getting_started.html",
        {
            "site": request.build_absolute_uri("/").rstrip("/"),
            "wheel_url": request.build_absolute_uri(f"/sdk/{wheel.name}") if wheel else None,
            "games": Game,
        },
    )


@cache_control(public=True, max_age=3600)
def sdk_wheel(request: HttpRequest, filename: str) -> FileResponse:
    path = sdk.sdk_dir() / filename
    if not sdk.WHEEL_NAME.match(filename) or not path.is_file():
        raise Http404("no such file: the SDK's wheel is on the getting-started page")
    return FileResponse(path.open("rb"), as_attachment=True, content_type="application/zip")
