"""Record what an arena host sent back for a review (its signature checked by the task,
:mod:`web.reviews.tasks`, which passes the signer as ``host``): once, and only for the
attempt the review waits for, by a conditional update (a duplicate, a late result of an
earlier attempt, or one for a review that is done finds nothing to update and is
discarded). A result that contradicts its job (other games or seats, another seed or
budget, not the SDK's review format) is refused: logged, nothing recorded."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from numbers import Real
from typing import Any

from django.utils import timezone

from arena.review_contract import ReviewResult
from arena.review_contract import ReviewStatus as ResultStatus
from cucumbers.review import REVIEW_FORMAT

from .events import ReviewEvent, log_event
from .models import Review, ReviewStatus

#: What every decision of a review has (``cucumbers review --json``), with its types.
DECISION_KEYS = ("round", "trick", "move", "played", "best")


class Outcome(StrEnum):
    RECORDED = "recorded"
    FAILED = "failed"
    DISCARDED = "discarded"
    REFUSED = "refused"


def problems(review: Review, result: ReviewResult) -> list[str]:
    """Where a done result contradicts the review's job."""
    sent = [tuple(pair) for pair in review.plan]
    got = [(game.number, game.seat) for game in result.games]
    if got != sent:
        return [f"games and seats {got} where the job's are {sent}"]
    found = []
    for game in result.games:
        found += [
            f"game {game.number}: {p}" for p in _game_problems(review, game.seat, game.review)
        ]
    return found


def _game_problems(review: Review, seat: int, data: Mapping[str, Any]) -> list[str]:
    expected = {"format": REVIEW_FORMAT, "seat": seat, "seed": review.seed, "deals": review.deals}
    wrong = [
        f"{key} is {data.get(key)!r}, not {value!r}"
        for key, value in expected.items()
        if data.get(key) != value
    ]
    decisions = data.get("decisions")
    summary = data.get("summary")
    if not isinstance(decisions, list) or not isinstance(summary, dict):
        return [*wrong, "no decisions or no summary"]
    if summary.get("decisions") != len(decisions):
        wrong.append("its summary counts other decisions")
    for decision in decisions:
        if not isinstance(decision, dict) or not _decision_ok(decision):
            wrong.append(f"a decision that is not one: {str(decision)[:100]}")
            break
    return wrong


def _decision_ok(decision: Mapping[str, Any]) -> bool:
    whole = all(type(decision.get(key)) is int for key in DECISION_KEYS)
    regret = decision.get("regret")
    interval = decision.get("interval")
    return (
        whole
        and isinstance(regret, Real)
        and isinstance(interval, list)
        and len(interval) == 2
        and all(isinstance(v, Real) for v in interval)
    )


def receive_result(result: ReviewResult, host: str) -> Outcome:
    """Record ``result`` from arena host ``host`` if the review waits for its attempt."""
    waiting = Review.objects.filter(
        pk=result.review, attempt=result.attempt, status=ReviewStatus.QUEUED
    )
    review = waiting.first()
    if review is None:
        log_event(ReviewEvent.DISCARDED, review=result.review, host=host, worker=result.worker)
        return Outcome.DISCARDED
    if result.status is ResultStatus.FAILED:
        done = waiting.update(
            status=ReviewStatus.FAILED,
            error=result.reason,
            finished_at=timezone.now(),
            arena_host=host,
            worker=result.worker,
        )
        log_event(ReviewEvent.FAILED, review=review.pk, host=host, reason=result.reason)
        return Outcome.FAILED if done else Outcome.DISCARDED
    found = problems(review, result)
    if found:
        log_event(ReviewEvent.REFUSED, review=review.pk, host=host, reason="; ".join(found)[:2000])
        return Outcome.REFUSED
    games = [{"number": g.number, "seat": g.seat, "review": g.review} for g in result.games]
    done = waiting.update(
        status=ReviewStatus.DONE,
        result={"games": games},
        finished_at=timezone.now(),
        arena_host=host,
        worker=result.worker,
        seconds=result.seconds,
    )
    if not done:
        log_event(ReviewEvent.DISCARDED, review=review.pk, host=host, worker=result.worker)
        return Outcome.DISCARDED
    log_event(
        ReviewEvent.RECORDED,
        review=review.pk,
        match=review.match_id,
        host=host,
        worker=result.worker,
        seconds=result.seconds,
    )
    return Outcome.RECORDED
