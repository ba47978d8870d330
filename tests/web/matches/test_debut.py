"""A new version reaches the ladder first (its debut table, on a queue served before the
routine ladder), and a retired version never gets a new rated game: its queued matches are
re-seated with the active version, or dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.broker import DEBUT_QUEUE, LADDER_QUEUE, MATCH_QUEUES, queue_for
from arena.contract import MatchJob, MatchKind
from tests.web.factories import GOOD_BOT, UserFactory, VersionFactory, active_bot
from tests.web.matches.arena_helpers import SLOW_BOT, ladder_bots, make_active, started_attempt
from tests.web.matches.celery_worker import (
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from web.bots.models import Bot, BotVersion
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus, RatingChange
from web.matches.status import place_in_queue
from web.pipeline.dispatch import issue_job
from web.pipeline.factory import create_deal_set
from web.pipeline.kinds import ladder
from web.pipeline.kinds.validation import promote
from web.pipeline.running import validate_version
from web.pipeline.transitions import RunReport, RunResult


def established(bots: list[Bot]) -> None:
    """Past the provisional stage: the routine ladder's bots."""
    Bot.objects.filter(pk__in=[b.pk for b in bots]).update(games_since_version=100)


def debut_of(bot: Bot) -> list[Match]:
    return list(Match.objects.filter(participants__bot=bot, debut=True).order_by("pk"))


@pytest.mark.django_db
def test_a_promoted_version_gets_a_debut_table_ahead_of_the_routine_ladder() -> None:
    veterans = ladder_bots(4)
    established(veterans)
    routine = ladder.queue_ladder_matches("five-cucumbers", 8, send=False)
    assert routine and not any(m.debut for m in routine)
    newcomer = upload_version(
        UserFactory(username="neo"), "b.py", GOOD_BOT, new_bot_name="neo", game="five-cucumbers"
    )
    assert validate_version(newcomer.pk) == "active"
    debut = debut_of(newcomer.bot)
    assert debut, "no debut table was queued for the new version"
    # A whole deal set around the new version, rated, on the debut queue.
    assert {m.deal_set for m in debut} == {debut[0].deal_set} and len(debut) >= 2
    for match in debut:
        assert (match.kind, match.rated, match.status) == (MatchKind.LADDER, True, "queued")
        seats = list(match.participants.order_by("index").values_list("bot_id", "version_id"))
        assert seats[0] == (newcomer.bot_id, newcomer.pk)  # seated around it
        assert place_in_queue(match) == debut.index(match)  # nothing ahead but its set
    assert queue_for(MatchKind.LADDER, debut=True) == DEBUT_QUEUE
    assert MATCH_QUEUES.index(DEBUT_QUEUE) < MATCH_QUEUES.index(LADDER_QUEUE)
    # The routine ladder's matches queued before it wait on their own queue.
    assert place_in_queue(routine[-1]) == len(routine) - 1


@pytest.mark.django_db
def test_a_debut_tables_matches_are_short_and_the_routine_ladders_long(settings: object) -> None:
    settings.MATCH_GAMES = 7  # type: ignore[attr-defined]
    settings.LADDER_DEBUT_GAMES = 3  # type: ignore[attr-defined]
    veterans = ladder_bots(4)
    established(veterans)
    routine = ladder.queue_ladder_matches("five-cucumbers", 4, send=False)
    assert routine and {m.games_planned for m in routine} == {7}
    newcomer = active_bot(name="newcomer", game="five-cucumbers")  # provisional: no game yet
    debut = ladder.queue_debut(newcomer, send=False)
    assert debut and {(m.debut, m.games_planned) for m in debut} == {(True, 3)}


@pytest.mark.django_db
def test_the_top_up_favours_a_provisional_bot_one_debut_table_at_a_time(
    settings: object,
) -> None:
    settings.LADDER_DUPLICATE = False  # type: ignore[attr-defined]  (one match per table)
    veterans = ladder_bots(5)
    established(veterans[1:])
    queued = ladder.queue_ladder_matches("five-cucumbers", 6)
    debuts = [m for m in queued if m.debut]
    # The provisional bot seeds the first table, a debut; then it has one waiting, and
    # the other tables are routine ones (it is never given the whole debut queue).
    assert len(debuts) == 1
    assert debuts[0].participants.get(index=0).bot_id == veterans[0].pk
    assert ladder.queue_ladder_matches("five-cucumbers", 3) and not debut_of(veterans[0])[1:]


@pytest.mark.django_db
def test_a_retired_versions_queued_matches_are_re_seated_with_the_new_one() -> None:
    bots = ladder_bots(3)
    established(bots)
    queued = ladder.queue_ladder_matches("five-cucumbers", 3)
    mine = bots[0]
    old = mine.active_version
    assert old is not None
    holding = [m for m in queued if m.participants.filter(bot=mine).exists()]
    assert holding
    sent = issue_job(holding[0].pk)  # one job already on the broker under its attempt
    assert isinstance(sent, MatchJob)
    new = VersionFactory(bot=mine, number=2)
    promote(Bot.objects.get(pk=mine.pk), new)
    new.save(update_fields=["status"])
    for match in holding:
        match.refresh_from_db()
        seat = match.participants.get(bot=mine)
        assert (match.status, seat.version_id) == (MatchStatus.QUEUED, new.pk)
    # The attempt sent with the old version is taken back: its report will be discarded,
    # and the match is sent again with the new one (not counted as an attempt).
    first = Match.objects.get(pk=holding[0].pk)
    assert first.attempt != sent.attempt and first.attempts <= 1
    again = issue_job(first.pk)
    assert isinstance(again, MatchJob)
    seat_index = first.participants.get(bot=mine).index
    assert again.seats[seat_index].version == 2
    assert not Match.objects.filter(participants__version=old, status="queued").exists()


