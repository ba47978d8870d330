"""Running a match as the worker does (the plain function, process runner for speed):
attempts, record once, ratings, faults, infrastructure errors, lost workers and messages,
and the reaper."""

from __future__ import annotations

import gzip
import json
import math
from datetime import timedelta

import pytest
from django.utils import timezone

import web.sandbox
from arena.contract import MatchJob, MatchStarted
from arena.playing import play_job
from tests.web.factories import VersionFactory
from tests.web.matches.arena_helpers import (
    assert_history_consistent,
    ladder_bots,
    queued_match,
    started_attempt,
)
from web.bots.models import Bot, VersionStatus
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline import running
from web.pipeline.dispatch import issue_job
from web.pipeline.kinds.validation import promote
from web.pipeline.transitions import RunResult
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db
PROCESS = SandboxKind.PROCESS
CRASHER = b"def play(view):\n    raise RuntimeError('boom')\n"


@pytest.fixture(autouse=True)
def _short_matches(settings: object) -> None:
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]


def test_a_ladder_match_is_played_stored_and_rated() -> None:
    bots = ladder_bots(3)
    match = queued_match(bots)
    report = running.run_match(match.pk, PROCESS)
    assert report.result is RunResult.FINISHED
    match.refresh_from_db()
    assert (match.status, match.sandbox, match.attempts) == (MatchStatus.FINISHED, "process", 1)
    games = list(match.games.all())
    assert [g.number for g in games] == [1, 2]
    with games[0].replay.open("rb") as handle:
        replay = json.loads(gzip.decompress(handle.read()))
    assert replay["format"] == "cucumbers-replay/1"
    assert {p["bot"] for p in replay["players"]} == {b.pk for b in bots}
    participants = list(match.participants.order_by("index"))
    assert sorted(p.placement for p in participants)[0] == 1
    assert all(p.rating_before == 1500.0 and p.rating_after is not None for p in participants)
    assert RatingChange.objects.filter(match=match).count() == 3 * 2
    for bot, p in zip(bots, participants, strict=True):
        bot.refresh_from_db()
        assert bot.rating == p.rating_after
        assert (bot.games, bot.games_since_version) == (2, 2)
    # Everyone is provisional (same K): the ratings' sum is conserved.
    assert math.isclose(sum(b.rating for b in bots), 3 * 1500.0)
    assert any(b.rating != 1500.0 for b in bots)
    assert_history_consistent(bots)


def test_the_more_games_a_version_has_played_the_less_a_game_moves_it() -> None:
    # ELO_K 16 at 20 games shrinking like 1/sqrt(games) to ELO_MIN_K 4 at 320: a duel
    # between equals moves each bot by K/2 (the first game's ratings are both 1500).
    bots = ladder_bots(2)
    for bot, played in zip(bots, (20, 500), strict=True):
        Bot.objects.filter(pk=bot.pk).update(games=played, games_since_version=played)
    match = queued_match(bots)
    assert running.run_match(match.pk, PROCESS).result is RunResult.FINISHED
    first = {c.bot_id: abs(c.delta) for c in RatingChange.objects.filter(match=match, game=1)}
    assert first == {bots[0].pk: pytest.approx(8.0), bots[1].pk: pytest.approx(2.0)}


def test_running_a_match_twice_records_it_once() -> None:
    bots = ladder_bots(2)
    match = queued_match(bots)
    assert running.run_match(match.pk, PROCESS).result is RunResult.FINISHED
    ratings = [Bot.objects.get(pk=b.pk).rating for b in bots]
    assert running.run_match(match.pk, PROCESS).result is RunResult.SKIPPED
    assert [Bot.objects.get(pk=b.pk).rating for b in bots] == ratings
    assert RatingChange.objects.filter(match=match).count() == 2 * 2
    assert match.games.count() == 2
    assert math.isclose(sum(ratings), 2 * 1500.0)  # two players, same K: zero sum


