"""Hostile bots in the Docker sandbox (``hostile_bots/``), under every OCI runtime the
engine has (runc always, gVisor's runsc when registered): the same expectations for both.
For every case: the hostile seat gets the right fault (or none), its opponent (a built-in
bot, in a container too) has no fault and no output, the game ends with a full placement,
and the host is untouched: no container, ``docker`` client or staged file of the match
remains (``sandboxkit.play``), and whatever the bot aimed at on the host is unchanged."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cucumbers.faults import FaultKind
from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.match import play_match
from cucumbers.runners.base import BotSpec, Limits
from tests.arena import sandboxkit
from tests.arena.sandboxkit import (
    AMPLE,
    FAST,
    OPPONENT,
    assert_nothing_left,
    assert_only_fault,
    bridge_gateway,
    docker_runner,
    hostile,
    output_of,
    play,
    play_hostile,
    processes_with,
    report,
    templated,
)

pytestmark = pytest.mark.usefixtures("sandbox")


#: gVisor's runtime: where its kernel answers otherwise than Linux, the tests say so.
GVISOR = "runsc"


@pytest.fixture(autouse=True, params=sandboxkit.runtimes_present())
def runtime(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test once per runtime: the sandbox's runner uses it for every container."""
    monkeypatch.setattr(sandboxkit, "runtime", request.param)
    return str(request.param)


MIB = 2**20

# -- time and resources --------------------------------------------------------------------


@pytest.mark.parametrize("name", ["spinner", "sleeper"])
def test_a_bot_that_spins_or_sleeps_forever_times_out(staging: Path, name: str) -> None:
    fault = assert_only_fault(play_hostile(hostile(name), staging), FaultKind.TIMEOUT)
    assert fault is not None
    assert fault.detail.startswith("no move within 0.6 s")


def test_a_bot_that_never_finishes_loading_times_out_at_start_up(staging: Path) -> None:
    limits = Limits(move_seconds=0.3, bank_seconds=0.3, startup_seconds=2.0)
    outcome = play_hostile(hostile("loop_at_import"), staging, limits=limits)
    fault = assert_only_fault(outcome, FaultKind.TIMEOUT)
    assert fault is not None and fault.detail == "not ready within 2 s (start-up limit)"
    assert (fault.round, fault.trick) == (1, 1)


def test_a_bot_that_exhausts_memory_is_killed_by_the_memory_limit(staging: Path) -> None:
    # Time enough to reach the limit on a busy machine: the kill, not a timeout, must end it.
    outcome = play_hostile(hostile("memory_hog"), staging, limits=AMPLE)
    fault = assert_only_fault(outcome, FaultKind.CRASH)
    assert fault is not None
    assert fault.detail == (
        "the bot's process was killed by signal SIGKILL (out of memory? the limit is 256 MiB)"
    )
    held = [int(n) for n in re.findall(r"holding (\d+) MiB", output_of(outcome))]
    assert 128 <= max(held) <= 256, "it got close to the limit, never past it"


def test_a_fork_bomb_stops_at_the_process_limit(staging: Path, runtime: str) -> None:
    # gVisor forks slowly: time enough for the limit, not the move limit, to end the bomb.
    outcome = play_hostile(hostile("fork_bomb"), staging, AMPLE if runtime == GVISOR else FAST)
    if runtime == GVISOR:
        # gVisor's kernel keeps each forked interpreter's memory apart (no pages shared
        # with the parent on the host): the bomb meets the memory limit first, and the
        # bot's whole sandbox is killed. Its own fault; the opponent plays on.
        fault = assert_only_fault(outcome, FaultKind.CRASH)
        assert fault is not None and "SIGKILL (out of memory?" in fault.detail
        return
    assert_only_fault(outcome, None)
    line = report(outcome, "FORKED")
    assert "then BlockingIOError" in line  # fork failed with EAGAIN: the pids limit
    assert int(line.rsplit("PROCESSES ", 1)[1]) <= 64


def test_a_thread_bomb_stops_at_the_process_limit(staging: Path) -> None:
    outcome = play_hostile(hostile("thread_bomb"), staging)
    assert_only_fault(outcome, None)
    started = int(report(outcome, "THREADS").split()[0])
    assert 0 < started < 64


