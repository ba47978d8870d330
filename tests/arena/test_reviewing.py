"""The arena's side of a move review: the contract of its job and result
(arena/review_contract.py), the work (arena/reviewing.py: the SDK's review of each game, or
a failed result naming the game that cannot be rebuilt) and the worker's task
(``arena.worker.review``: a job the platform did not sign is refused, never computed and
never answered; a signed one is answered with a result signed by the arena host)."""

from __future__ import annotations

import copy
import json
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded

import arena.worker
from arena.broker import ARENA_QUEUES, LADDER_QUEUE, MATCH_QUEUES, REVIEW_QUEUE, REVIEW_RESULT_TASK
from arena.contract import ContractError
from arena.review_contract import (
    ReviewGame,
    ReviewJob,
    ReviewStatus,
    dump,
    load_review_job,
    load_review_result,
)
from arena.reviewing import review_job
from arena.signing import (
    PLATFORM_SIGNER,
    Purpose,
    Signer,
    generate_key,
    load_private_key,
    open_envelope,
    write_key_pair,
)
from arena.worker import WorkerConfig, WorkerKeys
from cucumbers.games import rules_for
from cucumbers.match import play_match
from cucumbers.review import review_json
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec


def replays(seed: int = 4, games: int = 2) -> list[dict[str, Any]]:
    rules = rules_for("five-cucumbers")
    specs = [BotSpec.parse(f"builtin:{name}") for name in ("random", "heuristic", "lowest")]
    with make_runner("none") as runner:
        outcomes = play_match(rules, specs, runner, seed=seed, game_numbers=range(1, games + 1))
        return [outcome.replay for outcome in outcomes if outcome.replay is not None]


def a_job(games: list[dict[str, Any]], deals: int = 8) -> ReviewJob:
    return ReviewJob(
        review=3,
        attempt=uuid.uuid4(),
        match=9,
        participant=1,
        seed=0,
        deals=deals,
        games=tuple(
            ReviewGame(number=n, seat=n % 3, replay=replay) for n, replay in enumerate(games, 1)
        ),
    )


def test_every_game_is_reviewed_for_its_seat_as_the_sdk_reviews_it_deterministically() -> None:
    job = a_job(replays())
    result = review_job(job, "arena-w")
    assert (result.status, result.review, result.attempt) == (
        ReviewStatus.DONE,
        3,
        job.attempt,
    )
    assert [(g.number, g.seat) for g in result.games] == [(1, 1), (2, 2)]
    for game, sent in zip(result.games, job.games, strict=True):
        assert game.review == review_json(sent.replay, sent.seat, seed=0, deals=8)
        assert game.review["decisions"] and game.review["seat"] == sent.seat
    again = review_job(job, "arena-w")
    assert [g.review for g in again.games] == [g.review for g in result.games]
    # Through the wire and back: the platform reads what the worker wrote.
    assert load_review_result(dump(result)) == result


def test_a_replay_this_engine_cannot_rebuild_fails_the_review_naming_its_game() -> None:
    games = replays()
    broken = copy.deepcopy(games[1])
    play = broken["rounds"][0]["tricks"][0]["plays"][0]
    play["card"] = 99
    result = review_job(a_job([games[0], broken]), "arena-w")
    assert result.status is ReviewStatus.FAILED and result.games == ()
    assert result.reason.startswith("game 2 cannot be reviewed")


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda raw: raw.update(deals=1), "deals"),
        (lambda raw: raw.update(games=[raw["games"][0], raw["games"][0]]), "each game once"),
        (lambda raw: raw.update(games=[]), "games"),
        (lambda raw: raw.update(participant="1"), "participant"),
        (lambda raw: raw.update(schema="cucumbers-match-job/1"), "schema"),
        (lambda raw: raw.update(extra=1), "extra"),
    ],
)
def test_a_job_off_its_schema_is_refused_naming_the_field(
    edit: Callable[[dict[str, Any]], None], said: str
) -> None:
    raw = json.loads(dump(a_job(replays(games=1))))
    edit(raw)
    with pytest.raises(ContractError, match=said):
        load_review_job(json.dumps(raw))


def test_reviews_are_served_after_matches_people_wait_for_and_before_the_ladder() -> None:
    assert set(MATCH_QUEUES) < set(ARENA_QUEUES)
    assert ARENA_QUEUES.index(REVIEW_QUEUE) == ARENA_QUEUES.index(LADDER_QUEUE) - 1
    assert ARENA_QUEUES[-1] == LADDER_QUEUE


class Sent:
    def __init__(self) -> None:
        self.messages: list[tuple[str, Purpose, str]] = []

    def __call__(self, task: str, purpose: Purpose, body: str) -> None:
        self.messages.append((task, purpose, body))


