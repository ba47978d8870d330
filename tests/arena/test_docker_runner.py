"""The Docker runner itself: failures of the sandbox are ``error`` faults and the match still
ends, containers go away in every case, bots start in parallel and live for the series."""

from __future__ import annotations

import json
import os
import secrets
import stat
import time
from pathlib import Path

import pytest

from arena.sandbox import container, labels
from arena.sandbox.runner import DockerClient, DockerRunner, register
from arena.sandbox.settings import SandboxSettings
from cucumbers.faults import FaultKind
from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.match import GameOutcome, play_game, play_match
from cucumbers.move_facts import game_record
from cucumbers.runners import RUNNERS, make_runner
from cucumbers.runners.base import BotSpec, Limits
from tests.arena.sandboxkit import (
    AMPLE,
    FAST,
    OPPONENT,
    assert_nothing_left,
    assert_only_fault,
    build_small_image,
    containers_of_match,
    docker_runner,
    hostile,
    output_of,
    play,
    play_hostile,
    report,
    seat_of,
)
from tests.relay import EngineProxy

pytestmark = pytest.mark.usefixtures("sandbox")

SDK_BOTS = Path(__file__).parents[1] / "sdk" / "misbehaving_bots"
#: Seconds a deliberately slow bot sleeps at import before it is ready.
SLOW_START = 3.0


def play_with(runner: DockerRunner, games: int = 1) -> list[GameOutcome]:
    specs = [BotSpec.parse("builtin:lowest"), BotSpec.parse("builtin:random")]
    outcomes = list(
        play_match(FIVE_CUCUMBERS, specs, runner, seed=1, game_numbers=range(1, 1 + games))
    )
    assert_nothing_left(runner)
    return outcomes


def assert_every_seat_errs(outcome: GameOutcome, text: str) -> None:
    """The game ended normally, with an ``error`` fault naming ``text`` for every seat."""
    assert sorted(outcome.placement) == [0, 1]
    assert [f.kind for f in outcome.faults] == [FaultKind.ERROR, FaultKind.ERROR]
    assert all(text in f.detail for f in outcome.faults), outcome.faults


# -- sandbox failures are faults, not exceptions ---------------------------------------------


def test_a_missing_image_is_an_error_fault_for_every_seat(staging: Path) -> None:
    runner = docker_runner(staging, image="cucumbers-sandbox:no-such-version")
    (outcome,) = play_with(runner)
    assert_every_seat_errs(
        outcome, "the sandbox image cucumbers-sandbox:no-such-version is missing"
    )
    assert "python -m arena image" in outcome.faults[0].detail