def test_a_bot_that_fills_the_disk_fills_only_its_small_tmp(staging: Path) -> None:
    outcome = play_hostile(hostile("disk_filler"), staging)
    assert_only_fault(outcome, None)
    disk = json.loads(report(outcome, "DISK"))
    for place in ("/tmp", "/dev/shm"):
        assert disk[place]["error"] in ("ENOSPC", "EFBIG")
        assert 0 < disk[place]["bytes"] <= 16 * MIB
    elsewhere = {
        place: result for place, result in disk.items() if place not in ("/tmp", "/dev/shm")
    }
    assert elsewhere and all(r["bytes"] == 0 for r in elsewhere.values()), elsewhere
    assert {r["error"] for r in elsewhere.values()} <= {"EROFS", "EACCES"}


# -- the network ---------------------------------------------------------------------------


def test_a_bot_reaches_no_network_at_all(tmp_path: Path, staging: Path, runtime: str) -> None:
    gateway = bridge_gateway()
    # Never a real public address: 192.0.2.1 is TEST-NET-1 (documentation only).
    targets = [
        ("192.0.2.1", 80),
        ("192.0.2.1", 443),
        ("127.0.0.1", 5432),
        ("127.0.0.1", 6379),
        (gateway, 5432),
        (gateway, 6379),
    ]
    outcome = play_hostile(templated(tmp_path, "network", TARGETS=targets), staging)
    assert_only_fault(outcome, None)
    net = json.loads(report(outcome, "NET"))
    assert net["interfaces"] == ["lo"]
    for host, port in targets:
        where = f"{host}:{port}"
        if host == "127.0.0.1":  # the container's own loopback: nobody listens there
            assert net["tcp"][where] == "ECONNREFUSED"
            assert net["udp"][where] in ("ECONNREFUSED", "TimeoutError")
        else:  # no route: Linux says the network, gVisor's network stack the host
            unreachable = "EHOSTUNREACH" if runtime == GVISOR else "ENETUNREACH"
            assert net["tcp"][where] == unreachable
            assert net["udp"][where] == unreachable


# -- secrets: environment, /proc, the Docker socket, other bots' files ----------------------

SECRET = "hunter2-do-not-leak"
VICTIM_SECRET = "the victim's secret strategy"
#: The container's whole environment: the image's, Docker's HOSTNAME, and the runner's
#: harmless variables.
SANDBOX_ENVIRONMENT = {
    "PATH",
    "HOSTNAME",
    "HOME",
    "TMPDIR",
    "LANG",
    "PYTHONPATH",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED",
    "PYTHONHASHSEED",
    "PYTHONSAFEPATH",
    "CUCUMBERS_OUTPUT_FENCE",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
}


@pytest.fixture(scope="module")
def snooped(tmp_path_factory: pytest.TempPathFactory, sandbox: str) -> Iterator[dict[str, object]]:
    """What the snooping bot found, playing against a file bot (the victim) with a secret
    in our environment; and the victim's file."""
    tmp_path = tmp_path_factory.mktemp("snoop")
    staging = tmp_path / "staging"
    staging.mkdir()
    victim = tmp_path / "victim.py"
    victim.write_text(f"# {VICTIM_SECRET}\ndef play(view):\n    return view.legal[0]\n")
    before = victim.read_bytes()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CUCUMBERS_TEST_SECRET", SECRET)
        snoop = templated(tmp_path, "snoop", OTHER_BOT=str(victim))
        (outcome,) = play([snoop, str(victim)], staging)
    assert_only_fault(outcome, None)
    assert victim.read_bytes() == before
    assert list(staging.iterdir()) == []
    text = output_of(outcome)
    assert SECRET not in text and VICTIM_SECRET not in text
    yield json.loads(report(outcome, "SNOOP"))


def test_a_bot_sees_nothing_of_our_environment(snooped: dict[str, object]) -> None:
    environ = snooped["environ"]
    assert isinstance(environ, dict)
    assert "CUCUMBERS_TEST_SECRET" not in environ
    assert set(environ) == SANDBOX_ENVIRONMENT
    pid1 = snooped["pid1_environ"]
    assert isinstance(pid1, list)
    assert not any("CUCUMBERS_TEST_SECRET" in entry for entry in pid1)


