"""House events that happen by themselves: each :class:`RecurringTournament` (a series, made
in the admin, or one weekly round robin per game that :func:`ensure_house_series` makes when
``HOUSE_EVENTS`` is on) gets its next occurrence opened for entries by beat's
``tournaments.recur``; ``tournaments.advance`` then starts and ends it like any tournament.

An occurrence is an ordinary :class:`Tournament`, made as the admin and the ``tournament``
command make one (``full_clean``, a new seed) and with the house bots entered through
:func:`~web.tournaments.entering.enter`, as the command's ``--house`` does.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from cucumbers.games import title
from web.bots.house import HOUSE_USERNAME
from web.bots.models import GAMES, Bot

from .entering import EntryError, enter
from .models import RecurringTournament, Tournament, TournamentStatus, new_seed

logger = logging.getLogger(__name__)

#: The weekly house event's start when ``HOUSE_EVENTS`` makes it: Saturday, 18:00 UTC.
HOUSE_WEEKDAY, HOUSE_HOUR = 5, 18


def next_start(series: RecurringTournament, after: datetime) -> datetime:
    """The first start of the series strictly after ``after``."""
    period = timedelta(days=series.every_days)
    if after < series.first_start:
        return series.first_start
    periods = (after - series.first_start) // period + 1
    return series.first_start + periods * period


def open_next(series_id: int, now: datetime | None = None) -> Tournament | None:
    """Open the series' next occurrence if its entries are due to open and none of it is
    open already; the new tournament, or None."""
    now = now or timezone.now()
    with transaction.atomic():
        # The series' row, locked: two beats (or a beat and the admin) open one occurrence.
        series = RecurringTournament.objects.select_for_update().get(pk=series_id)
        if not series.active:
            return None
        occurrences = Tournament.objects.filter(series=series)
        if occurrences.filter(status=TournamentStatus.OPEN).exists():
            return None
        latest = occurrences.order_by("-starts_at").values_list("starts_at", flat=True).first()
        close_margin = timedelta(minutes=series.entries_close_minutes_before)
        # The next start whose entries have not closed yet, after the last occurrence's.
        start = next_start(series, max(now + close_margin, latest or now))
        if start - timedelta(days=series.opens_days_before) > now:
            return None
        tournament = Tournament(
            name=f"{series.name} {start:%Y-%m-%d}"[:80],
            description=series.description,
            game=series.game,
            table_size_min=series.table_size_min,
            table_size_max=series.table_size_max,
            rounds=series.rounds,
            deals_per_table=series.deals_per_table,
            rated=series.rated,
            entry_deadline=start - close_margin,
            starts_at=start,
            seed=new_seed(),
            series=series,
        )
        tournament.full_clean()
        tournament.save()
        # In the same transaction: the occurrence appears with its house bots entered.
        if series.enter_house_bots:
            enter_house_bots(tournament)
    logger.info("recurring %s: %s opened, starts %s", series.pk, tournament, start.isoformat())
    return tournament


def enter_house_bots(tournament: Tournament) -> int:
    """Enter every playing house bot of the tournament's game (as the command's ``--house``);
    the number entered."""
    house = User.objects.filter(username=HOUSE_USERNAME).first()
    if house is None:
        return 0
    entered = 0
    for bot in Bot.objects.on_leaderboard(tournament.game).filter(owner=house):
        try:
            enter(house, tournament.pk, bot.pk)
        except EntryError as error:  # entries closed meanwhile, already entered...
            logger.info("recurring: %s not entered in %s: %s", bot, tournament, error.message)
        else:
            entered += 1
    return entered


def ensure_house_series(now: datetime | None = None) -> list[RecurringTournament]:
    """With ``HOUSE_EVENTS`` on, one weekly round robin per game that has no series at all
    (a series staff deactivated stays as they left it); the series made."""
    if not settings.HOUSE_EVENTS:
        return []
    now = now or timezone.now()
    days_ahead = (HOUSE_WEEKDAY - now.weekday()) % 7
    first = (now + timedelta(days=days_ahead)).replace(
        hour=HOUSE_HOUR, minute=0, second=0, microsecond=0
    )
    made = []
    for game in GAMES:
        if RecurringTournament.objects.filter(game=game).exists():
            continue
        made.append(
            RecurringTournament.objects.create(
                name=f"Weekly {title(game)} round robin",
                description=(
                    "The house's weekly event: every bot entered meets the field and the"
                    " house's reference bots in a round robin over tables of four, with"
                    " duplicate deals. Enter one bot of yours before the start."
                ),
                game=game,
                first_start=first,
                table_size_min=4,
                table_size_max=4,
                deals_per_table=20,
            )
        )
    return made


def recur(now: datetime | None = None) -> dict[str, int]:
    """Beat's job: the house series when configured, then each active series' next
    occurrence when its entries are due to open."""
    made = ensure_house_series(now)
    ids = RecurringTournament.objects.filter(active=True).values_list("pk", flat=True)
    opened = [t for pk in ids if (t := open_next(pk, now)) is not None]
    return {"series_made": len(made), "opened": len(opened)}


def next_event() -> Tournament | None:
    """What a visitor can look forward to: the open tournament that starts first, else the
    one running now."""
    events = Tournament.objects.annotate(entrants=Count("entries"))
    upcoming = events.filter(status=TournamentStatus.OPEN).order_by("starts_at")
    running = events.filter(status=TournamentStatus.RUNNING).order_by("-started_at")
    return upcoming.first() or running.first()