def test_an_unreachable_engine_is_an_error_fault_for_every_seat(staging: Path) -> None:
    runner = docker_runner(staging)
    specs = [BotSpec.parse("builtin:lowest"), BotSpec.parse("builtin:random")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DOCKER_HOST", f"unix://{staging}/no-docker.sock")
        (outcome,) = play_match(FIVE_CUCUMBERS, specs, runner, seed=1, game_numbers=[1])
    assert_every_seat_errs(outcome, "the Docker engine cannot be reached")
    assert_nothing_left(runner)


def test_a_container_the_engine_refuses_is_an_error_fault_with_dockers_reason(
    staging: Path,
) -> None:
    (outcome,) = play_with(docker_runner(staging, cpus=4096.0))
    assert_every_seat_errs(outcome, "the sandbox could not start the bot: ")
    assert "CPU" in outcome.faults[0].detail


def test_a_container_the_engine_cannot_start_is_an_error_fault_with_dockers_reason(
    staging: Path, sandbox: str
) -> None:
    # Created fine, refused at start: the image's entry point does not exist.
    tag = f"cucumbers-test-no-entry:{secrets.token_hex(4)}"
    build_small_image(f'FROM {sandbox}\nENTRYPOINT ["/no/such/host"]\n', tag)
    # A start-up limit far beyond any start: a runner that waited for it (instead of being
    # woken by the refusal) would take all of it, however busy the machine.
    patient = Limits(move_seconds=0.3, bank_seconds=0.3, startup_seconds=120.0)
    try:
        started = time.monotonic()
        (outcome,) = play_with(docker_runner(staging, limits=patient, image=tag))
        assert time.monotonic() - started < patient.startup_seconds / 2
    finally:
        container.engine_client().api.remove_image(tag, force=True)
    assert_every_seat_errs(outcome, "the sandbox could not start the bot: ")
    assert "/no/such/host" in outcome.faults[0].detail


def test_an_engine_lost_mid_match_is_an_error_fault_of_the_sandbox_not_of_the_bots(
    staging: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The attach channel: every move goes through the engine, so its loss cuts them all.
    proxy = EngineProxy(tmp_path / "engine.sock")
    with monkeypatch.context() as patch:
        patch.setenv("DOCKER_HOST", proxy.docker_host)
        runner = docker_runner(staging, channel="attach")
        specs = [BotSpec.parse("builtin:lowest"), BotSpec.parse("builtin:random")]
        with runner:
            clients = runner.start(specs)
            proxy.cut()  # the bots are up; now the engine is gone for us
            outcome = play_game(FIVE_CUCUMBERS, clients, seed=1, limits=FAST)
    # "cannot be reached" is what the platform retries as an infrastructure error.
    assert_every_seat_errs(outcome, "the Docker engine cannot be reached: ")
    # The real engine saw the attach connections close: the bots read the end of their
    # input, exit, and their containers go.
    deadline = time.monotonic() + 10
    while containers_of_match(runner.match_id) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert_nothing_left(runner)


def test_on_the_socket_channel_moves_do_not_need_the_engine(
    staging: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The kernel carries every move (and the kernel keeps the limits): a game whose engine
    # went away after the start is played cleanly. What the runner cannot then do is remove
    # the containers and see them gone: the bots, told to quit over their channel, exit and
    # the engine removes them (AutoRemove); the runner says it could not see it.
    proxy = EngineProxy(tmp_path / "engine.sock")
    with monkeypatch.context() as patch:
        patch.setenv("DOCKER_HOST", proxy.docker_host)
        runner = docker_runner(staging, channel="socket")
        specs = [BotSpec.parse("builtin:lowest"), BotSpec.parse("builtin:random")]
        with runner:
            clients = runner.start(specs)
            proxy.cut()
            outcome = play_game(FIVE_CUCUMBERS, clients, seed=1, limits=FAST)
    assert outcome.faults == ()
    assert len(runner.left_behind) == 2  # the engine did not answer at close
    deadline = time.monotonic() + 10
    while containers_of_match(runner.match_id) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert_nothing_left(runner)


def test_a_channel_is_two_sockets_in_a_private_directory(staging: Path) -> None:
    seat = container.Seat(
        None,  # type: ignore[arg-type]  (no engine needed to listen)
        SandboxSettings(staging_dir=str(staging)),
        "m1",
        0,
        labels.RunnerIdentity.current(),
        "socket",
    )
    listener = container.ChannelListener(seat)
    try:
        channel = Path(listener.directory)
        # The runner's own directory keeps every other account of this host out; the
        # channel's is read-only (and mounted read-only): nothing can be created there.
        assert stat.S_IMODE(channel.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(channel.stat().st_mode) == 0o555
        assert sorted(p.name for p in channel.iterdir()) == ["output", "protocol"]
        assert all(stat.S_ISSOCK(p.stat().st_mode) for p in channel.iterdir())
    finally:
        listener.close()
    assert list(staging.iterdir()) == []


def test_the_socket_channel_is_closed_once_the_host_connected(staging: Path) -> None:
    prober = str(Path(__file__).parent / "channel_bots" / "channel_prober.py")
    runner = docker_runner(staging, channel="socket")
    specs = [BotSpec.parse(prober), BotSpec.parse(OPPONENT)]
    with runner:
        clients = runner.start(specs)
        (private,) = staging.iterdir()
        # Each channel's sockets, then its directory, are gone once its host connected.
        assert [p.name for p in private.iterdir() if p.name.startswith("channel-")] == []
        outcome = play_game(FIVE_CUCUMBERS, clients, seed=1, limits=FAST)
    assert_nothing_left(runner)
    assert_only_fault(outcome, None)
    seen = json.loads(report(outcome, "CHANNEL"))
    # Nothing to list, nobody to connect to, nothing to create: the directory is gone
    # (ENOENT) and was a read-only mount besides (EROFS).
    assert seen.pop("create") in ("ENOENT", "EROFS")
    assert seen == {"listing": [], "protocol": "ENOENT", "output": "ENOENT"}


def test_a_bot_file_that_cannot_be_read_is_an_error_fault(tmp_path: Path, staging: Path) -> None:
    missing = tmp_path / "gone.py"
    (outcome,) = play([str(missing), OPPONENT], staging)
    fault = assert_only_fault(outcome, FaultKind.ERROR)
    assert fault is not None and "cannot start the bot host" in fault.detail


# -- clean-up --------------------------------------------------------------------------------


def test_containers_are_removed_when_the_code_using_the_runner_raises(staging: Path) -> None:
    runner = docker_runner(staging)
    with pytest.raises(RuntimeError, match="the worker failed"), runner:
        runner.start([BotSpec.parse(hostile("sleeper")), BotSpec.parse(OPPONENT)])
        assert len(containers_of_match(runner.match_id)) == 2
        raise RuntimeError("the worker failed")
    assert_nothing_left(runner)
    assert list(staging.iterdir()) == []


def test_a_worker_running_match_after_match_keeps_no_descriptor_of_them(staging: Path) -> None:
    def open_descriptors() -> int:
        return len(os.listdir("/proc/self/fd"))

    play_with(docker_runner(staging))  # warm up: imports, the logging of the client
    before = open_descriptors()
    for _ in range(5):
        play_with(docker_runner(staging))
    # Leaking the engine's pooled connections or a bot's socket costs 2 or more per match.
    assert open_descriptors() - before < 3


def test_a_bot_that_ignores_quit_is_removed_after_the_grace(tmp_path: Path, staging: Path) -> None:
    stuck = tmp_path / "stuck.py"
    stuck.write_text(
        "import time\n\n"
        "def play(view):\n    return view.legal[0]\n\n"
        "def end_game(result):\n    time.sleep(3600)\n"
    )
    runner = docker_runner(staging, stop_grace_seconds=0.5)
    clients = runner.start([BotSpec.parse(str(stuck)), BotSpec.parse(OPPONENT)])
    outcome = play_game(FIVE_CUCUMBERS, clients, seed=1, limits=FAST)
    assert outcome.faults == ()
    started = time.monotonic()
    runner.close()  # the stuck bot never reads its quit
    # It got its grace, then was removed: the close did not wait for the bot (an hour).
    assert 0.5 <= time.monotonic() - started < 60
    assert_nothing_left(runner)


def test_a_bot_timed_out_in_one_game_is_restarted_in_a_new_container(staging: Path) -> None:
    runner = docker_runner(staging)
    specs = [BotSpec.parse(str(SDK_BOTS / "sleeps_in_first_game.py")), BotSpec.parse(OPPONENT)]
    games = play_match(FIVE_CUCUMBERS, specs, runner, seed=1, game_numbers=[1, 2, 3])
    first, second, third = games
    assert_only_fault(first, FaultKind.TIMEOUT)
    assert_only_fault(second, None)
    assert_only_fault(third, None)
    # A fresh bot object in game 2 (its first game), which lives on into game 3.
    assert output_of(second).endswith("GAMES 1\n")
    assert output_of(third).endswith("GAMES 2\n")
    assert_nothing_left(runner)


def test_one_container_per_bot_lives_for_the_whole_series(staging: Path) -> None:
    outcomes = play([str(SDK_BOTS / "counter.py"), OPPONENT], staging, games=3)
    assert [output_of(o) for o in outcomes] == ["GAMES 1\n", "GAMES 2\n", "GAMES 3\n"]


def test_each_games_output_ends_with_what_the_bot_printed_at_its_end(
    tmp_path: Path, staging: Path
) -> None:
    # A megabyte of output per game, its last line printed in the end_game hook: the attach
    # stream may deliver it after the game's last answer; the host's fence says when it is all
    # in (a bot printing the fence's bytes itself only moves its own output's boundary).
    loud = tmp_path / "loud.py"
    loud.write_text(
        "import sys\n\n"
        "from cucumbers import Bot\n\n"
        "class Loud(Bot):\n"
        "    games = 0\n"
        "    def play(self, view):\n"
        "        sys.stderr.write('z' * 100_000 + '\\n')\n"
        "        return view.legal[0]\n"
        "    def end_game(self, result):\n"
        "        self.games += 1\n"
        "        print(f'LAST WORDS OF GAME {self.games}')\n"
    )
    outcomes = play([str(loud), OPPONENT], staging, games=3, limits=AMPLE)
    for number, outcome in enumerate(outcomes, start=1):
        assert output_of(outcome).endswith(f"LAST WORDS OF GAME {number}\n")
        assert "\x00" not in output_of(outcome)  # no fence left in the owner's output


def test_a_crash_in_the_sandbox_carries_the_bots_own_frames_and_each_moves_lines(
    tmp_path: Path, staging: Path
) -> None:
    # Per-move lines travel in the protocol's answers, not beside them: whatever carries
    # the bot's output, each move's lines are that move's.
    deep = tmp_path / "deep.py"
    deep.write_text(
        "def pick(view):\n"
        "    print('picking in trick', view.trick_number)\n"
        "    return {}['missing-key']\n\n\n"
        "def play(view):\n"
        "    print('move', view.round_number, view.trick_number)\n"
        "    if view.round_number == 1 and view.trick_number == 3:\n"
        "        return pick(view)\n"
        "    return view.legal[0]\n"
    )
    (outcome,) = play([str(deep), OPPONENT], staging, limits=AMPLE)
    seat = seat_of(outcome, 0)
    (fault,) = outcome.faults
    assert fault.seat == seat and fault.traceback is not None
    assert [(f.file, f.line, f.code) for f in fault.traceback.frames] == [
        ("deep.py", 9, "return pick(view)"),
        ("deep.py", 3, "return {}['missing-key']"),
    ]
    moves = {(m.round, m.trick): m.lines for m in outcome.move_output[seat]}
    assert moves[(1, 1)] == ("move 1 1",) and moves[(1, 2)] == ("move 1 2",)
    assert moves[(1, 3)] == ("move 1 3", "picking in trick 3")


# -- start-up --------------------------------------------------------------------------------


def test_the_bots_of_a_match_start_in_parallel(
    tmp_path: Path, staging: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each bot takes SLOW seconds to get ready: launching four one after another, each
    # waiting for its bot, would put at least 3 * SLOW between the first launch and the last.
    slow = tmp_path / "slow_start.py"
    slow.write_text(
        f"import time\n\ntime.sleep({SLOW_START})\n\ndef play(view):\n    return view.legal[0]\n"
    )
    events: list[tuple[str, float]] = []
    spawn, wait_ready = DockerClient._spawn, DockerClient.wait_ready

    def spawned(self: DockerClient) -> None:
        spawn(self)
        events.append(("spawned", time.monotonic()))

    def waited(self: DockerClient) -> None:
        wait_ready(self)
        events.append(("ready", time.monotonic()))

    monkeypatch.setattr(DockerClient, "_spawn", spawned)
    monkeypatch.setattr(DockerClient, "wait_ready", waited)
    patient = Limits(move_seconds=0.3, bank_seconds=0.3, startup_seconds=60.0)
    runner = docker_runner(staging, limits=patient)
    with runner:
        runner.start([BotSpec.parse(str(slow)) for _ in range(4)])
    kinds = [kind for kind, _ in events]
    assert kinds == ["spawned"] * 4 + ["ready"] * 4  # every container started before any wait
    spawned_at = [at for kind, at in events if kind == "spawned"]
    ready_at = [at for kind, at in events if kind == "ready"]
    assert spawned_at[-1] - spawned_at[0] < SLOW_START  # no launch waited for a bot
    assert ready_at[0] - spawned_at[0] >= SLOW_START  # the bots really took that long
    assert_nothing_left(runner)


def test_a_bots_file_is_staged_read_only_and_private(tmp_path: Path, staging: Path) -> None:
    source = tmp_path / "mine.py"
    source.write_text("def play(view):\n    return view.legal[0]\n")
    runner = docker_runner(staging)
    with runner:
        runner.start([BotSpec.parse(str(source)), BotSpec.parse(OPPONENT)])
        (private,) = staging.iterdir()  # the runner's own directory
        assert stat.S_IMODE(private.stat().st_mode) == 0o700  # no other account gets in
        (folder,) = private.iterdir()  # the built-in bot has nothing to mount
        assert stat.S_IMODE(folder.stat().st_mode) == 0o555
        assert [p.name for p in folder.iterdir()] == ["mine.py"]
        assert stat.S_IMODE((folder / "mine.py").stat().st_mode) == 0o444
        assert (folder / "mine.py").read_bytes() == source.read_bytes()
    assert list(staging.iterdir()) == []


def test_containers_carry_the_labels_of_their_runner_and_match(staging: Path) -> None:
    runner = docker_runner(staging)
    with runner:
        runner.start([BotSpec.parse(OPPONENT), BotSpec.parse(OPPONENT)])
        found = container.engine_client().api.containers(
            filters={"label": f"{labels.MATCH}={runner.match_id}"}
        )
        seen = sorted((c["Labels"][labels.SEAT], c["Labels"][labels.RUNNER_PID]) for c in found)
        assert seen == [("0", str(os.getpid())), ("1", str(os.getpid()))]
        assert all(c["Labels"][labels.SANDBOX] == "1" for c in found)
        assert all(c["Names"][0].startswith(f"/cucumbers-{runner.match_id}-") for c in found)
    assert_nothing_left(runner)


# -- the registry ----------------------------------------------------------------------------


def test_make_runner_knows_the_docker_runner_once_registered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A copy without docker: the SDK's own registry is left as the SDK's tests expect it.
    sdk_only = {name: cls for name, cls in RUNNERS.items() if name != "docker"}
    monkeypatch.setattr("cucumbers.runners.RUNNERS", sdk_only)
    with pytest.raises(ValueError, match="unknown runner 'docker'"):
        make_runner("docker", None)
    register()
    runner = make_runner("docker", Limits(move_seconds=2))
    assert isinstance(runner, DockerRunner)
    assert runner.limits.move_seconds == 2
    assert runner.settings == SandboxSettings.from_env()


def test_a_match_in_docker_plays_like_one_in_a_process(staging: Path) -> None:
    # Deterministic bots the process runner can run too (numpy may be missing outside).
    bots = [hostile("class_bot"), "builtin:highest", "builtin:lowest"]
    specs = [BotSpec.parse(source) for source in bots]
    docker = list(
        play_match(FIVE_CUCUMBERS, specs, docker_runner(staging), seed=9, game_numbers=[1, 2])
    )
    local = list(
        play_match(FIVE_CUCUMBERS, specs, make_runner("process", FAST), seed=9, game_numbers=[1, 2])
    )
    assert [game_record(o.replay) for o in docker] == [game_record(o.replay) for o in local]


def test_the_engines_default_seccomp_profile_would_have_let_ptrace_through(
    staging: Path,
) -> None:
    # What the sandbox's own profile adds (the hostile tests check it refuses them all):
    # with Docker's default one, PTRACE_TRACEME passes; mounts are refused by both.
    outcome = play_hostile(hostile("syscalls"), staging, AMPLE, seccomp="engine")
    fault = assert_only_fault(outcome, FaultKind.CRASH)
    assert fault is not None
    assert "ptrace=returned 0" in fault.detail and "mount=EPERM" in fault.detail