def test_a_bot_sees_only_its_own_processes_in_proc(snooped: dict[str, object]) -> None:
    assert snooped["pids"] == [1]
    cmdlines = snooped["cmdlines"]
    assert isinstance(cmdlines, dict)
    assert "cucumbers.host" in cmdlines["1"]
    assert not any("pytest" in line or "docker" in line for line in cmdlines.values())


def test_a_bot_cannot_reach_the_docker_socket(snooped: dict[str, object]) -> None:
    assert snooped["sockets"] == {
        "/var/run/docker.sock": "FileNotFoundError",
        "/run/docker.sock": "FileNotFoundError",
    }


def test_a_bot_cannot_see_the_other_bots_file(snooped: dict[str, object]) -> None:
    assert snooped["other_bot"] == {
        "exists": False,
        "read": "<FileNotFoundError>",
        "dir": "<FileNotFoundError>",
    }
    assert snooped["bot_dir"] == ["snoop.py"]


def test_a_bot_runs_as_nobody(snooped: dict[str, object]) -> None:
    assert snooped["uid"] == [65534, 65534, 65534]


def test_a_bot_cannot_write_outside_tmp_nor_to_its_own_file(
    tmp_path: Path, staging: Path, runtime: str
) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text("untouched\n")
    outcome = play_hostile(templated(tmp_path, "vandal", CANARY=str(canary)), staging)
    assert_only_fault(outcome, None)
    wrote = json.loads(report(outcome, "WRITE"))
    assert wrote.pop("tmp") == "written"  # the one writable place
    assert wrote.pop("canary") == "ENOENT"  # the host's file is not even visible
    # Read-only mounts (EROFS), or files the bot's user may not write (EACCES): never written.
    assert set(wrote) == {"own file", "own file mode", "new file beside it", "image", "root", "etc"}
    assert set(wrote.values()) <= {"EROFS", "EACCES", "EPERM"}, wrote
    # Its file is on a read-only mount (gVisor refuses the change of mode before looking).
    assert wrote["own file mode"] == ("EPERM" if runtime == GVISOR else "EROFS")
    assert canary.read_text() == "untouched\n"


# -- processes -----------------------------------------------------------------------------


def test_a_bot_that_kills_pid_1_and_everything_only_hurts_itself(
    staging: Path, runtime: str
) -> None:
    outcome = play_hostile(hostile("killer"), staging)
    if runtime == GVISOR:
        # gVisor delivers the child's SIGKILL to the bot's host, its init: the bot kills
        # itself, and nothing else (its own fault; the opponent plays on).
        fault = assert_only_fault(outcome, FaultKind.CRASH)
        assert fault is not None and fault.detail.startswith(
            "the bot's process was killed by signal SIGKILL"
        )
        return
    assert_only_fault(outcome, None)  # the kernel protects a namespace's init from its own
    kills = json.loads(report(outcome, "KILL"))
    assert kills["kill -9 -1"] == "ProcessLookupError"  # nothing else it may signal
    assert kills["kill -9 2..4096"] == ["ProcessLookupError"]  # no host process visible
    child = json.loads(report(outcome, "CHILD"))  # from a second process of the container
    assert child["child: kill -9 1"] == "sent"  # accepted, and ignored: the bot played on
    assert child["child: kill -9 -1"] == "ProcessLookupError"


def test_no_process_a_bot_leaves_behind_survives_its_match(staging: Path, runtime: str) -> None:
    runner = docker_runner(staging)
    specs = [BotSpec.parse(hostile("background")), BotSpec.parse(OPPONENT)]
    games = play_match(FIVE_CUCUMBERS, specs, runner, seed=5, game_numbers=[1, 2])
    first = next(games)
    marker = report(first, "MARKER")
    # Under runc the bot's processes are the host's (in namespaces); gVisor runs them in its
    # own kernel, where the host never sees them.
    during = 0 if runtime == GVISOR else 2
    assert len(processes_with(marker)) == during, "the sleeper and the daemon during the match"
    rest = list(games)
    for outcome in (first, *rest):
        assert_only_fault(outcome, None)
    assert_nothing_left(runner)
    deadline = time.monotonic() + 30  # the kernel reaps the container's processes
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_with(marker) == []


