"""Validation: a version's first match, through the one match pipeline (job, report,
recording) with the process runner (fast); the engine-down case with the Docker runner."""

from __future__ import annotations

import gzip
import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

import web.sandbox
from arena.contract import MatchKind
from tests.web.factories import GOOD_BOT, variant
from tests.web.matches.arena_helpers import started_attempt
from web.bots.models import Bot, BotVersion, RejectionKind, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus
from web.pipeline import running
from web.pipeline.kinds import validation
from web.pipeline.running import run_match, validate_version
from web.pipeline.transitions import RunResult, release
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db

CRASHER = b"""import sys

def play(view):
    print("thinking hard about", view.legal, file=sys.stderr)
    raise ValueError("boom")
"""
ILLEGAL = b"def play(view):\n    return 999\n"
PROCESS = SandboxKind.PROCESS


@pytest.fixture(autouse=True)
def _one_game(settings: object) -> None:
    settings.VALIDATION_GAMES = 1  # type: ignore[attr-defined]


def upload(user: User, data: bytes = GOOD_BOT, bot: Bot | None = None) -> BotVersion:
    if bot is None:
        return upload_version(user, "b.py", data, new_bot_name="cand", game="five-cucumbers")
    return upload_version(user, "b.py", data, bot=bot)


def test_an_upload_queues_its_validation_match(user: User) -> None:
    version = upload(user)
    match = version.validation_match
    assert match is not None
    assert (match.kind, match.status, match.rated, match.games_planned) == (
        MatchKind.VALIDATION,
        MatchStatus.QUEUED,
        False,
        1,
    )
    names = [p.name for p in match.participants.order_by("index")]
    assert names == ["alice/cand v1", "builtin:random", "builtin:lowest", "builtin:highest"]


def test_a_clean_version_becomes_the_active_one(user: User) -> None:
    version = upload(user)
    assert validate_version(version.pk, PROCESS) == VersionStatus.ACTIVE
    version.refresh_from_db()
    bot = version.bot
    bot.refresh_from_db()
    assert version.status == VersionStatus.ACTIVE and version.validated_at is not None
    assert bot.active_version == version
    assert bot in Bot.objects.on_leaderboard("five-cucumbers")


def test_the_validation_match_is_recorded_with_its_replays_and_worker(user: User) -> None:
    version = upload(user)
    validate_version(version.pk, PROCESS)
    version.refresh_from_db()
    match = version.validation_match
    assert match is not None
    assert (match.status, match.sandbox, match.worker) == (
        MatchStatus.FINISHED,
        "process",
        running.worker_name(),
    )
    assert sorted(p.placement for p in match.participants.all())[0] == 1
    game = match.games.get()
    with game.replay.open("rb") as handle:
        replay = json.loads(gzip.decompress(handle.read()))
    assert replay["format"] == "cucumbers-replay/1"
    assert any(p["name"] == "alice/cand v1" and p["version"] == 1 for p in replay["players"])
    assert game.replay_size == game.replay.size


@pytest.mark.parametrize(
    ("source", "kind", "detail"),
    [
        (CRASHER, RejectionKind.CRASH, "ValueError: boom (b.py, line 5)"),
        (ILLEGAL, RejectionKind.ILLEGAL_MOVE, "999"),
    ],
)
def test_a_faulty_version_is_rejected_with_the_reason(
    user: User, source: bytes, kind: RejectionKind, detail: str
) -> None:
    version = upload(user, source)
    assert validate_version(version.pk, PROCESS) == VersionStatus.REJECTED
    version.refresh_from_db()
    assert version.rejection_kind == kind
    # The detail names the author's file ("b.py"), not the sandbox's copy.
    assert detail in version.rejection_detail
    assert version.bot.active_version is None


def test_the_owner_gets_the_tail_of_the_bots_own_output(user: User) -> None:
    version = upload(user, CRASHER)
    validate_version(version.pk, PROCESS)
    version.refresh_from_db()
    assert "thinking hard about" in version.stderr_tail
    assert len(version.stderr_tail) <= validation.STDERR_TAIL_CHARS


def test_the_previous_version_keeps_playing_until_a_new_one_passes(user: User) -> None:
    first = upload(user)
    validate_version(first.pk, PROCESS)
    bot = Bot.objects.get(pk=first.bot_id)
    broken = upload(user, CRASHER, bot=bot)
    bot.refresh_from_db()
    assert bot.active_version == first  # while v2 waits
    validate_version(broken.pk, PROCESS)
    bot.refresh_from_db()
    assert bot.active_version == first  # after v2 failed
    fixed = upload(user, variant(1), bot=bot)
    validate_version(fixed.pk, PROCESS)
    bot.refresh_from_db()
    first.refresh_from_db()
    assert bot.active_version == fixed
    assert first.status == VersionStatus.RETIRED
    assert bot.games_since_version == 0