def test_a_dead_attempt_cannot_record_after_its_match_was_sent_again() -> None:
    bots = ladder_bots(2)
    match = queued_match(bots)
    dead = started_attempt(match.pk, worker="a-dead-worker")
    # While its lease runs, nothing sends it again.
    assert running.run_match(match.pk, PROCESS).result is RunResult.SKIPPED
    assert running.reap_matches() == ([], [], [])
    # The lease is over (its worker died): the reaper queues it, the next attempt records it.
    Match.objects.filter(pk=match.pk).update(started_at=timezone.now() - timedelta(hours=1))
    assert running.reap_matches() == ([match.pk], [], [])
    assert running.run_match(match.pk, PROCESS).result is RunResult.FINISHED
    match.refresh_from_db()
    assert match.attempts == 2
    # The presumed-dead attempt wakes up with its own messages: discarded.
    late = play_job(dead, "process", "a-dead-worker")
    assert running.receive_report(late).result is RunResult.SKIPPED
    late_start = MatchStarted(
        match=match.pk, attempt=dead.attempt, worker="a-dead-worker", sandbox="process"
    )
    assert not running.match_started(late_start)
    assert RatingChange.objects.filter(match=match).count() == 4
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    assert match.worker == running.worker_name() != "a-dead-worker"


def test_a_report_that_overtakes_its_started_message_is_recorded_once() -> None:
    match = queued_match(ladder_bots(2))
    job = issue_job(match.pk)
    assert isinstance(job, MatchJob)
    report = play_job(job, "process", "quick-worker")
    assert running.receive_report(report).result is RunResult.FINISHED
    started = MatchStarted(
        match=match.pk, attempt=job.attempt, worker="quick-worker", sandbox="process"
    )
    assert not running.match_started(started)  # too late: it changes nothing
    assert running.receive_report(report).result is RunResult.SKIPPED  # a duplicate
    match.refresh_from_db()
    assert (match.status, match.worker, match.games.count()) == (
        MatchStatus.FINISHED,
        "quick-worker",
        2,
    )
    assert RatingChange.objects.filter(match=match).count() == 4


def test_a_bots_fault_is_a_result_not_a_retry() -> None:
    good, crasher_bot = ladder_bots(2)
    crasher = VersionFactory(bot=crasher_bot, number=2, data=CRASHER, status=VersionStatus.ACTIVE)
    crasher_bot.active_version = crasher
    crasher_bot.save(update_fields=["active_version"])
    match = queued_match([good, crasher_bot])
    assert running.run_match(match.pk, PROCESS).result is RunResult.FINISHED
    loser = match.participants.get(bot=crasher_bot)
    assert loser.faults == 2 and loser.placement == 2
    assert loser.rating_after is not None and loser.rating_after < 1500
    assert all(f["kind"] == "crash" for g in match.games.all() for f in g.faults)


def test_an_unrated_match_changes_no_rating() -> None:
    bots = ladder_bots(2)
    match = queued_match(bots, rated=False)
    assert running.run_match(match.pk, PROCESS).result is RunResult.FINISHED
    assert not RatingChange.objects.filter(match=match).exists()
    assert all(Bot.objects.get(pk=b.pk).rating == 1500.0 for b in bots)
    assert all(p.placement for p in match.participants.all())


def test_a_new_version_keeps_the_rating_and_is_provisional_again() -> None:
    bots = ladder_bots(2)
    running.run_match(queued_match(bots).pk, PROCESS)
    bot = Bot.objects.get(pk=bots[0].pk)
    rating = bot.rating
    newer = VersionFactory(bot=bot, number=5, status=VersionStatus.VALIDATING)
    promote(bot, newer)
    bot.refresh_from_db()
    assert (bot.rating, bot.games_since_version, bot.is_provisional) == (rating, 0, True)


