"""Playing a job: the report of a played match (faults, outputs, the author's file names),
the series stopping at a watched bot's fault, private staging that the reaper can clean up,
and an unreachable engine turned into an infrastructure error, never a bot's fault."""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path

import pytest

from arena.contract import JobLimits, JobSeat, MatchJob, MatchKind, ReportStatus
from arena.playing import play_job
from arena.sandbox.container import STAGING_PREFIX, host_tag, staging_prefix
from arena.sandbox.labels import RunnerIdentity
from arena.sandbox.reaper import reap_staged_files
from arena.sandbox.runner import register
from cucumbers.faults import FaultKind

#: Prints where it runs from and how private that is, then plays its lowest card.
INSPECTOR = """import os, stat, sys

def play(view):
    folder = os.path.dirname(os.path.abspath(__file__))
    mode = stat.S_IMODE(os.stat(folder).st_mode)
    print(f"FILE {os.path.abspath(__file__)} DIR {mode:o}", file=sys.stderr)
    return view.legal[0]
"""
CRASHER = "def play(view):\n    raise ValueError('boom')\n"


def seat(name: str, text: str, filename: str) -> JobSeat:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return JobSeat(name=name, source=text, sha256=digest, filename=filename, bot=7, version=3)


def job(*seats: JobSeat, games: int = 2, stop_after_fault_of: tuple[int, ...] = ()) -> MatchJob:
    return MatchJob(
        match=1,
        attempt=uuid.uuid4(),
        kind=MatchKind.VALIDATION if stop_after_fault_of else MatchKind.LADDER,
        game="five-cucumbers",
        seed=4,
        games=games,
        limits=JobLimits(move_seconds=2.0, bank_seconds=5.0, startup_seconds=20.0),
        seats=seats,
        stop_after_fault_of=stop_after_fault_of,
    )


def test_a_played_job_reports_every_game_with_outputs_and_author_file_names(
    tmp_path: Path,
) -> None:
    played = job(
        seat("ann/look", INSPECTOR, "look.py"),
        seat("bob/crash", CRASHER, "crashy.py"),
        JobSeat(name="builtin:lowest", builtin="lowest"),
    )
    report = play_job(played, "process", "test-worker", staging_dir=str(tmp_path))
    assert (report.status, report.worker, report.sandbox) == (
        ReportStatus.PLAYED,
        "test-worker",
        "process",
    )
    assert [game.number for game in report.games] == [1, 2]
    for game in report.games:
        crash_seat = game.bots.index(1)
        (fault,) = game.faults
        assert (fault.seat, fault.kind, fault.infrastructure) == (
            crash_seat,
            FaultKind.CRASH,
            False,
        )
        assert fault.detail == "ValueError: boom (crashy.py, line 2)"  # the author's name
        assert game.replay is not None
        entries = {p["name"]: p for p in game.replay["players"]}
        assert (entries["ann/look"]["bot"], entries["ann/look"]["version"]) == (7, 3)
    output = report.games[0].outputs[report.games[0].bots.index(0)]
    path, mode = output.split("\n")[0].removeprefix("FILE ").split(" DIR ")
    assert Path(path).name == "look.py" and mode == "700"  # private to the worker's user
    assert Path(path).parent.parent.name.startswith(f"{STAGING_PREFIX}{host_tag()}-{os.getpid()}-")
    assert list(tmp_path.iterdir()) == []  # removed once played


def test_the_series_stops_after_the_watched_bots_first_fault(tmp_path: Path) -> None:
    report = play_job(
        job(
            seat("bob/crash", CRASHER, "crashy.py"),
            JobSeat(name="r", builtin="random"),
            games=5,
            stop_after_fault_of=(0,),
        ),
        "process",
        "test-worker",
        staging_dir=str(tmp_path),
    )
    assert report.status is ReportStatus.PLAYED
    assert len(report.games) == 1


def test_a_dead_runners_staged_job_is_removed_by_the_reaper(tmp_path: Path) -> None:
    dead = tmp_path / f"{STAGING_PREFIX}{host_tag()}-999999999-1-job-abc"
    (dead / "seat0").mkdir(parents=True)
    (dead / "seat0" / "bot.py").write_text("def play(view):\n    return view.legal[-1]\n")
    live = tmp_path / (staging_prefix(RunnerIdentity.current()) + "job-def")
    live.mkdir()
    assert reap_staged_files(str(tmp_path)) == [str(dead)]
    assert not dead.exists() and live.exists()  # a live worker's files are in use


@pytest.mark.usefixtures("sandbox")
def test_an_unreachable_engine_is_an_infrastructure_error_with_no_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cucumbers.runners

    # The Docker runner registers itself process-wide: leave the registry as found.
    monkeypatch.setattr(cucumbers.runners, "RUNNERS", dict(cucumbers.runners.RUNNERS))
    register()
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    report = play_job(
        job(seat("ann/look", INSPECTOR, "look.py"), JobSeat(name="r", builtin="random")),
        "docker",
        "test-worker",
        staging_dir=str(tmp_path),
    )
    assert report.status is ReportStatus.INFRASTRUCTURE_ERROR
    assert report.reason.startswith("the Docker engine cannot be reached")
    assert report.games == ()  # nothing that could be charged to a bot
