"""The whole pipeline through a real Celery worker with Redis as the broker and the
sandbox of this machine (Docker when it answers, required under ``CI=true``): uploads are
validated, ladder matches are played and rated; and a worker killed with SIGKILL in the
middle of a match: after a restart the match completes, recorded once, rated once."""

from __future__ import annotations

import math
import signal
from pathlib import Path

import pytest

from tests.web.factories import GOOD_BOT, PLAY_FUNCTION_BOT, UserFactory
from tests.web.matches.arena_helpers import assert_history_consistent
from tests.web.matches.celery_worker import (
    celery_worker,
    kill,
    require_redis,
    send,
    wait_for,
    worker_env,
)
from tests.web.test_end_to_end import sandbox_for_this_machine
from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline.ladder import queue_ladder_matches

pytestmark = pytest.mark.django_db(transaction=True)

HIGHEST = b"def play(view):\n    return max(view.legal)\n"


def status_of(match_id: int) -> str:
    return Match.objects.get(pk=match_id).status


def test_uploaded_bots_are_validated_and_play_rated_ladder_matches(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]  (a match's games are set when queued)
    sandbox = sandbox_for_this_machine().value
    versions = [
        upload_version(UserFactory(username=name), "b.py", data, new_bot_name=name, game=game)
        for name, data, game in [
            ("ann", GOOD_BOT, "five-cucumbers"),
            ("bob", PLAY_FUNCTION_BOT, "five-cucumbers"),
            ("cat", HIGHEST, "five-cucumbers"),
        ]
    ]
    log = tmp_path / "worker.log"
    with celery_worker(worker_env(sandbox), log):
        for version in versions:  # validation matches, through the same task as the ladder's
            send("pipeline.run_match", version.validation_match_id, queue="urgent")

        def all_active() -> bool:
            statuses = set(BotVersion.objects.values_list("status", flat=True))
            return statuses == {VersionStatus.ACTIVE}

        wait_for(all_active, 120, "validation of the uploads", log)
        matches = queue_ladder_matches("five-cucumbers", 3)
        assert len(matches) == 3
        for match in matches:
            send("pipeline.run_match", match.pk)

        def all_finished() -> bool:
            return all(status_of(m.pk) == MatchStatus.FINISHED for m in matches)

        wait_for(all_finished, 120, "the ladder matches", log)
    bots = list(Bot.objects.all())
    assert all(m.sandbox == sandbox for m in Match.objects.filter(pk__in=[m.pk for m in matches]))
    assert any(bot.rating != 1500.0 for bot in bots)
    assert math.isclose(sum(bot.rating for bot in bots), 3 * 1500.0)  # all provisional: one K
    seats = sum(m.participants.count() for m in matches)
    assert RatingChange.objects.count() == seats * 2
    assert_history_consistent(bots)


def test_a_match_whose_worker_is_killed_is_recorded_once_after_a_restart(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 40  # type: ignore[attr-defined]
    sandbox = sandbox_for_this_machine().value
    for name in ("dan", "eve", "fay"):
        version = upload_version(
            UserFactory(username=name), "b.py", GOOD_BOT, new_bot_name=name, game="concombre"
        )
        BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACTIVE)
        Bot.objects.filter(pk=version.bot_id).update(active_version=version)
    (match,) = queue_ladder_matches("concombre", 1)
    # Long enough to be killed in the middle; a short visibility timeout and lease so that
    # the restarted worker gets the message again and may take the match over quickly.
    env = worker_env(
        sandbox, CELERY_VISIBILITY_TIMEOUT="4", CELERY_RESTORE_INTERVAL="1", MATCH_LEASE_SECONDS="4"
    )
    log = tmp_path / "worker.log"
    with celery_worker(env, log) as worker:
        send("pipeline.run_match", match.pk)
        wait_for(lambda: status_of(match.pk) == MatchStatus.RUNNING, 60, "the match to start", log)
        kill(worker, signal.SIGKILL)
    assert status_of(match.pk) == MatchStatus.RUNNING
    assert not RatingChange.objects.exists()
    with celery_worker(env, log):
        wait_for(lambda: status_of(match.pk) == MatchStatus.FINISHED, 150, "the retry", log)
    match.refresh_from_db()
    assert match.attempts == 2
    assert match.games.count() == 40
    seated = list(Bot.objects.filter(participations__match=match))
    assert RatingChange.objects.filter(match=match).count() == len(seated) * 40
    assert all(bot.games == 40 for bot in seated)
    bots = list(Bot.objects.all())
    assert_history_consistent(bots)


def test_a_validation_is_served_before_the_queued_ladder(tmp_path: Path, settings: object) -> None:
    require_redis()
    settings.MATCH_GAMES = 1  # type: ignore[attr-defined]
    settings.VALIDATION_GAMES = 1  # type: ignore[attr-defined]
    for name in ("gil", "hal", "ivy"):
        version = upload_version(
            UserFactory(username=name), "b.py", GOOD_BOT, new_bot_name=name, game="concombre"
        )
        BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACTIVE)
        Bot.objects.filter(pk=version.bot_id).update(active_version=version)
    ladder = queue_ladder_matches("concombre", 6)
    newcomer = upload_version(
        UserFactory(username="joy"), "b.py", GOOD_BOT, new_bot_name="joy", game="concombre"
    )
    # Everything is waiting before the worker starts: six ladder matches, then the upload.
    for match in ladder:
        send("pipeline.run_match", match.pk, queue="ladder")
    send("pipeline.run_match", newcomer.validation_match_id, queue="urgent")
    sent = [m.pk for m in ladder] + [newcomer.validation_match_id]
    log = tmp_path / "worker.log"
    with celery_worker(worker_env("process"), log):
        wait_for(
            lambda: all(status_of(pk) == MatchStatus.FINISHED for pk in sent),
            120,
            "every match sent",
            log,
        )
    started = dict(Match.objects.values_list("pk", "started_at"))
    assert newcomer.validation_match_id is not None
    first_ladder = min(started[m.pk] for m in ladder)
    assert started[newcomer.validation_match_id] < first_ladder, (
        "the validation waited behind the ladder"
    )
