"""Sending a review to the arena: its :class:`~arena.review_contract.ReviewJob` (each game's
public replay and the participant's seat in it), signed by the platform's key, on the
review queue (:data:`arena.broker.REVIEW_QUEUE`), with its time limits. Each send is a new
attempt; a broker that does not take it leaves the review queued and unsent (logged), and
asking again sends it."""

from __future__ import annotations

import uuid

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.broker import REVIEW_QUEUE, REVIEW_TASK
from arena.review_contract import ReviewGame, ReviewJob, dump
from arena.signing import Purpose
from web.arena_hosts.keys import platform_signer
from web.matches.models import MatchGame
from web.matches.replays import read_replay

from .events import ReviewEvent, log_event
from .models import Review, ReviewStatus


class UnreviewableMatch(Exception):
    """No game of the match can be sent for review; the message says why."""


def seat_in(game: MatchGame, replay: dict[str, object], participant: int) -> int | None:
    """The participant's seat in ``game``: the game's placement lists participants best
    first, its replay's the seats in the same order."""
    seats = replay.get("placement")
    if not isinstance(seats, list) or len(seats) != len(game.placement):
        return None
    if participant not in game.placement:
        return None
    seat = seats[game.placement.index(participant)]
    return seat if isinstance(seat, int) else None


def job_for(review: Review, attempt: uuid.UUID) -> ReviewJob:
    """The review's job under ``attempt``: every game of the match with a replay."""
    games = []
    for game in review.match.games.exclude(replay="").order_by("number"):
        replay = read_replay(game)
        seat = seat_in(game, replay, review.participant)
        if seat is not None:
            games.append(ReviewGame(number=game.number, seat=seat, replay=replay))
    if not games:
        raise UnreviewableMatch("no game of the match has a replay of this participant")
    return ReviewJob(
        review=review.pk,
        attempt=attempt,
        match=review.match_id,
        participant=review.participant,
        seed=review.seed,
        deals=review.deals,
        games=tuple(games),
    )


def send_review(review_id: int) -> bool:
    """Send the queued review now under a new attempt; False (logged) when it is not
    queued, cannot be reviewed (then it failed), or the broker did not take it."""
    attempt = uuid.uuid4()
    claimed = Review.objects.filter(pk=review_id, status=ReviewStatus.QUEUED).update(
        attempt=attempt, sent_at=timezone.now()
    )
    if not claimed:
        return False
    review = Review.objects.select_related("match").get(pk=review_id)
    try:
        job = job_for(review, attempt)
    except UnreviewableMatch as error:
        Review.objects.filter(pk=review_id, attempt=attempt).update(
            status=ReviewStatus.FAILED, error=str(error), finished_at=timezone.now()
        )
        log_event(ReviewEvent.FAILED, review=review_id, reason=str(error))
        return False
    Review.objects.filter(pk=review_id, attempt=attempt).update(
        plan=[[game.number, game.seat] for game in job.games]
    )
    try:
        signed = platform_signer().seal(Purpose.REVIEW_JOB, dump(job))
        current_app.send_task(
            REVIEW_TASK,
            args=[signed],
            queue=REVIEW_QUEUE,
            soft_time_limit=settings.REVIEW_SOFT_TIME_LIMIT,
            time_limit=settings.REVIEW_TIME_LIMIT,
        )
    except Exception as error:  # no key, kombu's OperationalError, a refused connection...
        log_event(ReviewEvent.UNSENT, review=review_id, reason=f"{type(error).__name__}: {error}")
        Review.objects.filter(pk=review_id, attempt=attempt).update(sent_at=None)
        return False
    log_event(ReviewEvent.SENT, review=review_id, match=review.match_id, games=len(job.games))
    return True


def send_review_on_commit(review_id: int) -> None:
    """Send the review once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send_review(review_id), robust=True)
