"""The arena's contract: a job and a report survive the trip as JSON, and anything that does
not follow the schema is refused with a message naming the field."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import uuid
from typing import Any

import pytest
from pydantic import ValidationError

from arena.contract import (
    JOB_SCHEMA,
    ContractError,
    JobLimits,
    JobSeat,
    MatchJob,
    MatchKind,
    MatchReport,
    MatchStarted,
    ReportStatus,
    dump,
    load_job,
    load_report,
    load_started,
)

SOURCE = "def play(view):\n    return view.legal[0]\n"


def source_seat(text: str = SOURCE, **fields: Any) -> JobSeat:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return JobSeat(name="ann/low v2", source=text, sha256=digest, filename="low.py", **fields)


def a_job(**fields: Any) -> MatchJob:
    values: dict[str, Any] = {
        "match": 12,
        "attempt": uuid.uuid4(),
        "kind": MatchKind.LADDER,
        "game": "five-cucumbers",
        "seed": 99,
        "games": 3,
        "limits": JobLimits(move_seconds=1.0, bank_seconds=10.0, startup_seconds=10.0),
        "seats": (source_seat(bot=4, version=2), JobSeat(name="builtin:random", builtin="random")),
    }
    return MatchJob(**(values | fields))


def edited(job: MatchJob | MatchReport, change: Any) -> str:
    data = json.loads(dump(job))
    change(data)
    return json.dumps(data)


def test_a_job_travels_as_json_and_comes_back_equal() -> None:
    job = a_job()
    text = dump(job)
    assert json.loads(text)["schema"] == JOB_SCHEMA
    assert load_job(text) == job
    assert job.seats[0].player_info() == {"bot": 4, "version": 2}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(schema="cucumbers-match-job/2"), "schema"),
        (lambda d: d.update(seed="99"), "seed: Input should be a valid integer"),
        (lambda d: d.update(games=True), "games"),
        (lambda d: d.update(surprise=1), "surprise: Extra inputs are not permitted"),
        (lambda d: d.update(game="chess"), "unknown game 'chess'"),
        (lambda d: d.update(seats=d["seats"][:1]), "played by 2 to 6 players, not 1"),
        (lambda d: d.update(stop_after_fault_of=[5]), "a bot the match does not have"),
        (lambda d: d["seats"][0].update(source="import os\n"), "does not match its sha256"),
        (lambda d: d["seats"][0].update(builtin="random"), "exactly one of them"),
        (lambda d: d["seats"][0].update(filename="../etc/passwd"), "seats.0.filename"),
        (lambda d: d["limits"].update(move_seconds=0), "limits.move_seconds"),
    ],
)
def test_a_job_that_breaks_the_schema_is_refused_naming_the_field(
    change: Any, message: str
) -> None:
    with pytest.raises(ContractError, match="not a valid MatchJob") as refused:
        load_job(edited(a_job(), change))
    assert message in str(refused.value)


def a_report(**fields: Any) -> MatchReport:
    game = {
        "number": 1,
        "seed": 5,
        "bots": [1, 0],
        "placement": [0, 1],
        "scores": [3, 9],
        "faults": [
            {
                "seat": 1,
                "round": 2,
                "trick": 1,
                "kind": "crash",
                "detail": "ValueError: boom (low.py, line 2)",
                "infrastructure": False,
            }
        ],
        "rounds": 4,
        "capped": False,
        "moves": [11, 9],
        "think_seconds": [0.01, 0.02],
        "outputs": ["", "thinking\n"],
        "replay": {"format": "cucumbers-replay/1"},
    }
    values = {
        "schema": "cucumbers-match-report/1",
        "match": 12,
        "attempt": str(uuid.uuid4()),
        "worker": "arena-1",
        "sandbox": "docker",
        "status": "played",
        "games": [game],
    }
    return load_report(json.dumps(values | fields))


def test_a_report_travels_as_json_and_its_games_become_outcomes() -> None:
    report = a_report()
    assert load_report(dump(report)) == report
    (outcome,) = report.outcomes()
    assert outcome.bots == (1, 0) and outcome.place_of_bot(0) == 2
    assert outcome.faults[0].detail.startswith("ValueError: boom")
    assert outcome.faults[0].infrastructure is False


def test_a_traceback_and_each_moves_lines_travel_apart_from_the_replay() -> None:
    trace = {
        "frames": [{"file": "low.py", "line": 2, "function": "play", "code": "raise ValueError"}],
        "exception": "ValueError: boom",
    }

    def private(data: dict[str, Any]) -> None:
        data["games"][0]["faults"][0]["traceback"] = trace
        data["games"][0]["move_output"] = [[], [{"round": 2, "trick": 1, "lines": ["hm"]}]]

    report = load_report(edited(a_report(), private))
    assert load_report(dump(report)) == report
    (outcome,) = report.outcomes()
    assert outcome.faults[0].traceback is not None
    assert outcome.faults[0].traceback.to_json() == trace
    assert [[m.to_json() for m in moves] for moves in outcome.move_output] == [
        [],
        [{"round": 2, "trick": 1, "lines": ["hm"]}],
    ]
    (old,) = a_report().outcomes()  # a worker that sends neither: still a report
    assert old.move_output == () and old.faults[0].traceback is None

    def flood(data: dict[str, Any]) -> None:
        data["games"][0]["move_output"] = [
            [],
            [{"round": 1, "trick": t, "lines": ["x" * 2000] * 9} for t in range(1, 8)],
        ]

    with pytest.raises(ContractError, match="over the per-game output limit"):
        load_report(edited(a_report(), flood))

    def too_many_frames(data: dict[str, Any]) -> None:
        data["games"][0]["faults"][0]["traceback"] = trace | {"frames": trace["frames"] * 41}

    with pytest.raises(ContractError, match="frames"):
        load_report(edited(a_report(), too_many_frames))


def test_a_played_report_cannot_carry_an_infrastructure_fault() -> None:
    report = a_report()

    def infrastructure(data: dict[str, Any]) -> None:
        data["games"][0]["faults"][0]["infrastructure"] = True

    with pytest.raises(ContractError, match="a played match has no infrastructure fault"):
        load_report(edited(report, infrastructure))


def test_an_infrastructure_error_says_why_and_carries_no_game() -> None:
    with pytest.raises(ContractError, match="an infrastructure error says why"):
        a_report(status="infrastructure_error", games=[])
    report = a_report(status="infrastructure_error", games=[], reason="the engine went away")
    assert report.status is ReportStatus.INFRASTRUCTURE_ERROR and report.outcomes() == []


def test_a_game_whose_lists_disagree_on_the_seats_is_refused() -> None:
    def short(data: dict[str, Any]) -> None:
        data["games"][0]["scores"] = [3]

    with pytest.raises(ContractError, match="one entry per seat"):
        load_report(edited(a_report(), short))


def test_a_started_message_travels_and_a_wrong_one_is_refused() -> None:
    attempt = uuid.uuid4()
    started = MatchStarted(match=3, attempt=attempt, worker="arena-1", sandbox="docker")
    assert load_started(dump(started)) == started
    assert json.loads(dump(started))["schema"] == "cucumbers-match-started/1"
    with pytest.raises(ContractError, match="worker"):
        load_started(json.dumps({**json.loads(dump(started)), "worker": ""}))
    with pytest.raises(ContractError, match="schema"):
        load_started(
            json.dumps({**json.loads(dump(started)), "schema": "cucumbers-match-started/2"})
        )


def test_the_contract_the_player_and_the_worker_import_no_django() -> None:
    # kombu's JSON encoder imports django.utils.functional (for lazy strings) whenever
    # Django is installed: not a use of Django, and absent from a worker's own host.
    code = (
        "import sys, arena.contract, arena.playing, arena.worker, arena.broker\n"
        "framework = ('django.conf', 'django.apps', 'django.db', 'django.core')\n"
        "bad = sorted(m for m in sys.modules\n"
        "             if m.split('.')[0] in {'web', 'rest_framework'} or m.startswith(framework))\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_duplicate_job_plays_whole_seat_rotations() -> None:
    seats = len(a_job().seats)
    assert a_job(duplicate=True, games=2 * seats).duplicate
    with pytest.raises(ValidationError, match="whole number of seat rotations"):
        a_job(duplicate=True, games=2 * seats + 1)
    assert not a_job().duplicate  # a job of an older platform: plain deals


def test_a_rotation_job_plays_any_number_of_deals_of_one_seat_turn() -> None:
    seats = len(a_job().seats)
    job = a_job(duplicate=True, rotation=seats - 1, games=5)
    assert (job.rotation, job.games) == (seats - 1, 5)
    with pytest.raises(ValidationError, match="below the number of seats"):
        a_job(duplicate=True, rotation=seats, games=5)
    with pytest.raises(ValidationError, match="belongs to duplicate deals"):
        a_job(rotation=0)
    assert a_job().rotation is None  # a job of an older platform: no rotation