def test_an_older_version_passing_late_does_not_replace_a_newer_one(user: User) -> None:
    older = upload(user)
    newer = upload(user, variant(1), bot=older.bot)
    validate_version(newer.pk, PROCESS)
    validate_version(older.pk, PROCESS)
    older.refresh_from_db()
    bot = Bot.objects.get(pk=older.bot_id)
    assert older.status == VersionStatus.RETIRED
    assert bot.active_version == newer


def test_only_one_run_validates_a_version(user: User) -> None:
    version = upload(user)
    assert version.validation_match is not None
    match_id = version.validation_match.pk
    assert run_match(match_id, PROCESS).result is RunResult.FINISHED
    assert run_match(match_id, PROCESS).result is RunResult.SKIPPED  # a duplicate message
    assert Match.objects.get(pk=match_id).games.count() == 1


def test_a_version_shows_validating_while_its_match_runs(user: User) -> None:
    version = upload(user)
    assert version.validation_match is not None
    job = started_attempt(version.validation_match.pk)
    version.refresh_from_db()
    assert version.status == VersionStatus.VALIDATING
    assert release(job.match, job.attempt)
    version.refresh_from_db()
    assert version.status == VersionStatus.QUEUED


def test_an_unreachable_engine_is_never_a_rejection_and_the_version_passes_later(
    user: User, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Docker sandbox with an engine that is not there: the infrastructure's failure.
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    monkeypatch.setattr(web.sandbox, "_prepared", set())
    settings.SANDBOX = "docker"  # type: ignore[attr-defined]
    version = upload(user)
    assert version.validation_match is not None
    report = run_match(version.validation_match.pk)
    assert report.result is RunResult.RETRY and report.delay > 0
    assert "sandbox is not available" in report.reason
    version.refresh_from_db()
    match = Match.objects.get(pk=version.validation_match.pk)
    assert (version.status, version.rejection_kind) == (VersionStatus.QUEUED, "")
    assert (match.status, match.attempts, match.games.count()) == (MatchStatus.QUEUED, 1, 0)
    # The engine is back (here: the process runner): the same match passes.
    assert validate_version(version.pk, PROCESS) == VersionStatus.ACTIVE


def test_a_validation_that_fails_for_good_is_queued_again_never_rejected(
    user: User, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.MATCH_MAX_ATTEMPTS = 1  # type: ignore[attr-defined]
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    monkeypatch.setattr(web.sandbox, "_prepared", set())
    version = upload(user)
    assert version.validation_match is not None
    first = version.validation_match.pk
    assert run_match(first, SandboxKind.DOCKER).result is RunResult.FAILED
    version.refresh_from_db()
    assert version.status == VersionStatus.QUEUED
    assert validation.revalidate_failed() == [version.pk]
    version.refresh_from_db()
    assert version.validation_match_id != first
    assert validation.revalidate_failed() == []  # the new match is queued, not failed
    assert validate_version(version.pk, PROCESS) == VersionStatus.ACTIVE


def test_a_version_left_validating_by_a_dead_worker_is_queued_and_sent_again(
    user: User, settings: object
) -> None:
    version = upload(user)
    assert version.validation_match is not None
    match_id = version.validation_match.pk
    started_attempt(match_id)  # then the worker died
    long_ago = timezone.now() - timedelta(seconds=settings.MATCH_LEASE_SECONDS + 5)  # type: ignore[attr-defined]
    Match.objects.filter(pk=match_id).update(started_at=long_ago)
    assert running.reap_matches() == ([match_id], [], [])
    version.refresh_from_db()
    assert version.status == VersionStatus.QUEUED
    assert validate_version(version.pk, PROCESS) == VersionStatus.ACTIVE


def test_both_sides_are_configured_for_work_that_must_not_be_lost() -> None:
    from arena.worker import app as arena_app
    from web.celery import app
    from web.pipeline.tasks import match_report_task

    for side in (app, arena_app):
        assert side.conf.task_acks_late is True
        assert side.conf.task_reject_on_worker_lost is True
        assert side.conf.worker_prefetch_multiplier == 1
    assert 0 < app.conf.task_soft_time_limit < app.conf.task_time_limit
    assert match_report_task.max_retries == 12
