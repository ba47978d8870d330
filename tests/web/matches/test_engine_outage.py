"""An arena worker and its Docker engine, through real workers on Redis: no engine at the
start, no worker (a clear message, a non-zero exit); an engine lost later pauses the
worker's queues instead of letting it take and fail every queued match, and it resumes when
the engine is back; an engine lost in the middle of a match played on the attach channel
(every move through the engine) makes it an infrastructure error, sent again and played once
the engine is back, never charged to a bot. (On the socket channel, the default under runc,
the kernel carries the moves: such a match plays on, ``tests/arena/test_docker_runner.py``.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.sandbox.reaper import reap_containers
from tests.arena.conftest import require_sandbox
from tests.relay import EngineProxy
from tests.web.matches.arena_helpers import make_active
from tests.web.matches.celery_worker import (
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline.kinds.ladder import queue_ladder_matches

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_match_worker_without_an_engine_stops_at_once_naming_it(tmp_path: Path) -> None:
    require_redis()
    env = arena_env("docker", DOCKER_HOST=f"unix://{tmp_path}/no-engine.sock")
    log = tmp_path / "worker.log"
    with arena_worker(env, log) as worker:
        status = worker.wait(timeout=120)
    assert status != 0
    text = log.read_text()
    assert "the Docker engine cannot be reached" in text
    assert "ready." not in text and "playing" not in text  # it never took work


def test_a_worker_whose_engine_goes_away_pauses_and_resumes_without_burning_attempts(
    tmp_path: Path, settings: object
) -> None:
    settings.LADDER_DUPLICATE = False  # type: ignore[attr-defined]  (one match, not a set)
    require_redis()
    require_sandbox()
    settings.MATCH_GAMES = 1  # type: ignore[attr-defined]
    for name in ("kim", "lou"):
        make_active(name)
    socket_path = tmp_path / "engine.sock"
    proxy = EngineProxy(socket_path)
    log, platform_log = tmp_path / "worker.log", tmp_path / "platform.log"

    def logged(text: str) -> bool:
        return text in log.read_text(errors="replace")

    with (
        platform_broker(),
        platform_worker(platform_env(), platform_log),
        arena_worker(arena_env("docker", DOCKER_HOST=proxy.docker_host), log),
    ):
        wait_for(lambda: logged("ready."), 60, "the worker to start", log)
        proxy.cut()
        paused, resumed = (
            "paused urgent, debut, tournament, ladder",
            "resumed urgent, debut, tournament, ladder",
        )
        wait_for(lambda: logged(paused), 60, "the worker to pause", log)
        (match,) = queue_ladder_matches("concombre", 1)  # sent on commit
        EngineProxy(socket_path)  # the engine is back
        wait_for(lambda: logged(resumed), 60, "the worker to resume", log)
        wait_for(
            lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED,
            120,
            "the match",
            log,
            platform_log,
        )
    match.refresh_from_db()
    # Taken only once the engine was back: a worker that kept consuming would have taken
    # it during the outage, failed it as an infrastructure error and needed a second attempt.
    assert match.attempts == 1
    assert match.sandbox == "docker"


def test_a_job_taken_before_the_watch_notices_goes_back_unstarted_and_the_worker_pauses_at_once(
    tmp_path: Path, settings: object
) -> None:
    """The first seconds of an outage: the watch has not asked yet, so the worker takes a
    job. The job asks the engine before it says it started, goes back to its queue as it
    came (no attempt spent, nothing sent to the platform), and the worker pauses then, not
    at the watch's next question (an hour away here)."""
    settings.LADDER_DUPLICATE = False  # type: ignore[attr-defined]  (one match, not a set)
    require_redis()
    require_sandbox()
    settings.MATCH_GAMES = 1  # type: ignore[attr-defined]
    for name in ("oli", "pia"):
        make_active(name)
    socket_path = tmp_path / "engine.sock"
    proxy = EngineProxy(socket_path)
    log, platform_log = tmp_path / "worker.log", tmp_path / "platform.log"

    def logged(text: str) -> int:
        return log.read_text(errors="replace").count(text)

    env = arena_env("docker", DOCKER_HOST=proxy.docker_host, ARENA_ENGINE_WATCH_SECONDS="3600")
    with (
        platform_broker(),
        platform_worker(platform_env(), platform_log),
        arena_worker(env, log),
    ):
        wait_for(lambda: logged("ready.") > 0, 60, "the worker to start", log)
        proxy.cut()
        (match,) = queue_ladder_matches("concombre", 1)  # sent on commit
        wait_for(lambda: logged("put back on its queue, not started") > 0, 60, "the put-back", log)
        wait_for(
            lambda: logged("paused urgent, debut, tournament, ladder") > 0, 30, "the pause", log
        )
        match.refresh_from_db()
        assert match.status == MatchStatus.QUEUED and match.attempts == 1
        assert match.started_at is None and match.worker == ""
        EngineProxy(socket_path)  # the engine is back
        wait_for(lambda: logged("resumed urgent") > 0, 30, "the worker to resume", log)
        wait_for(
            lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED,
            120,
            "the match",
            log,
            platform_log,
        )
    match.refresh_from_db()
    assert match.attempts == 1  # the job put back was the same job, played once
    assert logged(f"match {match.pk} attempt ") == 3  # put back, playing, finished
    assert logged("playing (ladder)") == 1
    assert "event=match.retry" not in platform_log.read_text()
    assert all(game.faults == [] for game in match.games.all())


def test_an_engine_lost_mid_match_is_retried_and_never_charged_to_a_bot(
    tmp_path: Path, settings: object
) -> None:
    settings.LADDER_DUPLICATE = False  # type: ignore[attr-defined]  (one match, not a set)
    require_redis()
    require_sandbox()
    settings.MATCH_GAMES = 200  # type: ignore[attr-defined]  long enough to cut in the middle
    settings.LADDER_DEBUT_GAMES = 200  # type: ignore[attr-defined]  (new bots: a debut table)
    for name in ("max", "ned"):
        make_active(name)
    socket_path = tmp_path / "engine.sock"
    proxy = EngineProxy(socket_path)
    log, platform_log = tmp_path / "worker.log", tmp_path / "platform.log"

    def logged(text: str) -> bool:
        return text in log.read_text(errors="replace")

    with (
        platform_broker(),
        platform_worker(platform_env(MATCH_RETRY_SECONDS="1"), platform_log),
        arena_worker(
            arena_env("docker", DOCKER_HOST=proxy.docker_host, CUCUMBERS_SANDBOX_CHANNEL="attach"),
            log,
        ),
    ):
        wait_for(lambda: logged("ready."), 60, "the worker to start", log)
        (match,) = queue_ladder_matches("concombre", 1)
        wait_for(lambda: logged("playing (ladder)"), 60, "the match to start", log)
        proxy.cut()
        wait_for(lambda: logged("infrastructure_error"), 60, "the match to end", log)
        EngineProxy(socket_path)  # the engine is back
        wait_for(
            lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED,
            180,
            "the match played again",
            log,
            platform_log,
        )
    match.refresh_from_db()
    assert match.attempts == 2
    assert match.games.count() == 200
    # Not one fault of the lost attempt reached the record: the bots played cleanly.
    assert all(game.faults == [] for game in match.games.all())
    assert RatingChange.objects.filter(match=match).count() == 2 * 200
    assert "event=match.retry" in platform_log.read_text()
    # What the dead engine connection could not remove, the reaper does.
    reap_containers()
