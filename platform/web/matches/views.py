"""Public match pages: the recent matches, one match, and its games' replays."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from cucumbers.replay import dumps_replay, gzip_bytes
from web.bots.models import Bot, Game
from web.pipeline.status import place_in_queue

from .access import visible_matches
from .models import MatchGame, MatchStatus, Participant
from .privacy import faults_seen, outputs_seen, replay_seen, sight
from .replays import read_replay_bytes

PAGE_SIZE = 50


def match_list(request: HttpRequest) -> HttpResponse:
    matches = (
        visible_matches(request.user)
        .filter(status=MatchStatus.FINISHED)
        .order_by("-finished_at", "-id")
    )
    game = request.GET.get("game")
    extra: dict[str, str] = {}
    if game in Game.values:
        matches = matches.filter(game=game)
        extra["game"] = str(game)
    bot = None
    bot_id = request.GET.get("bot", "")
    if bot_id.isdigit() and int(bot_id) < 2**63:  # beyond a bigint: no such bot
        bot = Bot.objects.filter(pk=int(bot_id)).first()
    if bot is not None:
        matches = matches.filter(participants__bot=bot)
        extra["bot"] = str(bot.pk)
    seats = Participant.objects.select_related("bot")
    page = Paginator(
        matches.prefetch_related(Prefetch("participants", queryset=seats)), PAGE_SIZE
    ).get_page(request.GET.get("page"))
    context = {"page": page, "game": game, "games": Game, "bot": bot}
    return render(request, "matches/list.html", context | {"extra": urlencode(extra)})


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_object_or_404(visible_matches(request.user), pk=match_id)
    participants = list(match.participants.select_related("bot__owner", "version"))
    names = {p.index: p.name for p in participants}
    seen = sight(request.user, participants)
    games = [
        (
            game,
            [names.get(index, "?") for index in game.placement],
            [
                {**fault, "name": names.get(fault["participant"], "?")}
                for fault in faults_seen(game, seen)
            ],
            [(names.get(index, "?"), text) for index, text in outputs_seen(game, seen).items()],
        )
        for game in match.games.all()
    ]
    context = {"match": match, "participants": participants, "games": games, "names": names}
    context["ahead"] = place_in_queue(match) if match.status == MatchStatus.QUEUED else None
    return render(request, "matches/detail.html", context)


def replay_download(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    match = get_object_or_404(visible_matches(request.user), pk=match_id)
    game = get_object_or_404(MatchGame, match=match, number=number)
    seen = sight(request.user, list(match.participants.select_related("bot")))
    if seen.everything or not game.faults:
        data = read_replay_bytes(game)
    else:  # fault details the viewer may not read are withheld
        data = gzip_bytes(dumps_replay(replay_seen(game, seen)))
    response = HttpResponse(data, content_type="application/gzip")
    filename = f"match-{match_id}-game-{number:03d}.json.gz"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
