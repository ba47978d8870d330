"""Tournament matches: a tournament started when due (entries frozen, the whole schedule
queued, each table a deal set), rated when the event is, finished when its last match ends
(at once, from this kind's ``ended`` hook; beat's ``tournaments.advance`` starts the events
that are due and finishes any whose end was not heard). Entries and standings are the
tournaments app's (``web.tournaments``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from arena.contract import MatchKind
from arena.schedule import ScheduleError, TableSizes, default_rounds, plan_rounds
from cucumbers.match import GameOutcome, derive_seed
from web.bots.models import Bot
from web.matches.models import Match, MatchStatus, Participant
from web.tournaments.models import Entry, Tournament, TournamentMatch, TournamentStatus
from web.tournaments.notices import tell_entrants

from ..factory import create_deal_set
from ..kind import KindPolicy, Placed
from ..rating import rate

logger = logging.getLogger(__name__)


def start(tournament_id: int, *, send: bool = True) -> Tournament:
    """Start an open tournament now: freeze each entry's active version (an entry whose bot
    has none any more is dropped), plan the rounds and queue every table's match (on the
    ``tournament`` queue once this commits; ``send=False`` leaves them to be played in the
    foreground). Too few entries: the tournament is cancelled, saying why."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        if tournament.status != TournamentStatus.OPEN:
            return tournament
        entries = list(tournament.entries.select_related("bot__owner", "bot__active_version"))
        playing: list[Entry] = []
        for entry in entries:
            bot = entry.bot
            if bot is None or not bot.on_leaderboard or bot.game != tournament.game:
                logger.info(
                    "tournament %s: entry %s dropped (no active version of its game)",
                    tournament.pk,
                    entry,
                )
                entry.delete()
                continue
            entry.version = bot.active_version
            playing.append(entry)
        Entry.objects.bulk_update(playing, ["version"])
        tournament.started_at = timezone.now()
        sizes = TableSizes(tournament.table_size_min, tournament.table_size_max)
        try:
            rounds = tournament.rounds or default_rounds(len(playing), sizes)
            schedule = plan_rounds(len(playing), sizes, rounds, tournament.seed)
        except ScheduleError as error:
            tournament.status = TournamentStatus.CANCELLED
            tournament.cancel_reason = f"Too few entries: {error}."[:200]
            tournament.finished_at = tournament.started_at
            tournament.save(update_fields=["status", "cancel_reason", "started_at", "finished_at"])
            return tournament
        tournament.status = TournamentStatus.RUNNING
        tournament.save(update_fields=["status", "started_at"])
        for number, tables in enumerate(schedule, start=1):
            for table_number, table in enumerate(tables, start=1):
                seated = [playing[index] for index in table]
                bots: list[Bot] = [entry.bot for entry in seated if entry.bot is not None]
                # Each rotation of the table's deals is a match of its own: no entrant's
                # bot sees a deal twice.
                for match in create_deal_set(
                    tournament.game,
                    MatchKind.TOURNAMENT,
                    bots,
                    rated=tournament.rated,
                    send=send,
                    deals=tournament.deals_per_table,
                    versions=[entry.version for entry in seated if entry.version is not None],
                    seed=derive_seed("tournament", tournament.seed, number, table_number),
                ):
                    TournamentMatch.objects.create(
                        tournament=tournament,
                        match=match,
                        round=number,
                        table=table_number,
                        rotation=match.rotation or 0,
                        entries=[entry.pk for entry in seated],
                    )
    return tournament


def finish_if_done(tournament_id: int) -> bool:
    """Mark a running tournament finished once none of its matches is queued or running;
    True when this call did."""
    with transaction.atomic():
        pending = Match.objects.filter(
            tournament_table__tournament_id=tournament_id,
            status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING, MatchStatus.HELD],
        )
        if pending.exists():
            return False
        finished = bool(
            Tournament.objects.filter(pk=tournament_id, status=TournamentStatus.RUNNING).update(
                status=TournamentStatus.FINISHED, finished_at=timezone.now()
            )
        )
        if finished:
            tell_entrants(tournament_id)  # their owners get the final standings by mail
        return finished


def advance() -> dict[str, int]:
    """Start the tournaments that are due, finish those whose matches are all over."""
    now = timezone.now()
    due = Tournament.objects.filter(status=TournamentStatus.OPEN, starts_at__lte=now)
    started = [start(pk).pk for pk in due.values_list("pk", flat=True)]
    running = Tournament.objects.filter(status=TournamentStatus.RUNNING)
    finished = [pk for pk in running.values_list("pk", flat=True) if finish_if_done(pk)]
    return {"started": len(started), "finished": len(finished)}


class TournamentPolicy(KindPolicy):
    """Rated when the event is; the event's last match ends the event."""

    kind = MatchKind.TOURNAMENT

    def recorded(
        self, match: Match, participants: Sequence[Participant], outcomes: Sequence[GameOutcome]
    ) -> None:
        if match.rated:
            rate(match, participants, outcomes)

    def set_recorded(
        self, match: Match, participants: Sequence[Participant], games: Sequence[Placed]
    ) -> None:
        if match.rated:
            rate(match, participants, games)

    def ended(self, match_id: int) -> None:
        row = TournamentMatch.objects.filter(match_id=match_id).values_list(
            "tournament_id", flat=True
        )
        tournament_id = row.first()
        if tournament_id is not None:
            finish_if_done(tournament_id)
