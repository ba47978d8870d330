"""Containers left behind by runners that died: they remove themselves when their bot reads
the end of its input, and the reaper removes the rest (and only those)."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.__main__ import main as arena_main
from arena.sandbox import labels
from arena.sandbox.container import engine_client
from arena.sandbox.reaper import reap_containers, reap_runner
from cucumbers.runners import RUNNERS
from cucumbers.runners.reaper import read_proc
from tests.arena.sandboxkit import hostile

pytestmark = pytest.mark.usefixtures("sandbox")

REPO = Path(__file__).parents[2]


def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.1)


def containers_of_runner(pid: int) -> dict[str, str]:
    """The containers labelled with runner ``pid``: name by seat."""
    found = engine_client().api.containers(
        all=True, filters={"label": [f"{labels.RUNNER_PID}={pid}"]}
    )
    return {c["Labels"][labels.SEAT]: c["Names"][0].lstrip("/") for c in found}


# -- the reaper alone ------------------------------------------------------------------------


@pytest.fixture
def test_label(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A sandbox label of the test's own, so that the reaper sees only the test's containers
    (never a real match that happens to run on this machine)."""
    label = f"org.cucumbers.sandbox-test-{secrets.token_hex(4)}"
    monkeypatch.setattr(labels, "SANDBOX", label)
    yield label
    client = engine_client()
    for container in client.api.containers(all=True, filters={"label": f"{label}=1"}):
        client.api.remove_container(container["Id"], force=True)


def start_idle_container(sandbox: str, name: str, runner: dict[str, str]) -> None:
    engine_client().containers.run(
        sandbox,
        entrypoint=["sleep", "300"],
        name=name,
        labels={**runner, labels.MATCH: "reaper-test", labels.SEAT: "0"},
        network_mode="none",
        detach=True,
    )


def test_the_reaper_removes_the_containers_of_dead_runners_only(
    sandbox: str,
    test_label: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # arena's main registers the docker runner: in a copy, not in the SDK's registry.
    monkeypatch.setattr("cucumbers.runners.RUNNERS", dict(RUNNERS))
    dead_pid = subprocess.Popen(["true"])
    dead_pid.wait()  # a pid that ran no runner and runs nothing now
    me = labels.RunnerIdentity.current()
    runners = {
        "dead": {**me.labels(), labels.RUNNER_PID: str(dead_pid.pid), labels.RUNNER_START: "1"},
        "alive": me.labels(),
        "elsewhere": {**me.labels(), labels.RUNNER_HOST: f"not-{socket.gethostname()}"},
    }
    names = {kind: f"cucumbers-reaper-{kind}-{secrets.token_hex(3)}" for kind in runners}
    for kind, runner in runners.items():
        start_idle_container(sandbox, names[kind], runner)

    assert reap_containers() == [names["dead"]]
    left = engine_client().api.containers(all=True, filters={"label": f"{test_label}=1"})
    assert sorted(c["Names"][0].lstrip("/") for c in left) == sorted(
        [names["alive"], names["elsewhere"]]
    )

    assert arena_main(["reap", "--all"]) == 0  # everything: live runners' containers too
    assert capsys.readouterr().out == "removed 2 container(s)\n"
    assert engine_client().api.containers(all=True, filters={"label": f"{test_label}=1"}) == []


def test_a_runner_abandoning_its_match_removes_its_own_containers_at_once(
    sandbox: str, test_label: str
) -> None:
    """arena/stopping.py: a live runner's containers, by force, and no other runner's."""
    me = labels.RunnerIdentity.current()
    parent = read_proc(os.getppid())
    assert parent is not None
    other = {
        **me.labels(),
        labels.RUNNER_PID: str(parent.pid),
        labels.RUNNER_START: str(parent.start),
    }
    mine = [f"cucumbers-reaper-mine-{n}-{secrets.token_hex(3)}" for n in range(3)]
    theirs = f"cucumbers-reaper-theirs-{secrets.token_hex(3)}"
    for name in mine:
        start_idle_container(sandbox, name, me.labels())
    start_idle_container(sandbox, theirs, other)

    assert reap_runner(me, timeout=30) == sorted(mine)
    left = engine_client().api.containers(all=True, filters={"label": f"{test_label}=1"})
    assert [c["Names"][0].lstrip("/") for c in left] == [theirs]
    assert reap_runner(me, timeout=30) == []


# -- a runner killed mid-match ---------------------------------------------------------------


def test_after_a_runner_is_killed_its_containers_go_away_or_are_reaped(staging: Path) -> None:
    bots = [hostile("marks_and_sleeps"), "builtin:lowest"]
    limits = ["--per-move", "300", "--startup", "60"]
    match = subprocess.Popen(
        [sys.executable, "-m", "arena", "match", *bots, "--games", "1", "--seed", "1", *limits],
        env={**os.environ, "CUCUMBERS_SANDBOX_STAGING_DIR": str(staging)},
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: len(containers_of_runner(match.pid)) == 2, 30, "both containers run")
        busy = engine_client().containers.get(containers_of_runner(match.pid)["0"])
        wait_for(
            lambda: busy.exec_run(["test", "-e", "/tmp/playing"]).exit_code == 0,
            30,
            "the sleeper is in its first move",
        )
        assert len(list(staging.iterdir())) == 1  # the sleeper's file (builtins have none)
    finally:
        os.kill(match.pid, signal.SIGKILL)
        match.wait()

    # The engine ends the input of the dead runner's containers: the idle bot reads it,
    # exits, and the engine removes its container.
    wait_for(
        lambda: "1" not in containers_of_runner(match.pid), 10, "the idle bot's container goes"
    )
    # The busy one never reads it: its container stays until the reaper removes it.
    assert list(containers_of_runner(match.pid)) == ["0"]
    assert busy.name in reap_containers(staging_dir=str(staging))
    assert containers_of_runner(match.pid) == {}
    assert list(staging.iterdir()) == []  # the dead runner's staged file went too


# -- a worker that starts --------------------------------------------------------------------


def test_a_worker_reaps_what_dead_runners_left_before_its_first_job(
    sandbox: str, staging: Path, tmp_path: Path
) -> None:
    from arena.sandbox.container import staging_prefix
    from tests.arena.test_worker import worker_keys_env

    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that runs nothing now
    me = labels.RunnerIdentity.current()
    runner = {**me.labels(), labels.RUNNER_PID: str(dead.pid), labels.RUNNER_START: "1"}
    name = f"cucumbers-reaper-worker-{secrets.token_hex(3)}"
    start_idle_container(sandbox, name, runner)  # the sandbox's own label: what workers reap
    gone = labels.RunnerIdentity(dead.pid, 1, me.host)
    staged = staging / f"{staging_prefix(gone)}{secrets.token_hex(4)}"
    staged.mkdir()
    (staged / "bot.py").write_text("def play(view):\n    return view.legal[0]\n")
    env = {
        "PATH": "/usr/bin:/bin",
        "REDIS_URL": "redis://127.0.0.1:9/0",  # never answers: the reaping comes before it
        "CUCUMBERS_SANDBOX_STAGING_DIR": str(staging),
        **worker_keys_env(tmp_path),
    }
    if "DOCKER_HOST" in os.environ:
        env["DOCKER_HOST"] = os.environ["DOCKER_HOST"]
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [sys.executable, "-m", "arena", "worker", "--concurrency=1"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: "sandbox container(s) of dead runners" in log.read_text(), 120, "reaping")
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
    assert name in log.read_text()
    assert engine_client().api.containers(all=True, filters={"name": name}) == []
    assert not staged.exists()