@pytest.mark.django_db
def test_a_deal_set_already_begun_plays_on_with_the_versions_it_was_created_with() -> None:
    bots = ladder_bots(2)
    established(bots)
    rotations = create_deal_set("five-cucumbers", MatchKind.LADDER, bots, rated=True)
    seed = Match.objects.get(pk=rotations[1].pk).seed
    started_attempt(rotations[0].pk)  # rotation 0 plays with the old version's seat
    mine = Bot.objects.get(pk=bots[0].pk)
    old = mine.active_version
    assert old is not None
    promote(mine, VersionFactory(bot=mine, number=2))
    # The set is frozen by its begun rotation: neither re-seated nor dropped (dropping the
    # rest would leave a lucky first rotation counted alone).
    assert ladder.reseat_retired(mine) == ([], [])
    rest = Match.objects.get(pk=rotations[1].pk)
    assert (rest.status, rest.seed) == (MatchStatus.QUEUED, seed)
    assert rest.participants.get(bot=mine).version_id == old.pk
    job = issue_job(rest.pk)
    assert isinstance(job, MatchJob), job
    assert job.seats[rest.participants.get(bot=mine).index].version == old.number
    assert Match.objects.get(pk=rotations[0].pk).status == MatchStatus.RUNNING


@pytest.mark.django_db
def test_a_deal_set_not_begun_is_re_seated_whole_with_fresh_seeds() -> None:
    bots = ladder_bots(2)
    established(bots)
    rotations = create_deal_set("five-cucumbers", MatchKind.LADDER, bots, rated=True)
    before = {m.pk: m.seed for m in Match.objects.filter(pk__in=[r.pk for r in rotations])}
    sent = issue_job(rotations[0].pk)  # on the broker: its seed may have been read
    assert isinstance(sent, MatchJob)
    mine = Bot.objects.get(pk=bots[0].pk)
    new = VersionFactory(bot=mine, number=2)
    promote(mine, new)
    after = list(Match.objects.filter(pk__in=before).order_by("pk"))
    assert {m.status for m in after} == {MatchStatus.QUEUED}
    assert all(m.participants.get(bot=mine).version_id == new.pk for m in after)
    # One new seed for the whole set (a set is one deal), owing nothing to the old one.
    assert len({m.seed for m in after}) == 1
    assert not {m.seed for m in after} & set(before.values())
    again = issue_job(after[0].pk)
    assert isinstance(again, MatchJob) and again.seed != sent.seed


@pytest.mark.django_db
def test_a_match_whose_version_changed_meanwhile_is_never_sent_with_it() -> None:
    bots = ladder_bots(2)
    established(bots)
    match = create_deal_set("five-cucumbers", MatchKind.LADDER, bots, rated=True)[0]
    # The bot moved on to another version without going through promote (a race).
    newer = VersionFactory(bot=bots[0], number=5)
    Bot.objects.filter(pk=bots[0].pk).update(active_version=newer)
    report = issue_job(match.pk)
    assert isinstance(report, RunReport) and report.result is RunResult.FAILED
    match.refresh_from_db()
    assert match.status == MatchStatus.FAILED and "changed versions" in match.failure_reason


@pytest.mark.django_db(transaction=True)
def test_a_new_versions_first_rated_match_overtakes_the_routine_ladder(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    settings.VALIDATION_GAMES = 1  # type: ignore[attr-defined]
    # Slow veterans: a routine match lasts longer than the platform takes to record the
    # new version's verdict and queue its debut (or the worker would clear the routine
    # queue meanwhile and the test would show nothing).
    veterans = [make_active(name, source=SLOW_BOT).bot for name in ("gil", "hal", "ivy")]
    established(veterans)
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    with platform_broker():
        # Waiting before any worker starts: the routine ladder, then the new upload.
        routine = ladder.queue_ladder_matches("concombre", 8)
        assert not any(m.debut for m in routine)
        newcomer = upload_version(
            UserFactory(username="joy"), "b.py", GOOD_BOT, new_bot_name="joy", game="concombre"
        )

        def first_rating() -> bool:
            return RatingChange.objects.filter(bot_id=newcomer.bot_id).exists()

        with (
            platform_worker(platform_env(), platform_log),
            arena_worker(arena_env("process"), arena_log),
        ):
            wait_for(
                first_rating, 180, "the new version's first rated game", arena_log, platform_log
            )
    debut = debut_of(newcomer.bot)
    assert debut and BotVersion.objects.get(pk=newcomer.pk).status == "active"
    first_debut = min(
        m.started_at
        for m in Match.objects.filter(pk__in=[m.pk for m in debut], started_at__isnull=False)
    )
    started = [
        m.started_at
        for m in Match.objects.filter(pk__in=[m.pk for m in routine])
        if m.started_at is not None
    ]
    ahead = [when for when in started if when < first_debut]
    # At most the one routine match the worker took while the validation's report was
    # being recorded (the debut is queued in that transaction); the rest waited behind it.
    assert len(ahead) <= 1, f"{len(ahead)} of {len(routine)} routine matches went first"
