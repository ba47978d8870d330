"""The match task in the real Docker sandbox (a played match; a missing image recognised as
an infrastructure error), and concurrent matches sharing bots (no lost rating update)."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import pytest
from django.db import connection

from arena.contract import MatchReport, ReportStatus
from arena.playing import play_job
from tests.arena.conftest import require_sandbox
from tests.web.matches.arena_helpers import (
    assert_history_consistent,
    ladder_bots,
    queued_match,
    started_attempt,
)
from web.bots.models import Bot
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline import running
from web.pipeline.recording import record_report
from web.pipeline.transitions import RunResult
from web.sandbox import SandboxKind, prepare_runner


@pytest.fixture
def docker(monkeypatch: pytest.MonkeyPatch, settings: object) -> None:
    require_sandbox()
    import cucumbers.runners
    import web.sandbox

    # The Docker runner registers itself process-wide: leave the registry as found.
    monkeypatch.setattr(cucumbers.runners, "RUNNERS", dict(cucumbers.runners.RUNNERS))
    monkeypatch.setattr(web.sandbox, "_prepared", set())
    prepare_runner(SandboxKind.DOCKER)
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]


@pytest.mark.django_db
def test_a_match_plays_in_the_docker_sandbox(docker: None) -> None:
    bots = ladder_bots(4)
    match = queued_match(bots)
    assert running.run_match(match.pk, SandboxKind.DOCKER).result is RunResult.FINISHED
    match.refresh_from_db()
    assert (match.status, match.sandbox) == (MatchStatus.FINISHED, "docker")
    assert not any(g.faults for g in match.games.all())
    assert RatingChange.objects.filter(match=match).count() == 4 * 2


@pytest.mark.django_db
def test_a_missing_sandbox_image_is_an_infrastructure_error_not_a_fault(
    docker: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUCUMBERS_SANDBOX_IMAGE", "cucumbers-sandbox:no-such-version")
    match = queued_match(ladder_bots(2))
    report = running.run_match(match.pk, SandboxKind.DOCKER)
    assert report.result is RunResult.RETRY
    assert "the sandbox image cucumbers-sandbox:no-such-version is missing" in report.reason
    match.refresh_from_db()
    assert match.status == MatchStatus.QUEUED
    assert not match.games.exists() and not RatingChange.objects.exists()


@pytest.mark.django_db
def test_a_docker_engine_that_is_down_retries_then_fails_the_match_unrated(
    docker: None, settings: object, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings.MATCH_MAX_ATTEMPTS = 2  # type: ignore[attr-defined]
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")  # nothing listens
    match = queued_match(ladder_bots(2))
    first = running.run_match(match.pk, SandboxKind.DOCKER)
    assert first.result is RunResult.RETRY and first.delay > 0
    assert "the Docker engine cannot be reached" in first.reason
    match.refresh_from_db()
    assert (match.status, match.attempts) == (MatchStatus.QUEUED, 1)

    second = running.run_match(match.pk, SandboxKind.DOCKER)
    assert second.result is RunResult.FAILED
    match.refresh_from_db()
    assert match.status == MatchStatus.FAILED
    assert "the Docker engine cannot be reached" in match.failure_reason
    assert not match.games.exists() and not RatingChange.objects.exists()
    assert {p.placement for p in match.participants.all()} == {None}


@pytest.mark.django_db(transaction=True)
def test_concurrent_matches_sharing_bots_lose_no_rating_update(settings: object) -> None:
    settings.MATCH_GAMES = 1  # type: ignore[attr-defined]
    settings.PROVISIONAL_GAMES = 0  # type: ignore[attr-defined]  one K for all: zero sum
    bots = ladder_bots(3)
    rounds, workers = 3, 4
    # Played first, then recorded by four threads at once per round: the recording
    # transactions overlap as much as they can.
    played = []
    for i in range(rounds * workers):
        match = queued_match(bots[i % 3 :] + bots[: i % 3], seed=i)
        report = play_job(started_attempt(match.pk), "process", "test-worker")
        assert report.status is ReportStatus.PLAYED, report.reason
        played.append(report)
    barrier = threading.Barrier(workers)
    errors: list[BaseException] = []

    def worker(mine: list[MatchReport]) -> None:
        try:
            for report in mine:
                barrier.wait(timeout=30)
                assert record_report(report).recorded
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(played[i::workers],)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Match.objects.filter(status=MatchStatus.FINISHED).count() == rounds * workers
    ratings = [Bot.objects.get(pk=b.pk).rating for b in bots]
    assert math.isclose(sum(ratings), 3 * 1500.0)
    assert RatingChange.objects.count() == rounds * workers * 3
    assert all(Bot.objects.get(pk=b.pk).games == rounds * workers for b in bots)
    assert_history_consistent(bots)
