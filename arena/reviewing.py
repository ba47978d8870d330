"""A review job's work: each game of the job through the SDK's move review
(:func:`cucumbers.review.review_json`), the house's own code on replays the platform signed,
so no sandbox; the worker's time limit bounds it (:func:`arena.worker.review`).

>>> result = review_job(job, worker="arena-1")                         # doctest: +SKIP
>>> result.games[0].review["summary"]["regret"]                        # doctest: +SKIP
1.92
"""

from __future__ import annotations

from time import perf_counter

from cucumbers.repro import ReplayMismatch
from cucumbers.review import review_json

from .review_contract import ReviewedGame, ReviewJob, ReviewResult, ReviewStatus


def review_job(job: ReviewJob, worker: str) -> ReviewResult:
    """Every game of ``job`` reviewed for its seat, or a failed result saying which game
    could not be (a replay this engine cannot rebuild): never an exception for a replay."""
    started = perf_counter()
    games = []
    for game in job.games:
        try:
            review = review_json(game.replay, game.seat, seed=job.seed, deals=job.deals)
        except (ReplayMismatch, ValueError, KeyError, TypeError) as error:
            return failed(job, worker, f"game {game.number} cannot be reviewed: {error}")
        games.append(ReviewedGame(number=game.number, seat=game.seat, review=review))
    return ReviewResult(
        review=job.review,
        attempt=job.attempt,
        worker=worker,
        status=ReviewStatus.DONE,
        games=tuple(games),
        seconds=perf_counter() - started,
    )


def failed(job: ReviewJob, worker: str, reason: str) -> ReviewResult:
    """A failed result of ``job``, saying why."""
    return ReviewResult(
        review=job.review,
        attempt=job.attempt,
        worker=worker,
        status=ReviewStatus.FAILED,
        reason=reason[:2000],
    )