def test_infrastructure_errors_retry_with_backoff_then_fail_unrated(
    settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.MATCH_MAX_ATTEMPTS = 2  # type: ignore[attr-defined]
    settings.MATCH_RETRY_SECONDS = 10  # type: ignore[attr-defined]
    bots = ladder_bots(2)
    match = queued_match(bots)
    # The Docker sandbox, its engine gone: never played in another runner instead.
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    monkeypatch.setattr(web.sandbox, "_prepared", set())

    first = running.run_match(match.pk, SandboxKind.DOCKER)
    assert (first.result, first.delay) == (RunResult.RETRY, 10.0)
    match.refresh_from_db()
    assert (match.status, match.attempts) == (MatchStatus.QUEUED, 1)

    second = running.run_match(match.pk, SandboxKind.DOCKER)
    assert second.result is RunResult.FAILED
    match.refresh_from_db()
    assert match.status == MatchStatus.FAILED
    assert "infrastructure error, 2 attempts: the sandbox is not available" in match.failure_reason
    assert not match.games.exists() and not RatingChange.objects.exists()
    assert {p.placement for p in match.participants.all()} == {None}


def test_a_report_that_cannot_be_recorded_now_is_recorded_when_delivered_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = queued_match(ladder_bots(2))
    job = started_attempt(match.pk)
    report = play_job(job, "process", "test-worker")

    def broken(*args: object, **kwargs: object) -> object:
        raise OSError("no space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(running, "record_report", broken)
        with pytest.raises(OSError):  # the report task retries it
            running.receive_report(report)
    match.refresh_from_db()
    assert (match.status, match.attempt, match.attempts) == (MatchStatus.RUNNING, job.attempt, 1)
    assert running.receive_report(report).result is RunResult.FINISHED
    assert RatingChange.objects.filter(match=match).count() == 4


def test_the_reaper_requeues_stuck_matches_and_fails_them_at_the_cap(settings: object) -> None:
    settings.MATCH_MAX_ATTEMPTS = 2  # type: ignore[attr-defined]
    bots = ladder_bots(2)
    stuck = queued_match(bots, seed=1)
    fresh = queued_match(bots, seed=2)
    for match in (stuck, fresh):
        started_attempt(match.pk)
    long_ago = timezone.now() - timedelta(hours=1)
    Match.objects.filter(pk=stuck.pk).update(started_at=long_ago)
    assert running.reap_matches() == ([stuck.pk], [], [])
    assert Match.objects.get(pk=stuck.pk).status == MatchStatus.QUEUED
    assert Match.objects.get(pk=fresh.pk).status == MatchStatus.RUNNING
    # Lost a second time: the retry cap is reached.
    started_attempt(stuck.pk)
    Match.objects.filter(pk=stuck.pk).update(started_at=long_ago)
    assert running.reap_matches() == ([], [], [stuck.pk])
    stuck.refresh_from_db()
    assert stuck.status == MatchStatus.FAILED and "lost 2 times" in stuck.failure_reason


def test_the_reaper_sends_what_is_due_and_what_was_lost_and_nothing_else() -> None:
    bots = ladder_bots(2)
    unsent, retry_due, retry_later, lost, waiting = (queued_match(bots, seed=i) for i in range(5))
    now = timezone.now()
    a_minute_ago = now - timedelta(minutes=1)
    Match.objects.filter(pk__in=[m.pk for m in (unsent, retry_due, retry_later)]).update(
        created_at=a_minute_ago
    )
    Match.objects.filter(pk=retry_due.pk).update(retry_at=a_minute_ago)
    Match.objects.filter(pk=retry_later.pk).update(retry_at=now + timedelta(minutes=5))
    for match in (lost, waiting):  # sent, never started
        assert isinstance(issue_job(match.pk), MatchJob)
    Match.objects.filter(pk=lost.pk).update(sent_at=now - timedelta(hours=1))
    send, resend, failed = running.reap_matches()
    assert (sorted(send), resend, failed) == (sorted([unsent.pk, retry_due.pk]), [lost.pk], [])
    # A lost message is sent again under a new attempt; the old one can no longer record.
    before = Match.objects.get(pk=lost.pk).attempt
    again = issue_job(lost.pk, resend_before=now - timedelta(minutes=30))
    assert isinstance(again, MatchJob) and again.attempt != before
    assert issue_job(waiting.pk, resend_before=now - timedelta(minutes=30)) == running.RunReport(
        RunResult.SKIPPED
    )