@pytest.fixture
def worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Signer, Signer, Sent]:
    platform = Signer(PLATFORM_SIGNER, generate_key())
    write_key_pair(tmp_path / "host")
    keys = WorkerKeys.from_env(
        {
            "ARENA_PLATFORM_KEY": platform.public,
            "ARENA_HOST_KEY_FILE": str(tmp_path / "host"),
            "ARENA_HOST_NAME": "arena-1",
        }
    )
    monkeypatch.setattr(arena.worker, "_config", WorkerConfig("w", "process", keys=keys))
    sent = Sent()
    monkeypatch.setattr(arena.worker, "send_back", sent)
    host = Signer("arena-1", load_private_key(tmp_path / "host"))
    return platform, host, sent


def test_a_signed_review_job_is_computed_and_answered_signed_by_the_host(
    worker: tuple[Signer, Signer, Sent],
) -> None:
    platform, host, sent = worker
    job = a_job(replays(games=1))
    assert arena.worker.review(platform.seal(Purpose.REVIEW_JOB, dump(job))) == "done"
    ((task, purpose, body),) = sent.messages
    assert (task, purpose) == (REVIEW_RESULT_TASK, Purpose.REVIEW_RESULT)
    result = load_review_result(body)
    assert (result.review, result.attempt, result.worker) == (3, job.attempt, "w")
    # What send_back seals is what the platform opens with the host's key.
    text = host.seal(purpose, body)
    assert open_envelope(text, Purpose.REVIEW_RESULT, {"arena-1": host.key.public_key()})[0]


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda platform, text: text, id="unsigned"),
        pytest.param(
            lambda platform, text: Signer(PLATFORM_SIGNER, generate_key()).seal(
                Purpose.REVIEW_JOB, text
            ),
            id="another-platforms-key",
        ),
        pytest.param(
            lambda platform, text: platform.seal(Purpose.JOB, text), id="a-match-jobs-signature"
        ),
    ],
)
def test_a_review_job_the_platform_did_not_sign_is_refused_and_never_answered(
    worker: tuple[Signer, Signer, Sent],
    caplog: pytest.LogCaptureFixture,
    forge: Callable[[Signer, str], str],
) -> None:
    platform, _, sent = worker
    text = dump(a_job(replays(games=1)))
    with caplog.at_level(logging.ERROR, logger="arena.worker"):
        assert arena.worker.review(forge(platform, text)) == "refused"
    assert sent.messages == []
    assert any("refused a review job" in r.getMessage() for r in caplog.records)


def test_a_review_past_its_soft_time_limit_is_answered_as_failed_saying_so(
    worker: tuple[Signer, Signer, Sent], monkeypatch: pytest.MonkeyPatch
) -> None:
    platform, _, sent = worker

    def too_long(job: ReviewJob, name: str) -> None:
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(arena.worker, "review_job", too_long)
    job = a_job(replays(games=1))
    assert arena.worker.review(platform.seal(Purpose.REVIEW_JOB, dump(job))) == "failed"
    ((_, purpose, body),) = sent.messages
    result = load_review_result(body)
    assert (purpose, result.status, result.attempt) == (
        Purpose.REVIEW_RESULT,
        ReviewStatus.FAILED,
        job.attempt,
    )
    assert result.reason == "the review took longer than its time limit"


class Consuming:
    """A Celery consumer as the engine watch sees it: the queues it takes from, in the
    order they were added (kombu serves them in that order)."""

    def __init__(self, queues: tuple[str, ...]) -> None:
        self.queues = list(queues)
        self.task_consumer = self

    def consuming_from(self, queue: str) -> bool:
        return queue in self.queues

    def cancel_task_queue(self, queue: str) -> None:
        self.queues.remove(queue)

    def add_task_queue(self, queue: str) -> None:
        self.queues.append(queue)


def test_reviews_go_on_while_the_engine_is_away_and_the_order_of_service_comes_back_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import arena.engine_watch

    watch = arena.worker.MatchQueuesWatch.__new__(arena.worker.MatchQueuesWatch)
    watch.paused = []
    consumer = Consuming(ARENA_QUEUES)
    monkeypatch.setattr(arena.engine_watch, "engine_problem", lambda seconds: "engine down")
    watch.check(consumer)
    assert consumer.queues == [REVIEW_QUEUE]  # no bot, no sandbox: reviews go on
    monkeypatch.setattr(arena.engine_watch, "engine_problem", lambda seconds: None)
    watch.check(consumer)
    # Not the review queue first and the match queues behind it: urgent first again.
    assert consumer.queues == list(ARENA_QUEUES)
