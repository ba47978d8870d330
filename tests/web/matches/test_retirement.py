"""Automatic retirement (web/pipeline/retirement.py): a version with a fault of its own in
more than RETIREMENT_FAULT_PERCENT % of its last RETIREMENT_GAMES rated ladder games stops
playing, with the reason on its bot's page, in the API and in a mail to its owner; an
opponent's faults and infrastructure failures never count. Played for real, in the
foreground, with the process runner."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest
from django.core import mail
from django.test import Client

import web.sandbox
from arena.contract import MatchKind
from tests.web.bots.test_validation import CRASHER
from tests.web.factories import GOOD_BOT
from tests.web.matches.arena_helpers import make_active, queued_match
from web.bots.models import Bot, VersionStatus
from web.matches.models import Match, MatchStatus
from web.pages.versions import NotPlayable, activate
from web.pipeline.factory import create_match
from web.pipeline.retirement import fault_record
from web.pipeline.running import run_match
from web.pipeline.transitions import RunResult
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db

PROCESS = SandboxKind.PROCESS
Commits = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]


@pytest.fixture(autouse=True)
def _small_window(settings: object) -> None:
    # Two games a match, a window of 6 games: retired past 3 faulty games (50 %).
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    settings.LADDER_DUPLICATE = False  # type: ignore[attr-defined]
    settings.RETIREMENT_GAMES = 6  # type: ignore[attr-defined]
    settings.RETIREMENT_FAULT_PERCENT = 50  # type: ignore[attr-defined]


def pair(crasher_source: bytes = CRASHER) -> tuple[Bot, Bot]:
    crasher = Bot.objects.get(pk=make_active("crash", source=crasher_source).bot_id)
    sound = Bot.objects.get(pk=make_active("sound").bot_id)
    return crasher, sound


def play(bots: tuple[Bot, Bot], seed: int) -> None:
    assert run_match(queued_match(list(bots), seed=seed).pk, PROCESS).result is RunResult.FINISHED


@pytest.fixture(autouse=True)
def _eager_notices(settings: object) -> Any:
    from web.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # type: ignore[attr-defined]
    yield
    app.conf.task_always_eager = before


def test_a_version_that_crashes_in_most_games_is_retired_and_its_owner_told(
    client: Client, django_capture_on_commit_callbacks: Commits
) -> None:
    crasher, sound = pair()
    version = crasher.active_version
    assert version is not None
    with django_capture_on_commit_callbacks(execute=True):
        play((crasher, sound), 1)  # 2 faulty games of 2: not more than half of 6 yet
    crasher.refresh_from_db()
    assert crasher.active_version_id == version.pk
    assert fault_record(version.pk).faulty == 2
    waiting = create_match(crasher.game, MatchKind.LADDER, [crasher, sound], rated=True, send=False)
    with django_capture_on_commit_callbacks(execute=True):
        play((crasher, sound), 2)  # 4 faulty games: past 3
    # Its queued ladder match is dropped with it: no new rated game for a retired version.
    waiting.refresh_from_db()
    assert waiting.status == MatchStatus.FAILED and "no active version" in waiting.failure_reason
    version.refresh_from_db()
    crasher.refresh_from_db()
    assert version.status == VersionStatus.RETIRED and version.retired_at is not None
    assert version.retirement_reason.startswith("a fault of its own in 4 of its last 4 rated")
    assert "crash 4" in version.retirement_reason
    assert (crasher.active_version_id, crasher.on_leaderboard) == (None, False)
    assert crasher.standing == "v1 retired"
    sound.refresh_from_db()
    assert sound.active_version_id is not None  # its opponent's faults are not its own
    page = client.get(f"/bots/{crasher.pk}/").content.decode()
    assert "v1 retired" in page and version.retirement_reason in page
    api = client.get(f"/api/bots/{crasher.pk}/versions/1/").json()
    assert api["status"] == "retired" and api["retirement_reason"] == version.retirement_reason
    assert api["retired_at"] is not None
    subjects = [(m.to[0], m.subject) for m in mail.outbox if "retired" in m.subject]
    assert subjects == [("crash@example.org", "crash/crash v1 was retired for its faults")]
    with pytest.raises(NotPlayable, match="retired for its faults"):
        activate(crasher, 1)  # not by hand either: a corrected upload is the way back


def test_a_sound_version_beside_faulty_opponents_is_never_retired() -> None:
    crasher, sound = pair()
    play((crasher, sound), 1)
    play((crasher, sound), 2)  # the crasher is retired after this one
    sound.refresh_from_db()
    assert sound.active_version is not None
    assert sound.active_version.status == VersionStatus.ACTIVE
    assert fault_record(sound.active_version.pk).faulty == 0


def test_infrastructure_failures_never_retire_a_version(
    settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Docker sandbox with an engine that is not there: every attempt is the
    # infrastructure's failure, however often, and the match fails unrated in the end.
    settings.MATCH_MAX_ATTEMPTS = 3  # type: ignore[attr-defined]
    settings.MATCH_RETRY_SECONDS = 0  # type: ignore[attr-defined]
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    monkeypatch.setattr(web.sandbox, "_prepared", set())
    first, second = pair(GOOD_BOT)
    for seed in range(1, 4):
        match = queued_match([first, second], seed=seed)
        results = {run_match(match.pk, SandboxKind.DOCKER).result for _ in range(3)}
        assert RunResult.RETRY in results
        assert Match.objects.get(pk=match.pk).status == MatchStatus.FAILED
    for bot in (first, second):
        bot.refresh_from_db()
        assert bot.active_version is not None
        assert bot.active_version.status == VersionStatus.ACTIVE
        assert fault_record(bot.active_version.pk).games == 0


def test_a_window_of_zero_games_turns_retirement_off(settings: object) -> None:
    settings.RETIREMENT_GAMES = 0  # type: ignore[attr-defined]
    crasher, sound = pair()
    for seed in range(1, 4):
        play((crasher, sound), seed)
    crasher.refresh_from_db()
    assert crasher.active_version is not None
    assert crasher.active_version.status == VersionStatus.ACTIVE
