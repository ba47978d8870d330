"""Recurring house events: the next occurrence opens when due (once, even with two beats),
the house bots are entered, the weekly house series per game is made when configured, and
"next event" names what comes; then a whole occurrence opened, played and ended by beat
alone, on the real platform worker (with its scheduler), Redis and an arena worker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from cucumbers.games import GameName
from tests.web.matches.celery_worker import (
    AS_SHIPPED,
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from tests.web.test_end_to_end import sandbox_for_this_machine
from tests.web.tournaments.helpers import house_bot
from web.bots.models import GAMES
from web.matches.models import Match, MatchStatus
from web.tournaments.models import RecurringTournament, Tournament, TournamentStatus
from web.tournaments.recurring import ensure_house_series, next_event, next_start, open_next, recur
from web.tournaments.standings import standings

GAME = GameName.FIVE_CUCUMBERS


def series(**fields: object) -> RecurringTournament:
    values: dict[str, object] = {
        "name": "Nightly",
        "game": GAME,
        "first_start": timezone.now() + timedelta(hours=2),
        "every_days": 1,
        "opens_days_before": 1,
        "table_size_min": 4,
        "table_size_max": 4,
        "deals_per_table": 1,
    }
    values.update(fields)
    return RecurringTournament.objects.create(**values)


def test_the_next_start_follows_the_period_from_the_first() -> None:
    first = datetime(2026, 12, 5, 18, tzinfo=UTC)
    weekly = RecurringTournament(first_start=first, every_days=7)
    assert next_start(weekly, first - timedelta(days=30)) == first
    assert next_start(weekly, first) == first + timedelta(days=7)
    assert next_start(weekly, first + timedelta(days=8)) == first + timedelta(days=14)


@pytest.mark.django_db
def test_an_occurrence_opens_once_when_due_with_the_house_bots_entered() -> None:
    bots = [house_bot(name) for name in ("heuristic", "highest", "random", "lowest")]
    house_bot("random", GameName.CONCOMBRE)  # another game's: not entered
    nightly = series()
    opened = open_next(nightly.pk)
    assert opened is not None and opened.status == TournamentStatus.OPEN
    assert opened.starts_at == nightly.first_start == opened.entry_deadline
    assert opened.name == f"Nightly {nightly.first_start:%Y-%m-%d}" and opened.series == nightly
    assert {entry.bot_id for entry in opened.entries.all()} == {bot.pk for bot in bots}
    # Open already: beat's next run (or a second beat) opens nothing more.
    assert open_next(nightly.pk) is None
    assert recur() == {"series_made": 0, "opened": 0}
    assert Tournament.objects.filter(series=nightly).count() == 1


@pytest.mark.django_db
def test_nothing_opens_before_its_entries_are_due_nor_for_an_inactive_series() -> None:
    later = series(first_start=timezone.now() + timedelta(days=3), opens_days_before=1)
    assert open_next(later.pk) is None
    stopped = series(active=False)
    assert open_next(stopped.pk) is None
    assert not Tournament.objects.exists()


@pytest.mark.django_db
def test_after_an_occurrence_starts_the_next_one_opens_a_period_later() -> None:
    nightly = series(first_start=timezone.now() + timedelta(minutes=5))
    first = open_next(nightly.pk)
    assert first is not None
    Tournament.objects.filter(pk=first.pk).update(status=TournamentStatus.RUNNING)
    # Entries for the next open a day before it: when this one starts.
    assert open_next(nightly.pk, first.starts_at - timedelta(seconds=1)) is None
    second = open_next(nightly.pk, first.starts_at + timedelta(seconds=1))
    assert second is not None and second.starts_at == first.starts_at + timedelta(days=1)


@pytest.mark.django_db
def test_the_house_series_is_one_weekly_event_per_game_when_configured(settings: object) -> None:
    settings.HOUSE_EVENTS = False  # type: ignore[attr-defined]
    assert ensure_house_series() == []
    settings.HOUSE_EVENTS = True  # type: ignore[attr-defined]
    wednesday = datetime(2026, 12, 2, 10, tzinfo=UTC)
    made = ensure_house_series(wednesday)
    assert sorted(s.game for s in made) == sorted(GAMES)
    assert {s.first_start for s in made} == {datetime(2026, 12, 5, 18, tzinfo=UTC)}
    assert {s.every_days for s in made} == {7}
    # A series staff stopped stays stopped: none is made again for its game.
    RecurringTournament.objects.update(active=False)
    assert ensure_house_series(wednesday) == []


@pytest.mark.django_db
def test_the_tournaments_page_and_the_landing_page_name_the_next_event(client: Client) -> None:
    assert "No tournament is planned" in client.get("/tournaments/").content.decode()
    house_bot("heuristic")
    opened = open_next(series().pk)
    assert opened is not None and next_event() == opened
    for path in ("/tournaments/", "/"):
        page = client.get(path).content.decode()
        assert "Next event" in page and opened.name in page and "1 entrant" in page


@pytest.mark.django_db(transaction=True)
def test_a_recurring_event_is_opened_played_and_ended_by_beat_alone(tmp_path: Path) -> None:
    require_redis()
    sandbox = sandbox_for_this_machine().value
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    bots = [house_bot(name) for name in ("heuristic", "highest", "random", "lowest")]
    # Its first start a little ahead: beat opens it at once (entries are due a day before).
    nightly = series(first_start=timezone.now() + timedelta(seconds=20))
    # Beat every 2 s; no ladder beside the event.
    env = platform_env(
        TOURNAMENT_ADVANCE_SECONDS="2", RECURRING_SECONDS="2", LADDER_QUEUE_TARGET="0"
    )
    with (
        platform_broker(),
        platform_worker(env, platform_log, AS_SHIPPED),
        arena_worker(arena_env(sandbox), arena_log),
    ):

        def opened() -> bool:
            return Tournament.objects.filter(series=nightly).exists()

        wait_for(opened, 90, "beat to open the occurrence", platform_log)
        event = Tournament.objects.get(series=nightly)
        assert event.status == TournamentStatus.OPEN and event.entries.count() == 4

        def finished() -> bool:
            event.refresh_from_db()
            return event.status == TournamentStatus.FINISHED

        wait_for(
            finished, 420, "beat to start and the last match to end it", platform_log, arena_log
        )

        def next_opened() -> bool:
            return Tournament.objects.filter(series=nightly, status=TournamentStatus.OPEN).exists()

        wait_for(next_opened, 60, "the next occurrence", platform_log)
    matches = Match.objects.filter(tournament_table__tournament=event)
    assert matches.count() >= 4  # one table of four, a match per seat rotation
    assert {(m.status, m.sandbox) for m in matches} == {(MatchStatus.FINISHED, sandbox)}
    table = standings(event)
    assert {row.entry.bot_id for row in table.rows} == {bot.pk for bot in bots}
    assert all(row.games > 0 and row.faults == 0 for row in table.rows)
    following = Tournament.objects.get(series=nightly, status=TournamentStatus.OPEN)
    assert following.starts_at == event.starts_at + timedelta(days=1)
    assert following.entries.count() == 4
