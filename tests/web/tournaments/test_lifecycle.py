"""A tournament's life: at the start each entry's active version is frozen, the schedule
queued as tournament matches (duplicate deals, unrated unless the event says so, on the
tournament queue); too few entries cancel it; its last match, finished or failed, finishes
it; played to the end (in the foreground, process runner) its standings follow the bots'
strength."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from arena.broker import TOURNAMENT_QUEUE, queue_for
from arena.contract import MatchKind
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.tournaments.helpers import HIGHEST, LOWEST, house_bot, open_tournament, playing_bot
from web.bots.models import BotVersion, VersionStatus
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline.kinds.tournament import advance, start
from web.pipeline.running import run_match
from web.pipeline.transitions import RunResult, fail
from web.sandbox import SandboxKind
from web.tournaments.entering import enter
from web.tournaments.models import TournamentStatus
from web.tournaments.standings import standings

pytestmark = pytest.mark.django_db(transaction=True)

#: The schedule's and deals' seed: with deterministic bots (and random ones seeded from the
#: match), the whole event is the same every run.
SEED = 20261201


def field_of(count: int) -> list[User]:
    return [UserFactory(username=f"owner{n}") for n in range(count)]


def entered(tournament_id: int, owners: list[User], source: bytes = GOOD_BOT) -> list[int]:
    bots = [
        playing_bot(owner, f"bot{n}", source + f"# {n}\n".encode())
        for n, owner in enumerate(owners)
    ]
    return [enter(owner, tournament_id, bot.pk).pk for owner, bot in zip(owners, bots, strict=True)]


def test_the_start_freezes_versions_and_queues_the_whole_schedule() -> None:
    tournament = open_tournament(table_size_min=3, table_size_max=3, deals_per_table=2)
    owners = field_of(6)
    entered(tournament.pk, owners)
    started = start(tournament.pk)
    assert started.status == TournamentStatus.RUNNING and started.started_at is not None
    entries = list(started.entries.select_related("bot"))
    assert all(e.version is not None and e.version == e.bot.active_version for e in entries)
    tables = list(started.tables.select_related("match"))
    # Six entrants at tables of three: two tables a round, ceil(5 / 2) = 3 rounds; each
    # table's deals once per seat rotation, one match per rotation.
    assert [(t.round, t.table, t.rotation) for t in tables] == list(
        itertools.product((1, 2, 3), (1, 2), (0, 1, 2))
    )
    for table in tables:
        match = table.match
        assert (match.kind, match.rated, match.duplicate) == (MatchKind.TOURNAMENT, False, True)
        assert (match.games_planned, match.rotation) == (2, table.rotation)  # deals_per_table
        rotations = [t for t in tables if (t.round, t.table) == (table.round, table.table)]
        assert {t.match.deal_set for t in rotations} == {match.deal_set} and match.deal_set
        assert {t.match.seed for t in rotations} == {match.seed}
        participants = list(match.participants.order_by("index"))
        by_entry = {e.pk: e for e in entries}
        assert [p.version_id for p in participants] == [
            by_entry[e].version_id for e in table.entries
        ]
        assert match.attempts == 1  # sent on commit
    assert queue_for(MatchKind.TOURNAMENT) == TOURNAMENT_QUEUE
    # Every entrant plays every round once.
    for number in (1, 2, 3):
        seated = [e for t in tables if t.round == number and t.rotation == 0 for e in t.entries]
        assert sorted(seated) == sorted(e.pk for e in entries)


def test_a_version_uploaded_after_the_start_does_not_play_in_the_event() -> None:
    tournament = open_tournament()
    owners = field_of(3)
    entered(tournament.pk, owners)
    start(tournament.pk, send=False)
    entry = tournament.entries.select_related("bot").first()
    assert entry is not None and entry.bot is not None
    newer = BotVersion.objects.create(
        bot=entry.bot,
        number=2,
        filename="b.py",
        sha256="0" * 64,
        size=1,
        status=VersionStatus.ACTIVE,
    )
    entry.bot.active_version = newer
    entry.bot.save(update_fields=["active_version"])
    entry.refresh_from_db()
    assert entry.version is not None and entry.version.number == 1
    versions = Match.objects.filter(kind=MatchKind.TOURNAMENT).values_list(
        "participants__version__number", flat=True
    )
    assert set(versions) == {1}


def test_entries_without_an_active_version_at_the_start_are_dropped_and_too_few_cancel() -> None:
    tournament = open_tournament(table_size_min=3, table_size_max=3)
    owners = field_of(3)
    entered(tournament.pk, owners)
    dropped = tournament.entries.select_related("bot").first()
    assert dropped is not None and dropped.bot is not None
    dropped.bot.active = False
    dropped.bot.save(update_fields=["active"])
    cancelled = start(tournament.pk)
    assert cancelled.status == TournamentStatus.CANCELLED
    assert "Too few entries" in cancelled.cancel_reason and "table of 3" in cancelled.cancel_reason
    assert cancelled.entries.count() == 2 and not Match.objects.exists()


def test_beat_starts_what_is_due_and_a_failed_rotation_voids_its_set_and_ends_the_event() -> None:
    tournament = open_tournament(table_size_min=3, table_size_max=3, deals_per_table=1)
    entered(tournament.pk, field_of(3))
    assert advance() == {"started": 0, "finished": 0}  # not due yet
    tournament.entry_deadline = tournament.starts_at = timezone.now() - timedelta(seconds=1)
    tournament.save()
    assert advance() == {"started": 1, "finished": 0}
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING
    first, *others = tournament.tables.all()  # the table's three rotations: one deal set
    # One rotation fails for good (the arena gave up): a set counts whole, so the whole
    # set is void, and the event whose last set it was ends through the pipeline's signal.
    assert fail(first.match_id, "gave up after 3 attempts")
    for table in others:
        voided = Match.objects.get(pk=table.match_id)
        assert voided.status == MatchStatus.FAILED
        assert f"its deal set is void: match #{first.match_id} failed" in voided.failure_reason
        assert not fail(table.match_id, "again")  # nothing left to fail
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED and tournament.finished_at is not None
    assert advance() == {"started": 0, "finished": 0}


def test_a_tournament_played_to_the_end_ranks_its_bots_by_strength() -> None:
    # Strength, from benchmarks/strength.py (mean place at four-player tables of Five
    # Cucumbers): heuristic 1.31, highest 1.75, random 2.99, lowest 3.96.
    tournament = open_tournament(table_size_min=3, table_size_max=3, deals_per_table=8, seed=SEED)
    house = [house_bot(name) for name in ("heuristic", "highest", "random", "lowest")]
    for bot in house:
        enter(bot.owner, tournament.pk, bot.pk)
    uploaders = field_of(2)
    for owner, (name, source) in zip(
        uploaders, [("tall", HIGHEST), ("short", LOWEST)], strict=True
    ):
        enter(owner, tournament.pk, playing_bot(owner, name, source).pk)
    start(tournament.pk, send=False)
    for table in tournament.tables.all():
        # A table's last rotation finishes its set: the others are held until then.
        result = run_match(table.match_id, SandboxKind.PROCESS).result
        assert result is (RunResult.FINISHED if table.rotation == 2 else RunResult.HELD)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    table = standings(tournament)
    assert (table.matches_done, table.matches_total) == (18, 18)  # 6 tables, 3 rotations
    order = [row.entry.name.split("/")[1] for row in table.rows]
    assert order[0] == "heuristic-five-cucumbers"
    assert set(order[1:3]) == {"highest-five-cucumbers", "tall"}
    assert order[3] == "random-five-cucumbers"
    assert set(order[4:]) == {"lowest-five-cucumbers", "short"}
    rows = {row.entry.name.split("/")[1]: row for row in table.rows}
    best = rows["heuristic-five-cucumbers"].entry.pk
    met = [table.record(best, row.entry.pk) for row in table.rows[1:]]
    # It finished ahead of each bot it met more often than not.
    assert sum(record is not None for record in met) >= 4
    assert all(record.ahead > record.behind for record in met if record is not None)
    assert all(row.games == 3 * 8 * 3 and row.matches == 3 for row in table.rows)
    assert rows["heuristic-five-cucumbers"].score_low is not None
    # The same strategy twice (house highest and tall): their intervals cannot separate them.
    lower = table.rows[2]
    assert lower.close_to_above
    # Head to head: every pair that met, both ways, adding up to their games together.
    for (a, b), record in table.head_to_head.items():
        assert table.head_to_head[(b, a)] == type(record)(record.behind, record.ahead)
    assert not RatingChange.objects.exists()  # unrated on the ladder
    assert set(Match.objects.values_list("status", flat=True)) == {MatchStatus.FINISHED}


def test_a_rated_tournament_moves_the_ladder() -> None:
    tournament = open_tournament(table_size_min=3, table_size_max=3, deals_per_table=1, rated=True)
    entered(tournament.pk, field_of(3))
    start(tournament.pk, send=False)
    tables = list(tournament.tables.order_by("rotation"))
    assert len(tables) == 3  # one deal, once per seat rotation: a match each
    *first, last = tables
    for table in first:
        # Held: a set is rated whole, when its last rotation is played.
        assert run_match(table.match_id, SandboxKind.PROCESS).result is RunResult.HELD
        assert not RatingChange.objects.exists()
    assert run_match(last.match_id, SandboxKind.PROCESS).result is RunResult.FINISHED
    for table in tables:
        assert RatingChange.objects.filter(match_id=table.match_id).count() == 1 * 3


def test_a_last_match_the_reaper_fails_ends_the_event_at_once(settings: object) -> None:
    # The reaper fails through the lifecycle's one `fail`, which announces the end: the
    # event does not wait for beat's next `tournaments.advance`.
    from web.pipeline.running import reap_matches

    settings.MATCH_MAX_ATTEMPTS = 1  # type: ignore[attr-defined]
    tournament = open_tournament(table_size_min=3, table_size_max=3, deals_per_table=1)
    entered(tournament.pk, field_of(3))
    start(tournament.pk, send=False)
    *waiting, last = tournament.tables.all()
    long_ago = timezone.now() - timedelta(days=1)
    Match.objects.filter(pk=last.match_id).update(
        status=MatchStatus.RUNNING, attempts=1, started_at=long_ago, sent_at=long_ago
    )
    assert reap_matches()[2] == [last.match_id]
    # Its set is void with it: the rotations still queued will never be played.
    assert all(
        Match.objects.get(pk=table.match_id).status == MatchStatus.FAILED for table in waiting
    )
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED and tournament.finished_at is not None