# -- crashes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("segfault", "the bot's process was killed by signal SIGSEGV"),
        ("os_exit", "the bot's process exited with status 5"),
        ("exit_at_import", "exit_at_import.py called exit(2) while loading"),
        # Docker's own words and status from a bot are the bot's exit, not a refused start.
        ("fake_refusal", "the bot's process exited with status 1 while loading"),
        ("recursion", "RecursionError: maximum recursion depth exceeded (recursion.py, line 5)"),
        # Python 3.11 keeps Python frames off the C stack: they fill memory instead.
        ("stack_overflow", "the bot's process was killed by signal SIGKILL (out of memory?"),
    ],
)
def test_a_bot_that_crashes_its_interpreter_crashes_alone(
    staging: Path, name: str, detail: str
) -> None:
    outcome = play_hostile(hostile(name), staging, limits=AMPLE)
    fault = assert_only_fault(outcome, FaultKind.CRASH)
    assert fault is not None and fault.detail.startswith(detail)


def test_system_calls_a_bot_host_never_needs_are_refused(staging: Path, runtime: str) -> None:
    outcome = play_hostile(hostile("syscalls"), staging, limits=AMPLE)
    fault = assert_only_fault(outcome, FaultKind.CRASH)
    assert fault is not None
    if runtime == "runc":  # the sandbox's own seccomp profile: EPERM for every one
        calls = "ptrace personality keyctl bpf userfaultfd perf_event_open unshare mount"
        assert fault.detail.startswith(
            "RuntimeError: " + " ".join(f"{name}=EPERM" for name in calls.split())
        ), fault.detail
    else:  # gVisor answers from its own kernel: none of them reaches the host's
        assert fault.detail.startswith("RuntimeError: ptrace="), fault.detail


# -- output --------------------------------------------------------------------------------


def test_a_flood_on_stdout_stderr_and_fd_1_is_cut_and_is_no_fault(staging: Path) -> None:
    outcome = play_hostile(hostile("flood"), staging, limits=AMPLE)
    assert_only_fault(outcome, None)
    text = output_of(outcome)
    assert re.match(r"\[… \d+ bytes of output cut …\]\n", text)
    assert len(text.encode()) < 4096 + 100
    assert text.endswith('{"type":"move","id":1,"card":3}\nflood done\n')  # only output


# -- answers -------------------------------------------------------------------------------

ILLEGAL = [
    ("True", "returned True (bool), not an int"),
    ("'7'", "returned '7' (str), not an int"),
    ("7.0", "returned 7.0 (float), not an int"),
    ("None", "returned None (NoneType), not an int"),
    ("10 ** 5000", "returned <an int of 16610 bits> (int), not an int"),
    ("10 ** 100", "played 1000000000000000000000000000000000000..., not a legal card"),
    ("next(c for c in range(1, 16) if c not in view.hand)", ", not a legal card"),
]


@pytest.mark.parametrize(("expression", "detail"), ILLEGAL, ids=[e for e, _ in ILLEGAL])
def test_an_answer_that_is_not_a_card_in_hand_is_an_illegal_move(
    tmp_path: Path, staging: Path, expression: str, detail: str
) -> None:
    source = tmp_path / "answers.py"
    source.write_text(f"def play(view):\n    return {expression}\n")
    fault = assert_only_fault(play_hostile(str(source), staging), FaultKind.ILLEGAL_MOVE)
    assert fault is not None
    assert detail in fault.detail and "; legal: [" in fault.detail


# -- good citizens -------------------------------------------------------------------------


def test_good_citizens_play_without_a_fault_and_print_nothing(staging: Path) -> None:
    bots = [hostile("slow"), hostile("numpy_bot"), hostile("class_bot"), "builtin:random"]
    (outcome,) = play(bots, staging)
    assert outcome.faults == ()
    assert outcome.outputs == ("", "", "", "")  # nothing from docker in the bots' output
    slow = outcome.bots.index(0)
    assert outcome.think_seconds[slow] / outcome.moves[slow] >= 0.15
