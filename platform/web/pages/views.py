"""The landing page and the leaderboard of each game (rank, bot, owner, Elo, games, win
rate, provisional marker), the documents (rules, ratings...), the getting-started page and
the SDK's wheel.

Leaderboards are paginated on the partial index ``bot_leaderboard`` (game, rating desc, id):
a page costs a count, one index range (its ids) and those rows, whatever the number of bots.
"""

from __future__ import annotations

from django.conf import settings
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control

from cucumbers.games import GameName, title
from web.bots.models import GAME_CHOICES, GAMES, Bot

from . import documents, sdk
from .leaderboard_rows import leaderboard_rows


def home(request: HttpRequest) -> HttpResponse:
    """What this is and how to start, beside the first game's leaderboard."""
    return leaderboard(request, GameName.FIVE_CUCUMBERS, landing=True)


def leaderboard(
    request: HttpRequest, game: str = GameName.FIVE_CUCUMBERS, *, landing: bool = False
) -> HttpResponse:
    if game not in GAMES:
        raise Http404("no such game")
    listed = Bot.objects.on_leaderboard(game)
    # The page's ids first, from the index alone (an index-only scan, however deep the
    # page), then those 50 rows: asked for whole rows, PostgreSQL would rather sort all
    # of the game's bots than walk the index past thousands of them.
    paginator = Paginator(listed.values_list("pk", flat=True), settings.LEADERBOARD_PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    ids = list(page.object_list)
    offset = page.start_index()
    # The bot ranked just above the page (its interval decides the first row's "≈"), by
    # its id from the same index.
    above_id = paginator.object_list[offset - 2] if offset > 1 and ids else None
    found = listed.select_related("owner").in_bulk([*ids, *([above_id] if above_id else [])])
    rows = [(offset + index, found[pk]) for index, pk in enumerate(ids) if pk in found]
    above = found.get(above_id) if above_id is not None else None
    tied = overlapping([bot for _, bot in rows], above)
    return render(
        request,
        "pages/leaderboard.html",
        {
            "game": game,
            "game_title": title(game),
            "games": GAME_CHOICES,
            "page": page,
            "rows": rows,
            "landing": landing,
            "rows_html": leaderboard_rows(rows, tied),
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
            "games": GAME_CHOICES,
        },
    )


@cache_control(public=True, max_age=3600)
def sdk_wheel(request: HttpRequest, filename: str) -> FileResponse:
    path = sdk.sdk_dir() / filename
    if not sdk.WHEEL_NAME.match(filename) or not path.is_file():
        raise Http404("no such file: the SDK's wheel is on the getting-started page")
    return FileResponse(path.open("rb"), as_attachment=True, content_type="application/zip")
