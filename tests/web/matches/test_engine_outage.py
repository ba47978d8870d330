"""A match worker and its Docker engine, through real Celery workers on Redis: no engine at
the start, no worker (a clear message, a non-zero exit); an engine lost later pauses the
worker's queues instead of letting it claim and fail every queued match, and it resumes when
the engine is back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.arena.conftest import require_sandbox
from tests.arena.engine_proxy import EngineProxy
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.matches.celery_worker import celery_worker, require_redis, send, wait_for, worker_env
from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus
from web.pipeline.ladder import queue_ladder_matches

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_match_worker_without_an_engine_stops_at_once_naming_it(tmp_path: Path) -> None:
    require_redis()
    env = worker_env("docker", DOCKER_HOST=f"unix://{tmp_path}/no-engine.sock")
    log = tmp_path / "worker.log"
    with celery_worker(env, log) as worker:
        status = worker.wait(timeout=120)
    assert status != 0
    text = log.read_text()
    assert "the Docker engine cannot be reached" in text
    assert "Task pipeline.run_match" not in text  # it never took work


def test_a_worker_whose_engine_goes_away_pauses_and_resumes_without_burning_attempts(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    require_sandbox()
    settings.MATCH_GAMES = 1  # type: ignore[attr-defined]
    for name in ("kim", "lou"):
        version = upload_version(
            UserFactory(username=name), "b.py", GOOD_BOT, new_bot_name=name, game="concombre"
        )
        BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACTIVE)
        Bot.objects.filter(pk=version.bot_id).update(active_version=version)
    socket_path = tmp_path / "engine.sock"
    proxy = EngineProxy(socket_path)
    log = tmp_path / "worker.log"

    def logged(text: str) -> bool:
        return text in log.read_text(errors="replace")

    with celery_worker(worker_env("docker", DOCKER_HOST=proxy.docker_host), log):
        wait_for(lambda: logged("ready."), 60, "the worker to start", log)
        proxy.cut()
        wait_for(lambda: logged("paused urgent, ladder"), 60, "the worker to pause", log)
        (match,) = queue_ladder_matches("concombre", 1)
        send("pipeline.run_match", match.pk)
        EngineProxy(socket_path)  # the engine is back
        wait_for(lambda: logged("resumed urgent, ladder"), 60, "the worker to resume", log)
        wait_for(
            lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED,
            120,
            "the match",
            log,
        )
    match.refresh_from_db()
    # Taken only once the engine was back: a worker that kept consuming would have claimed
    # it during the outage, failed it as an infrastructure error and needed a second attempt.
    assert match.attempts == 1
    assert match.sandbox == "docker"
