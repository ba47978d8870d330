"""A review end to end through Redis, with real workers: the owner asks on the match page;
the job waits on the review queue; results forged by someone holding the broker (unsigned,
signed by an unregistered key, and by a registered host for another seat) reach the
platform's worker on the ``reports`` queue and are refused, nothing recorded; then an arena
worker (``env -i``, its own host key, the process sandbox: a review runs no bot) computes
it, the platform's worker records its signed result, and the owner's review page shows it.
A review past the soft time limit the platform sends with its job fails on the arena worker,
saying so, and the platform records the failure."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import redis
from django.test import Client
from django.urls import reverse

from arena.broker import REPORTS_QUEUE, REVIEW_QUEUE, REVIEW_RESULT_TASK
from arena.review_contract import dump, load_review_result
from arena.reviewing import review_job
from arena.signing import Purpose, Signer, generate_key
from tests.web.factories import UserFactory
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
from tests.web.reviews.helpers import finished_match
from web.arena_hosts.hosts import add_host
from web.reviews.asking import ask_review
from web.reviews.models import Review, ReviewStatus
from web.reviews.sending import job_for

pytestmark = pytest.mark.django_db(transaction=True)


def count(log: Path, text: str) -> int:
    return log.read_text(errors="replace").count(text) if log.exists() else 0


def test_a_review_is_computed_by_an_arena_worker_and_forged_results_are_refused(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    settings.REVIEW_DEALS = 20  # type: ignore[attr-defined]
    owner = UserFactory(username="olga")
    match = finished_match(owner)
    rogue = Signer("rogue-host", generate_key())  # registered: a genuine host's key
    add_host(rogue.name, rogue.public)
    genuine_host = arena_env("process")
    register_host(genuine_host)
    stranger = Signer("test-arena", generate_key())  # the genuine host's name, another key
    client = redis.Redis.from_url(REDIS_URL)
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    browser = Client()
    browser.force_login(owner)
    from web.celery import app

    with platform_broker(), platform_worker(platform_env(), platform_log):
        asked = browser.post(reverse("review-ask", args=[match.pk]), {"participant": 0})
        assert asked.status_code == 302
        review = Review.objects.get()
        assert review.status == ReviewStatus.QUEUED and client.llen(REVIEW_QUEUE) == 1
        assert review.attempt is not None
        genuine = dump(review_job(job_for(review, review.attempt), "forger"))
        raw = json.loads(genuine)
        moved = (raw["games"][0]["seat"] + 1) % 3
        raw["games"][0]["seat"] = raw["games"][0]["review"]["seat"] = moved
        other_seat = dump(load_review_result(json.dumps(raw)))
        forged = [
            genuine,  # unsigned
            stranger.seal(Purpose.REVIEW_RESULT, genuine),
            rogue.seal(Purpose.REVIEW_RESULT, other_seat),
        ]
        for text in forged:
            app.send_task(REVIEW_RESULT_TASK, args=[text], queue=REPORTS_QUEUE)
        wait_for(
            lambda: count(platform_log, "event=review.refused") == len(forged),
            60,
            "the forged results refused",
            platform_log,
        )
        log = platform_log.read_text()
        for reason in (
            "not a signed envelope",
            "bad signature for signer 'test-arena'",
            "where the job's are",
        ):
            assert reason in log, reason
        review.refresh_from_db()
        assert (review.status, review.result) == (ReviewStatus.QUEUED, None)

        with arena_worker(genuine_host, arena_log):
            wait_for(
                lambda: Review.objects.filter(pk=review.pk, status=ReviewStatus.DONE).exists(),
                120,
                "the review computed and recorded",
                arena_log,
                platform_log,
            )
    review.refresh_from_db()
    assert (review.arena_host, review.error) == ("test-arena", "")
    assert client.llen(REVIEW_QUEUE) == 0
    assert [g["number"] for g in review.result["games"]] == [g[0] for g in review.plan]
    page = browser.get(reverse("review-detail", args=[match.pk, 0])).content.decode()
    assert 'data-review-status="done"' in page and "<b>estimate</b>" in page
    decisions = sum(g["review"]["summary"]["decisions"] for g in review.result["games"])
    assert decisions > 0 and f"<b>{decisions}</b>" in page
    moves = re.findall(r'href="/matches/\d+/#g\d+-r\d+-t\d+-p\d+-s\d+" data-move-link', page)
    assert len(moves) == min(30, decisions)


def test_a_review_past_its_time_limit_on_the_arena_worker_fails_saying_so(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    settings.REVIEW_DEALS = 20_000  # type: ignore[attr-defined]  (minutes of work)
    settings.REVIEW_SOFT_TIME_LIMIT = 2  # type: ignore[attr-defined]
    settings.REVIEW_TIME_LIMIT = 30  # type: ignore[attr-defined]
    owner = UserFactory(username="olga")
    match = finished_match(owner)
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    with (
        platform_broker(),
        platform_worker(platform_env(), platform_log),
        arena_worker(arena_env("process"), arena_log),
    ):
        review, sent = ask_review(owner, match, 0)
        assert sent
        wait_for(
            lambda: Review.objects.get(pk=review.pk).status == ReviewStatus.FAILED,
            90,
            "the review failed at its time limit",
            arena_log,
            platform_log,
        )
    review.refresh_from_db()
    assert (review.error, review.arena_host) == (
        "the review took longer than its time limit",
        "test-arena",
    )
    assert review.result is None
