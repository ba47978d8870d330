"""The landing page and the leaderboard of each game (rank, bot, owner, Elo, games, win
rate, provisional marker), the documents (rules, ratings...), the getting-started page and
the SDK's wheel.

Leaderboards are paginated on the partial index ``bot_leaderboard`` (game, unrated, rating
desc, id: rated bots first, ``web.bots.ranking``): a page costs a count, one index range (its
ids) and those rows, whatever the number of bots.
"""

from __future__ import annotations

from django.conf import settings
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control

from cucumbers.games import GameName, title
from web.bots.models import GAME_CHOICES, GAMES, Bot
from web.bots.ranking import ranks, tied_with_above
from web.tournaments.recurring import next_event

from . import documents, sdk
from .landing import featured_game, live_figures
from .leaderboard_rows import leaderboard_rows


def home(request: HttpRequest) -> HttpResponse:
    """What this is and how to start, a recent top match playing in the replay viewer, the
    live figures and the next tournament, above the first game's leaderboard."""
    extra: dict[str, object] = {
        "featured": featured_game(),
        "figures": live_figures(),
        "next_event": next_event(),
    }
    return leaderboard(request, GameName.FIVE_CUCUMBERS, landing=True, extra=extra)


def leaderboard(
    request: HttpRequest,
    game: str = GameName.FIVE_CUCUMBERS,
    *,
    landing: bool = False,
    extra: dict[str, object] | None = None,
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
    # The bot ranked just above the page (its interval decides whether the first row is
    # tied with it), by its id from the same index.
    above_id = paginator.object_list[offset - 2] if offset > 1 and ids else None
    found = listed.select_related("owner").in_bulk([*ids, *([above_id] if above_id else [])])
    bots = [found[pk] for pk in ids if pk in found]
    rows = list(zip(ranks(bots, offset), bots, strict=True))
    above = found.get(above_id) if above_id is not None else None
    tied = tied_with_above(bots, above)
    return render(
        request,
        "pages/leaderboard.html",
        {
            "game": game,
            "game_title": title(game),
            "games": GAME_CHOICES,
            "page": page,
            "rows": rows,
            "tied": bool(tied),
            "landing": landing,
            "rows_html": leaderboard_rows(rows, tied),
            **(extra or {}),
        },
    )


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
