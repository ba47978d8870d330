"""A pool process's match abandoned on SIGTERM (arena/stopping.py): the sandbox cleared, the
match unwound without a report, the bots and staged files gone, SIGTERM's own meaning back
once the match is over, and a hang ended by the alarm. Each case in a process of its own,
since the handler arms an alarm and ignores SIGTERM from then on. A whole worker stopped so,
its job played again after a restart: tests/web/test_make_run.py."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from arena.stopping import ABANDON_SECONDS, Abandoned

REPO = Path(__file__).resolve().parents[2]

#: Writes its pid where the test reads it, then takes its time over every move.
SLOW_BOT = """import os, time

def play(view):
    path = {pid_file!r}
    if not os.path.exists(path):
        with open(path, "w") as file:
            file.write(str(os.getpid()))
    time.sleep(0.3)
    return view.legal[0]
"""

#: Plays a job with the slow bot in the process runner, SIGTERM once the bot is on its
#: moves, and says what came of it as JSON.
ABANDONED_MATCH = """
import hashlib, json, os, signal, sys, threading, time, uuid
from arena.contract import JobLimits, JobSeat, MatchJob, MatchKind
from arena.playing import play_job
from arena.stopping import Abandoned, playing

pid_file, staging, source = sys.argv[1], sys.argv[2], sys.argv[3]
seat = JobSeat(name="ann/slow", source=source, sha256=hashlib.sha256(source.encode()).hexdigest(),
               filename="slow.py", bot=7, version=3)
job = MatchJob(match=5, attempt=uuid.uuid4(), kind=MatchKind.LADDER, game="five-cucumbers",
               seed=4, games=20, seats=(seat, JobSeat(name="builtin:lowest", builtin="lowest")),
               limits=JobLimits(move_seconds=2.0, bank_seconds=5.0, startup_seconds=20.0))
cleared = []

def stop_when_playing():
    while not os.path.exists(pid_file):
        time.sleep(0.02)
    os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=stop_when_playing, daemon=True).start()
outcome = "reported"
try:
    with playing(job.match, str(job.attempt), lambda: cleared.append(True)):
        play_job(job, "process", "test-worker", staging_dir=staging)
except Abandoned:
    outcome = "abandoned"
signal.alarm(0)
print(json.dumps({"outcome": outcome, "cleared": cleared,
                  "sigterm": signal.getsignal(signal.SIGTERM) == signal.SIG_IGN}))
"""


def run(script: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigterm_abandons_the_match_in_play_its_bots_and_files_gone_and_no_report(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "bot.pid"
    staging = tmp_path / "staging"
    staging.mkdir()
    source = SLOW_BOT.format(pid_file=str(pid_file))
    result = run(ABANDONED_MATCH, str(pid_file), str(staging), source)
    assert result.returncode == 0, result.stderr
    said = json.loads(result.stdout.splitlines()[-1])
    # Unwound by Abandoned, not turned into a report; the sandbox cleared first; further
    # SIGTERMs (the pool's own, as it ends) ignored.
    assert said == {"outcome": "abandoned", "cleared": [True], "sigterm": True}
    assert "match 5 attempt" in result.stderr and "abandoned" in result.stderr
    bot = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while alive(bot) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(bot), "the bot outlived its abandoned match"
    assert list(staging.iterdir()) == []


def test_outside_a_match_sigterm_keeps_its_meaning() -> None:
    script = (
        "import signal\n"
        "from arena.stopping import abandon, playing\n"
        "before = signal.getsignal(signal.SIGTERM)\n"
        "with playing(1, 'a', None):\n"
        "    during = signal.getsignal(signal.SIGTERM)\n"
        "print(during is abandon, signal.getsignal(signal.SIGTERM) is before)\n"
    )
    result = run(script)
    assert result.stdout.split() == ["True", "True"], result.stderr


def test_an_abandoning_that_hangs_is_ended_by_the_alarm() -> None:
    script = (
        "import os, signal, time\n"
        "from arena.stopping import Abandoned, playing\n"
        "def clear():\n"
        "    time.sleep(600)  # an engine that never answers\n"
        "with playing(1, 'a', clear):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(600)\n"
    )
    started = time.monotonic()
    result = run(script, timeout=ABANDON_SECONDS + 60)
    assert result.returncode == -signal.SIGALRM, result.stderr
    assert time.monotonic() - started < ABANDON_SECONDS + 30


def test_abandoned_passes_every_handler_of_a_bots_or_the_sandboxs_failure() -> None:
    assert not issubclass(Abandoned, Exception)
