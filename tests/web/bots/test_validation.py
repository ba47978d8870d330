"""Validation, through the plain functions and the process runner (fast, no Docker)."""

from __future__ import annotations

import gzip
import json
from datetime import timedelta
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from tests.web.factories import GOOD_BOT
from web.bots import validation
from web.bots.models import Bot, BotVersion, RejectionKind, VersionStatus
from web.bots.tasks import requeue_stale_validations_task, validate_version_task
from web.bots.uploads import upload_version
from web.matches.models import MatchKind, MatchStatus
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


def test_a_clean_version_becomes_the_active_one(user: User) -> None:
    version = upload(user)
    assert validation.validate_version(version.pk, PROCESS) == VersionStatus.ACTIVE
    version.refresh_from_db()
    bot = version.bot
    bot.refresh_from_db()
    assert version.status == VersionStatus.ACTIVE and version.validated_at is not None
    assert bot.active_version == version
    assert bot in Bot.objects.on_leaderboard("five-cucumbers")


def test_the_validation_match_is_recorded_with_its_replays(user: User) -> None:
    version = upload(user)
    validation.validate_version(version.pk, PROCESS)
    version.refresh_from_db()
    match = version.validation_match
    assert match is not None
    assert (match.kind, match.status, match.rated, match.sandbox) == (
        MatchKind.VALIDATION,
        MatchStatus.FINISHED,
        False,
        "process",
    )
    names = [p.name for p in match.participants.order_by("index")]
    assert names == ["alice/cand v1", "builtin:random", "builtin:lowest", "builtin:highest"]
    assert sorted(p.placement for p in match.participants.all())[0] == 1
    game = match.games.get()
    with game.replay.open("rb") as handle:
        replay = json.loads(gzip.decompress(handle.read()))
    assert replay["format"] == "cucumbers-replay/1"
    assert game.replay_size == game.replay.size


@pytest.mark.parametrize(
    ("source", "kind", "detail"),
    [
        (CRASHER, RejectionKind.CRASH, "ValueError: boom"),
        (ILLEGAL, RejectionKind.ILLEGAL_MOVE, "999"),
    ],
)
def test_a_faulty_version_is_rejected_with_the_reason(
    user: User, source: bytes, kind: RejectionKind, detail: str
) -> None:
    version = upload(user, source)
    assert validation.validate_version(version.pk, PROCESS) == VersionStatus.REJECTED
    version.refresh_from_db()
    assert version.rejection_kind == kind
    assert detail in version.rejection_detail
    assert version.bot.active_version is None


def test_the_owner_gets_the_tail_of_the_bots_own_output(user: User) -> None:
    version = upload(user, CRASHER)
    validation.validate_version(version.pk, PROCESS)
    version.refresh_from_db()
    assert "thinking hard about" in version.stderr_tail
    assert len(version.stderr_tail) <= validation.STDERR_TAIL_CHARS


def test_the_previous_version_keeps_playing_until_a_new_one_passes(user: User) -> None:
    first = upload(user)
    validation.validate_version(first.pk, PROCESS)
    bot = Bot.objects.get(pk=first.bot_id)
    broken = upload(user, CRASHER, bot=bot)
    bot.refresh_from_db()
    assert bot.active_version == first  # while v2 waits
    validation.validate_version(broken.pk, PROCESS)
    bot.refresh_from_db()
    assert bot.active_version == first  # after v2 failed
    fixed = upload(user, GOOD_BOT, bot=bot)
    validation.validate_version(fixed.pk, PROCESS)
    bot.refresh_from_db()
    first.refresh_from_db()
    assert bot.active_version == fixed
    assert first.status == VersionStatus.RETIRED
    assert bot.games_since_version == 0


def test_an_older_version_passing_late_does_not_replace_a_newer_one(user: User) -> None:
    older = upload(user)
    newer = upload(user, bot=older.bot)
    validation.validate_version(newer.pk, PROCESS)
    validation.validate_version(older.pk, PROCESS)
    older.refresh_from_db()
    bot = Bot.objects.get(pk=older.bot_id)
    assert older.status == VersionStatus.RETIRED
    assert bot.active_version == newer


def test_only_one_run_validates_a_version(user: User) -> None:
    version = upload(user)
    assert validation.claim(version.pk)
    assert validation.validate_version(version.pk, PROCESS) is None
    assert not validation.claim(version.pk)


def test_an_infrastructure_error_gives_the_version_back_to_the_queue(user: User) -> None:
    version = upload(user)
    failing = mock.patch.object(validation, "play_validation", side_effect=OSError("docker"))
    with failing, pytest.raises(OSError):
        validation.validate_version(version.pk, PROCESS)
    version.refresh_from_db()
    assert version.status == VersionStatus.QUEUED
    assert validation.validate_version(version.pk, PROCESS) == VersionStatus.ACTIVE


def test_a_version_left_validating_by_a_dead_worker_is_requeued(
    user: User, settings: object
) -> None:
    stale = upload(user)
    fresh = upload(user, bot=stale.bot)
    long_ago = timezone.now() - timedelta(seconds=settings.VALIDATION_STALE_SECONDS + 5)  # type: ignore[attr-defined]
    BotVersion.objects.filter(pk=stale.pk).update(
        status=VersionStatus.VALIDATING, validation_started_at=long_ago
    )
    BotVersion.objects.filter(pk=fresh.pk).update(
        status=VersionStatus.VALIDATING, validation_started_at=timezone.now()
    )
    with mock.patch.object(validate_version_task, "delay") as delay:
        assert requeue_stale_validations_task.apply().get() == 1
    delay.assert_called_once_with(stale.pk)
    stale.refresh_from_db()
    fresh.refresh_from_db()
    assert (stale.status, fresh.status) == (VersionStatus.QUEUED, VersionStatus.VALIDATING)


def test_the_celery_task_validates_by_id(user: User, settings: object) -> None:
    settings.SANDBOX = "process"  # type: ignore[attr-defined]
    version = upload(user)
    assert validate_version_task.apply(args=[version.pk]).get() == VersionStatus.ACTIVE


def test_the_task_is_configured_for_work_that_must_not_be_lost() -> None:
    from web.celery import app

    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert 0 < app.conf.task_soft_time_limit < app.conf.task_time_limit
    assert validate_version_task.max_retries == 4
