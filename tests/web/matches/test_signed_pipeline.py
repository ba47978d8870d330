"""Someone holding the broker, through real workers on Redis: forged reports published on the
``reports`` queue (unsigned, signed by an unregistered key, by a revoked host, a 40-game
report signed by a registered host for a 3-game match), a queued job whose source is
rewritten with its SHA-256 recomputed, and a job signed by another platform's key. The
platform's worker refuses every report and the arena worker (``env -i``, its own host key)
refuses both jobs: nothing is played or recorded. The match is then sent again and played
and recorded by the genuine worker."""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from django.utils import timezone

from arena.broker import LADDER_QUEUE, PLAY_TASK, REPORT_TASK, REPORTS_QUEUE
from arena.contract import dump
from arena.playing import play_job
from arena.signing import PLATFORM_SIGNER, Purpose, Signer, generate_key
from tests.web.matches.arena_helpers import make_active
from tests.web.matches.celery_worker import (
    REDIS_URL,
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    register_host,
    require_redis,
    wait_for,
)
from web.arena_hosts.hosts import add_host, revoke_host
from web.bots.models import Bot
from web.matches.models import Match, MatchGame, MatchStatus, RatingChange
from web.pipeline.dispatch import send_match
from web.pipeline.jobs import job_for
from web.pipeline.kinds.ladder import queue_ladder_matches

pytestmark = pytest.mark.django_db(transaction=True)

EVIL = "import os\n\ndef play(view):\n    os._exit(1)\n"


def edit_queued(client: redis.Redis, queue: str, edit: Callable[[str], str]) -> None:
    """Rewrite the first argument (the envelope) of every message waiting in ``queue``, as
    anyone who can write to the broker can."""
    for index, raw in enumerate(client.lrange(queue, 0, -1)):
        message = json.loads(raw)
        args, kwargs, embed = json.loads(base64.b64decode(message["body"]))
        args[0] = edit(args[0])
        message["body"] = base64.b64encode(json.dumps([args, kwargs, embed]).encode()).decode()
        client.lset(queue, index, json.dumps(message))


def rewrite_first_source(envelope: str) -> str:
    """The job's first uploaded source replaced, its SHA-256 recomputed, the platform's
    signature kept."""
    outer = json.loads(envelope)
    job = json.loads(outer["body"])
    seat = next(s for s in job["seats"] if s.get("source") is not None)
    seat |= {"source": EVIL, "sha256": hashlib.sha256(EVIL.encode()).hexdigest()}
    outer["body"] = json.dumps(job)
    return json.dumps(outer)


def count(log: Path, text: str) -> int:
    return log.read_text(errors="replace").count(text) if log.exists() else 0


def forty_games(report_text: str) -> str:
    raw: dict[str, Any] = json.loads(report_text)
    games = raw["games"]
    raw["games"] = [dict(games[n % len(games)], number=n + 1) for n in range(40)]
    return json.dumps(raw)


def test_forged_reports_and_tampered_jobs_on_redis_are_refused_then_a_genuine_worker_plays(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 3  # type: ignore[attr-defined]
    settings.LADDER_DUPLICATE = False  # type: ignore[attr-defined]
    settings.LADDER_DEBUT = False  # type: ignore[attr-defined]  (its match on the ladder queue)
    for name in ("ann", "bob", "cat"):
        make_active(name)
    rogue = Signer("rogue-host", generate_key())  # registered: a genuine host's key
    revoked = Signer("old-host", generate_key())
    stranger = Signer("test-arena", generate_key())  # the genuine host's name, another key
    genuine = arena_env("process")
    register_host(genuine)
    add_host(rogue.name, rogue.public)
    add_host(revoked.name, revoked.public)
    revoke_host(revoked.name)
    client = redis.Redis.from_url(REDIS_URL)
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    from web.celery import app

    with platform_broker(), platform_worker(platform_env(), platform_log):
        (match,) = queue_ladder_matches("concombre", 1)
        match.refresh_from_db()
        assert client.llen(LADDER_QUEUE) == 1 and match.games_planned == 3
        participants = list(match.participants.select_related("version").order_by("index"))
        assert match.attempt is not None
        job = job_for(match, participants, match.attempt)  # as read from the queue
        report = dump(play_job(job, "process", "forger"))
        forged = [
            report,  # unsigned
            stranger.seal(Purpose.REPORT, report),
            revoked.seal(Purpose.REPORT, report),
            rogue.seal(Purpose.REPORT, forty_games(report)),
        ]
        for text in forged:
            app.send_task(REPORT_TASK, args=[text], queue=REPORTS_QUEUE)
        wait_for(
            lambda: count(platform_log, "event=match.refused") == len(forged),
            60,
            "the forged reports refused",
            platform_log,
        )
        log = platform_log.read_text()
        for reason in (
            "not a signed envelope",
            "bad signature for signer 'test-arena'",
            "arena host 'old-host' was revoked",
            "40 games for a job of 3",
        ):
            assert reason in log, reason

        # The queued job's source rewritten; then another platform's job for the same match.
        edit_queued(client, LADDER_QUEUE, rewrite_first_source)
        other_platform = Signer(PLATFORM_SIGNER, generate_key())
        other_job = job.model_copy(update={"attempt": uuid.uuid4()})
        app.send_task(
            PLAY_TASK, args=[other_platform.seal(Purpose.JOB, dump(other_job))], queue=LADDER_QUEUE
        )
        with arena_worker(genuine, arena_log):
            wait_for(
                lambda: count(arena_log, "refused a job") == 2,
                60,
                "the worker to refuse both jobs",
                arena_log,
            )
            assert "bad signature for signer 'platform'" in arena_log.read_text()
            assert "playing (ladder)" not in arena_log.read_text()
            match.refresh_from_db()
            assert match.status == MatchStatus.QUEUED and match.attempts == 1
            assert not MatchGame.objects.exists() and not RatingChange.objects.exists()
            assert all(bot.games == 0 for bot in Bot.objects.all())

            # What the reaper does for a job that never started: send it again.
            assert send_match(match.pk, resend_before=timezone.now())
            wait_for(
                lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED,
                90,
                "the genuine worker to play the match",
                arena_log,
                platform_log,
            )
    match.refresh_from_db()
    # The resend is no new attempt: the refused jobs never started (attempts count work).
    assert (match.attempts, match.arena_host, match.worker) == (1, "test-arena", "test-arena")
    games = list(MatchGame.objects.filter(match=match))
    assert len(games) == 3
    assert all(game.faults == [] for game in games)  # the rewritten source never ran
    seats = match.participants.count()
    assert RatingChange.objects.filter(match=match).count() == seats * 3
