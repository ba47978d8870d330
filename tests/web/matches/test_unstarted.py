"""Attempts count work, not waiting: jobs that no worker takes for longer than four leases
stay queued with one attempt and one message each, a job lost with the broker is sent again
after MATCH_UNSTARTED_SECONDS (not a lease) without an attempt, and once a worker comes,
every queued match plays."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
import redis
from django.utils import timezone

from arena.broker import LADDER_QUEUE, BrokerSettings, Role
from tests.web.matches.arena_helpers import make_active
from tests.web.matches.celery_worker import (
    REDIS_URL,
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from web.bots.models import Bot
from web.matches.models import Match, MatchStatus
from web.pipeline.kinds.ladder import queue_ladder_matches
from web.pipeline.tasks import reap_matches_task
from web.pipeline.transitions import lease

pytestmark = pytest.mark.django_db(transaction=True)


def messages_on(queue: str) -> int:
    client = redis.Redis.from_url(REDIS_URL)
    try:
        return int(client.llen(queue))
    finally:
        client.close()


def time_passes(seconds: float) -> None:
    """As if ``seconds`` went by since every queued match was sent."""
    for match in Match.objects.filter(status=MatchStatus.QUEUED, sent_at__isnull=False):
        Match.objects.filter(pk=match.pk).update(sent_at=match.sent_at - timedelta(seconds=seconds))


def test_no_worker_for_four_leases_costs_no_attempt_and_every_match_plays_after(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 1  # type: ignore[attr-defined]
    veterans = [make_active(name).bot for name in ("gil", "hal", "ivy")]
    Bot.objects.filter(pk__in=[b.pk for b in veterans]).update(games_since_version=100)
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    # The reaper counts the queues on the settings' broker: the same Redis.
    broker = BrokerSettings.from_env({"REDIS_URL": REDIS_URL}).celery(Role.PLATFORM)
    settings.CELERY_BROKER_URL = broker["broker_url"]  # type: ignore[attr-defined]
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = broker["broker_transport_options"]  # type: ignore[attr-defined]
    with platform_broker():
        queued = [m.pk for m in queue_ladder_matches("concombre", 3)]  # sent on commit
        assert messages_on(LADDER_QUEUE) == len(queued)
        # No arena worker for four leases: the reaper sees jobs waiting in their queue.
        for _ in range(4):
            time_passes(lease().total_seconds() + 1)
            reap_matches_task()
        matches = Match.objects.filter(pk__in=queued)
        assert {(m.status, m.attempts) for m in matches} == {(MatchStatus.QUEUED, 1)}
        assert messages_on(LADDER_QUEUE) == len(queued), "the waiting jobs were sent twice"
        # The broker loses its queues (a restart without persistence): once the jobs have
        # waited MATCH_UNSTARTED_SECONDS with their queue empty, they are sent again,
        # without counting an attempt.
        Match.objects.filter(pk__in=queued).update(sent_at=timezone.now())  # as if just sent
        redis.Redis.from_url(REDIS_URL).delete(LADDER_QUEUE)
        time_passes(settings.MATCH_UNSTARTED_SECONDS - 5)  # type: ignore[attr-defined]
        reap_matches_task()
        assert messages_on(LADDER_QUEUE) == 0, "resent before the deadline"
        time_passes(10)
        reap_matches_task()
        assert messages_on(LADDER_QUEUE) == len(queued)
        assert set(Match.objects.filter(pk__in=queued).values_list("attempts", flat=True)) == {1}
        with (
            platform_worker(platform_env(), platform_log),
            arena_worker(arena_env("process"), arena_log),
        ):
            wait_for(
                lambda: all(
                    Match.objects.get(pk=pk).status == MatchStatus.FINISHED for pk in queued
                ),
                180,
                "every queued match to be played",
                arena_log,
                platform_log,
            )
    assert set(Match.objects.filter(pk__in=queued).values_list("attempts", flat=True)) == {1}
