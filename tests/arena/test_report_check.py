"""A report checked against its job (arena/report_check.py): a genuine report, played by
``play_job`` in the process runner, has no problem; each way a forger can bend one (another
attempt, games added or missing, seeds and seating, the sources, a missing or rule-breaking
replay, a replay that disagrees with the report, a game played on a deal other than its
seed's) is found and named."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from arena.contract import (
    JobLimits,
    JobSeat,
    MatchJob,
    MatchKind,
    MatchReport,
    ReportStatus,
    dump,
    load_report,
)
from arena.playing import play_job
from arena.report_check import problems
from tests.sdk.forged_deals import swap_between_hands, without_seed

LOWEST = "def play(view):\n    return min(view.legal)\n"
CRASHER = "def play(view):\n    raise RuntimeError('boom')\n"

Raw = dict[str, Any]


def seat(name: str, source: str, bot: int) -> JobSeat:
    digest = hashlib.sha256(source.encode()).hexdigest()
    return JobSeat(name=name, source=source, sha256=digest, bot=bot, version=1)


def a_job(**changes: Any) -> MatchJob:
    values: dict[str, Any] = {
        "match": 9,
        "attempt": uuid.uuid4(),
        "kind": MatchKind.LADDER,
        "game": "five-cucumbers",
        "seed": 77,
        "games": 3,
        "limits": JobLimits(move_seconds=2.0, bank_seconds=5.0, startup_seconds=20.0),
        "seats": (
            seat("ann/low", LOWEST, 1),
            JobSeat(name="builtin:random", builtin="random"),
            JobSeat(name="builtin:highest", builtin="highest"),
        ),
    }
    return MatchJob(**(values | changes))


@pytest.fixture(scope="module")
def played() -> tuple[MatchJob, MatchReport]:
    job = a_job()
    report = play_job(job, "process", "test")
    assert report.status is ReportStatus.PLAYED and len(report.games) == 3
    return job, report


def edited(report: MatchReport, edit: Callable[[Raw], object]) -> MatchReport:
    raw = json.loads(dump(report))
    edit(raw)
    return load_report(json.dumps(raw))


def test_a_genuine_report_has_no_problem(played: tuple[MatchJob, MatchReport]) -> None:
    job, report = played
    assert problems(job, report) == []
    assert report.sources == (job.seats[0].sha256, None, None)


def test_a_genuine_duplicate_rotation_and_a_stopped_validation_have_no_problem() -> None:
    rotation = a_job(duplicate=True, rotation=2, games=2)
    assert problems(rotation, play_job(rotation, "process", "test")) == []
    validation = a_job(
        kind=MatchKind.VALIDATION,
        seats=(seat("bob/crash", CRASHER, 2), *a_job().seats[1:]),
        stop_after_fault_of=(0,),
    )
    stopped = play_job(validation, "process", "test")
    assert len(stopped.games) == 1  # the candidate crashed in game 1
    assert problems(validation, stopped) == []


def test_an_infrastructure_error_is_checked_for_its_attempt_only() -> None:
    job = a_job()
    report = MatchReport(
        match=9,
        attempt=job.attempt,
        worker="w",
        sandbox="docker",
        status=ReportStatus.INFRASTRUCTURE_ERROR,
        reason="no engine",
    )
    assert problems(job, report) == []
    assert problems(a_job(), report)  # another attempt's


def swap_two_games(raw: Raw) -> None:
    raw["games"][0], raw["games"][1] = raw["games"][1], raw["games"][0]


def extra_game(raw: Raw) -> None:
    raw["games"].append(dict(raw["games"][-1], number=4))


def set_game(index: int, **values: Any) -> Callable[[Raw], None]:
    def edit(raw: Raw) -> None:
        raw["games"][index] |= values

    return edit


def set_replay(index: int, edit: Callable[[Raw], None]) -> Callable[[Raw], None]:
    def outer(raw: Raw) -> None:
        edit(raw["games"][index]["replay"])

    return outer


def illegal_card(replay: Raw) -> None:
    play = replay["rounds"][0]["tricks"][0]["plays"][0]
    play["card"] = 16 - play["card"] if play["card"] != 8 else 9


def rename_player(replay: Raw) -> None:
    replay["players"][0]["name"] = "mallory/evil"


def reversed_placement(raw: Raw) -> None:
    game = raw["games"][0]
    game["placement"] = list(reversed(game["placement"]))


@pytest.mark.parametrize(
    ("edit", "found"),
    [
        (lambda raw: raw.update(attempt=str(uuid.uuid4())), "attempt"),
        (lambda raw: raw.update(match=10), "match 10"),
        (lambda raw: raw["games"].pop(), "2 of 3 games, and no watched bot's fault ended it"),
        (extra_game, "4 games for a job of 3"),
        (swap_two_games, "not 1..3 in order"),
        (set_game(1, seed=123), "game 2: seed 123, the plan's is"),
        (lambda raw: raw["games"][0].update(bots=raw["games"][0]["bots"][::-1]), "seating"),
        (lambda raw: raw.update(sources=[None, None, None]), "sources played"),
        (lambda raw: raw.update(sources=[]), "sources played"),
        (set_game(2, replay=None), "game 3: no replay"),
        (set_replay(0, illegal_card), "game 1: the replay breaks the rules"),
        (set_replay(0, rename_player), "seat 0: the replay's player"),
        (reversed_placement, "game 1: placement"),
        (lambda raw: raw["games"][0].update(scores=[0] * 3), "game 1: scores"),
    ],
    ids=[
        "another-attempt",
        "another-match",
        "a-game-missing",
        "more-games-than-planned",
        "games-out-of-order",
        "wrong-seed",
        "wrong-seating",
        "sources-not-the-jobs",
        "sources-missing",
        "a-replay-missing",
        "a-rule-breaking-replay",
        "a-replay-of-other-players",
        "placement-not-the-replays",
        "scores-not-the-replays",
    ],
)
def test_each_way_of_bending_a_report_is_found(
    played: tuple[MatchJob, MatchReport], edit: Callable[[Raw], object], found: str
) -> None:
    job, report = played
    bent = problems(job, edited(report, edit))
    assert any(found in problem for problem in bent), bent


def test_a_series_that_goes_on_after_a_watched_fault_is_found() -> None:
    validation = a_job(
        kind=MatchKind.VALIDATION,
        seats=(seat("bob/crash", CRASHER, 2), *a_job().seats[1:]),
        stop_after_fault_of=(0,),
    )
    # The same match played on without the stop: the forger's longer series.
    unstopped = a_job(attempt=validation.attempt, seats=validation.seats)
    report = play_job(unstopped, "process", "test")
    assert len(report.games) == 3
    found = problems(validation, report)
    assert any("goes on after game 1" in problem for problem in found), found


def test_a_replay_with_a_card_swapped_between_two_hands_is_refused(
    played: tuple[MatchJob, MatchReport],
) -> None:
    job, report = played
    genuine = report.games[0].replay
    assert genuine is not None
    # Every play still legal, and everything else the report says still agrees with it.
    found = swap_between_hands(genuine, random.Random(39))
    assert found is not None
    forged, number, (a, b) = found
    bent = problems(job, edited(report, set_game(0, replay=forged)))
    assert len(bent) == 1, bent
    assert bent[0].startswith(
        f"game 1: the replay breaks the rules: round {number}: seat {a}'s hand is ["
    )
    assert f"; round {number}: seat {b}'s hand is [" in bent[0]
    assert "but the seed deals it [" in bent[0]


def game_1_played_on_game_2s_deal(raw: Raw) -> None:
    """The host's own choice of deal: game 2's cards played as game 1, under game 1's seed
    and players, with the report's account of game 1 made to agree with that replay."""
    first, second = raw["games"][0], raw["games"][1]
    replay = copy.deepcopy(second["replay"])
    replay["seed"], replay["players"] = first["seed"], first["replay"]["players"]
    rounds = replay["rounds"]
    first.update(
        replay=replay,
        placement=replay["placement"],
        scores=rounds[-1]["scores"],
        rounds=len(rounds),
        capped=replay["capped"],
        faults=[dict(f) for f in second["faults"]],
    )


def test_a_game_played_on_a_deal_of_the_hosts_choosing_is_refused(
    played: tuple[MatchJob, MatchReport],
) -> None:
    job, report = played
    assert not report.games[1].faults
    bent = problems(job, edited(report, game_1_played_on_game_2s_deal))
    assert len(bent) == 1, bent
    assert bent[0].startswith("game 1: the replay breaks the rules: round 1: seat 0's hand is [")
    assert "but the seed deals it [" in bent[0]


def test_a_replay_without_its_seed_is_refused_as_its_deal_is_not_verified(
    played: tuple[MatchJob, MatchReport],
) -> None:
    job, report = played
    genuine = report.games[2].replay
    assert genuine is not None
    bent = problems(job, edited(report, set_game(2, replay=without_seed(genuine))))
    assert bent == ["game 3: the replay's deal is not verified (it has no seed): a host's must be"]
