"""The tournaments' pages: the list, and one event's page (entries, live standings with
intervals, head-to-head, every round's tables and matches). Entering and withdrawing are
forms here and endpoints of the API; the work is in ``entering.py``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from web.bots.house import HOUSE_USERNAME
from web.bots.models import Bot
from web.users import signed_in

from .entering import EntryError, enter, withdraw
from .models import Tournament, TournamentMatch, TournamentStatus
from .recurring import next_event
from .standings import standings

#: Entrants beyond this many get no head-to-head grid (it would be a wall of numbers); the
#: API gives every pair.
HEAD_TO_HEAD_LIMIT = 16


def tournament_list(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.annotate(entrants=Count("entries"))
    groups = [
        (
            "Open for entries",
            tournaments.filter(status=TournamentStatus.OPEN).order_by("starts_at"),
        ),
        ("Running", tournaments.filter(status=TournamentStatus.RUNNING).order_by("-started_at")),
        (
            "Finished",
            tournaments.filter(
                status__in=[TournamentStatus.FINISHED, TournamentStatus.CANCELLED]
            ).order_by("-finished_at")[:50],
        ),
    ]
    context = {"groups": groups, "next_event": next_event()}
    return render(request, "tournaments/list.html", context)


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    entries = list(tournament.entries.select_related("bot"))
    enterable: list[Bot] = []
    own_entry = None
    if request.user.is_authenticated and tournament.accepts_entries:
        user = signed_in(request)
        own_entry = next((entry for entry in entries if entry.owner_id == user.pk), None)
        playing = Bot.objects.on_leaderboard(tournament.game).select_related("owner")
        # One bot per owner: once one of yours is in, none of your others is offered (staff
        # may still enter the house's reference bots).
        mine = playing.none() if own_entry is not None else playing.filter(owner=user)
        if user.is_staff:
            mine = mine | playing.filter(owner__username=HOUSE_USERNAME)
        taken = {entry.bot_id for entry in entries}
        enterable = [bot for bot in mine if bot.pk not in taken]
    table = standings(tournament) if tournament.status != TournamentStatus.OPEN else None
    rounds: dict[int, list[TournamentMatch]] = {}
    for row in table.tables if table is not None else []:
        rounds.setdefault(row.round, []).append(row)
    grid = None
    if table is not None and len(table.rows) <= HEAD_TO_HEAD_LIMIT:
        grid = [
            (row, [table.record(row.entry.pk, other.entry.pk) for other in table.rows])
            for row in table.rows
        ]
    context = {
        "tournament": tournament,
        "entries": entries,
        "enterable": enterable,
        "own_entry": own_entry,
        "standings": table,
        "grid": grid,
        "rounds": sorted(rounds.items()),
        "live": tournament.status in (TournamentStatus.OPEN, TournamentStatus.RUNNING),
    }
    return render(request, "tournaments/detail.html", context)


@login_required
@require_POST
def tournament_enter(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    try:
        bot_id = int(request.POST.get("bot", ""))
    except ValueError:
        messages.error(request, "Choose one of your bots.")
        return redirect(tournament)
    try:
        entry = enter(signed_in(request), tournament.pk, bot_id)
    except EntryError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"{entry.name} is entered in {tournament}.")
    return redirect(tournament)


@login_required
@require_POST
def tournament_withdraw(request: HttpRequest, tournament_id: int, entry_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    try:
        withdraw(signed_in(request), tournament.pk, entry_id)
    except EntryError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Your entry is withdrawn from {tournament}.")
    return redirect(tournament)
