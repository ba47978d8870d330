"""Redis restarted without its data, with real workers: a Redis server of the test's own
(no persistence, a free port) is killed and started again empty. Jobs sent before are lost
with it, an upload while it is down is kept whole, and the reaper sends every one of them
again: no version stays queued, no row is left without its file. A match in flight while
Redis restarts is reported once Redis is back, and recorded once."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.broker import BrokerSettings, Role
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.matches.arena_helpers import make_active
from tests.web.matches.celery_worker import (
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    wait_for,
)
from tests.web.matches.private_redis import PrivateRedis
from tests.web.test_end_to_end import sandbox_for_this_machine
from web.bots.models import BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline.kinds.ladder import queue_ladder_matches
from web.pipeline.tasks import reap_matches_task

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    redis = PrivateRedis(tmp_path)
    redis.start()
    yield redis
    redis.stop()


def test_jobs_lost_with_redis_and_an_upload_while_it_is_down_are_all_played(
    tmp_path: Path, settings: object, private_redis: PrivateRedis
) -> None:
    # The reaper runs in this process: a job sent this long ago and never started is lost
    # (long enough for a worker to start any job it does hold).
    settings.MATCH_LEASE_SECONDS = 15  # type: ignore[attr-defined]
    settings.MATCH_UNSTARTED_SECONDS = 15  # type: ignore[attr-defined]
    url = private_redis.url
    # The reaper counts the queues (a lost job's is empty) on the settings' broker.
    broker = BrokerSettings.from_env({"REDIS_URL": url}).celery(Role.PLATFORM)
    settings.CELERY_BROKER_URL = broker["broker_url"]  # type: ignore[attr-defined]
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = broker["broker_transport_options"]  # type: ignore[attr-defined]
    with platform_broker(url):
        # Sent while no worker runs: the jobs wait in Redis, which then loses them.
        sent_before = [
            upload_version(
                UserFactory(username=name), "b.py", GOOD_BOT, new_bot_name=name, game="concombre"
            )
            for name in ("ada", "ben")
        ]
        assert all(Match.objects.get(pk=v.validation_match_id).sent_at for v in sent_before)
        private_redis.kill()
        during = upload_version(
            UserFactory(username="cy"), "b.py", GOOD_BOT, new_bot_name="cy", game="concombre"
        )
        assert Match.objects.get(pk=during.validation_match_id).sent_at is None
        private_redis.start()  # empty
        versions = [*sent_before, during]
        arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
        with (
            platform_worker(platform_env(url), platform_log),
            arena_worker(arena_env("process", url), arena_log),
        ):

            def all_active() -> bool:
                reap_matches_task()  # beat's periodic job, run here until it has sent them
                statuses = {BotVersion.objects.get(pk=v.pk).status for v in versions}
                return statuses == {VersionStatus.ACTIVE}

            wait_for(all_active, 120, "every version validated", arena_log, platform_log)
    for version in versions:
        version.refresh_from_db()
        assert version.read_source().encode() == GOOD_BOT  # no row without its file
        match = Match.objects.get(pk=version.validation_match_id)
        assert match.status == MatchStatus.FINISHED
    # The lost jobs were sent a second time, not counted as attempts (no worker had started
    # them); the upload while Redis was down, once.
    attempts = [Match.objects.get(pk=v.validation_match_id).attempts for v in versions]
    assert attempts == [1, 1, 1]


def test_a_match_in_flight_while_redis_restarts_is_recorded_once(
    tmp_path: Path, settings: object, private_redis: PrivateRedis
) -> None:
    settings.LADDER_DUPLICATE = False  # type: ignore[attr-defined]  (one match, not a set)
    settings.MATCH_GAMES = 200  # type: ignore[attr-defined]  long enough to restart Redis
    settings.LADDER_DEBUT_GAMES = 200  # type: ignore[attr-defined]  (new bots: a debut table)
    sandbox = sandbox_for_this_machine().value
    for name in ("dee", "eli"):
        make_active(name)
    url = private_redis.url
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    with (
        platform_broker(url),
        platform_worker(platform_env(url), platform_log),
        arena_worker(arena_env(sandbox, url), arena_log),
    ):
        wait_for(lambda: "ready." in arena_log.read_text(), 60, "the worker", arena_log)
        (match,) = queue_ladder_matches("concombre", 1)
        wait_for(
            lambda: Match.objects.get(pk=match.pk).status == MatchStatus.RUNNING,
            60,
            "the match to start",
            arena_log,
            platform_log,
        )
        private_redis.kill()
        time.sleep(1)  # an outage, not a blip: the worker's report finds no broker
        private_redis.start()
        wait_for(
            lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED,
            180,
            "the match's report",
            arena_log,
            platform_log,
        )
    match.refresh_from_db()
    assert (match.attempts, match.games.count()) == (1, 200)
    assert RatingChange.objects.filter(match=match).count() == 2 * 200
