"""Public match pages: the recent matches, one match, and its games' replays."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.functional import cached_property

from cucumbers.tracebacks import format_json
from web.bots.models import GAME_CHOICES, GAMES, Bot
from web.caching import COUNT, remembered
from web.elo import elo_settings
from web.matches.status import place_in_queue

from .access import visible_matches
from .list_rows import match_rows
from .models import Match, MatchGame, MatchStatus, Participant
from .privacy import (
    HELD_MESSAGE,
    fault_moment,
    faults_seen,
    held_message,
    outputs_seen,
    own_faults_seen,
    replay_bytes_seen,
    sight,
)

PAGE_SIZE = 50
#: How long the match list's count is kept (web/caching.py).
MATCH_COUNT_SECONDS = 60


if TYPE_CHECKING:
    _MatchPaginator = Paginator[Match]
else:  # Django's Paginator is generic to its stubs only
    _MatchPaginator = Paginator


class CountKeptPaginator(_MatchPaginator):
    """A paginator whose count is kept in the cache (``MATCH_COUNT_SECONDS``)."""

    def __init__(self, matches: QuerySet[Match], per_page: int, *, key: str) -> None:
        super().__init__(matches, per_page)
        self.matches = matches
        self.key = key

    @cached_property
    def count(self) -> int:
        return remembered(self.key, MATCH_COUNT_SECONDS, self.matches.count, COUNT)


def viewer_kind(user: AbstractBaseUser | AnonymousUser) -> str:
    """Whose list of matches this is: staff and anonymous visitors each see one list, a
    signed-in user sees the public matches and the validations of their own bots."""
    if not user.is_authenticated:
        return "public"
    return "staff" if getattr(user, "is_staff", False) else f"user{user.pk}"


def match_list(request: HttpRequest) -> HttpResponse:
    matches = (
        visible_matches(request.user)
        .filter(status=MatchStatus.FINISHED)
        .order_by("-finished_at", "-id")
    )
    game = request.GET.get("game")
    extra: dict[str, str] = {}
    if game in GAMES:
        matches = matches.filter(game=game)
        extra["game"] = str(game)
    bot = None
    bot_id = request.GET.get("bot", "")
    if bot_id.isdigit() and int(bot_id) < 2**63:  # beyond a bigint: no such bot
        bot = Bot.objects.select_related("owner").filter(pk=int(bot_id)).first()
    if bot is not None:
        # Its match ids first (an index-only range): joined in the query, a bot in one
        # match in a hundred makes PostgreSQL walk every finished match's index entry.
        mine = Participant.objects.filter(bot=bot).order_by().values_list("match_id", flat=True)
        matches = matches.filter(pk__in=list(mine))
        extra["bot"] = str(bot.pk)
    # The seats' names and bot ids are all the list shows: no bot rows (225 a page).
    seats = Participant.objects.only("match_id", "index", "bot_id", "name", "placement")
    # Counting 200,000 finished matches costs more than the page itself: the count (the
    # "page 3 of 4,000") is kept a minute per viewer kind and filter; the rows are live.
    counted = f"{viewer_kind(request.user)}:{extra.get('game', '')}:{extra.get('bot', '')}"
    page = CountKeptPaginator(
        matches.prefetch_related(Prefetch("participants", queryset=seats)),
        PAGE_SIZE,
        key=f"match-count:{counted}",
    ).get_page(request.GET.get("page"))
    context = {"page": page, "game": game, "games": GAME_CHOICES, "bot": bot}
    context["rows_html"] = match_rows(page.object_list)
    return render(request, "matches/list.html", context | {"extra": urlencode(extra)})


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_object_or_404(visible_matches(request.user), pk=match_id)
    participants = list(match.participants.select_related("bot__owner", "version"))
    names = {p.index: p.name for p in participants}
    public = match.results_public
    seen = sight(request.user, participants, public=public)
    # Held (its deal set still being played): nobody sees a placement, a seed, a replay
    # or another bot's fault; owners see their own bots' words at once.
    shown_faults = faults_seen if public else own_faults_seen
    games = [
        (
            game,
            [names.get(index, "?") for index in game.placement] if public else [],
            [
                {
                    **fault,
                    "name": names.get(fault["participant"], "?"),
                    "moment": fault_moment(game.number, fault),
                    "traceback_text": format_json(fault["traceback"])
                    if "traceback" in fault
                    else "",
                }
                for fault in shown_faults(game, seen)
            ],
            [(names.get(index, "?"), text) for index, text in outputs_seen(game, seen).items()],
        )
        for game in match.games.all()
    ]
    context = {"match": match, "participants": participants, "games": games, "names": names}
    context["public"] = public
    context["mine"] = seen.everything or bool(seen.own)
    context["held"] = held_message(match)
    context["elo_moved"] = public and any(p.rating_change is not None for p in participants)
    context["elo"] = elo_settings()
    if match.deal_set is not None:
        context["rotations"] = Match.objects.filter(deal_set=match.deal_set).order_by("rotation")
    context["ahead"] = place_in_queue(match) if match.status == MatchStatus.QUEUED else None
    # Its owner (or staff) may ask for a move review of a bot's decisions (web/reviews).
    context["reviewable"] = (
        [p for p in participants if seen.sees(p.index)]
        if public and match.status == MatchStatus.FINISHED and any(g[0].replay for g in games)
        else []
    )
    return render(request, "matches/detail.html", context)


def replay_download(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    match = get_object_or_404(visible_matches(request.user), pk=match_id)
    game = get_object_or_404(MatchGame, match=match, number=number)
    if not match.results_public:
        raise PermissionDenied(HELD_MESSAGE)
    seen = sight(request.user, list(match.participants.select_related("bot")))
    data = replay_bytes_seen(game, seen)
    response = HttpResponse(data, content_type="application/gzip")
    filename = f"match-{match_id}-game-{number:03d}.json.gz"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
