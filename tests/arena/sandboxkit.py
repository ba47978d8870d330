"""Helpers of the sandbox tests: play matches in the Docker runner and check that nothing of
a match outlives it (no container, no ``docker`` client process, no staged file)."""

from __future__ import annotations

import io
import ipaddress
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from docker.errors import DockerException

from arena.sandbox import labels
from arena.sandbox.container import engine_client, engine_runtimes
from arena.sandbox.runner import DockerRunner
from arena.sandbox.settings import SandboxSettings
from cucumbers.faults import Fault, FaultKind
from cucumbers.games import FIVE_CUCUMBERS, GameRules
from cucumbers.match import GameOutcome, play_match
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.runners.reaper import process_table

HOSTILE = Path(__file__).parent / "hostile_bots"


def build_small_image(recipe: str, tag: str) -> str:
    """Build ``recipe`` (a Dockerfile's text, on an image we have: no context, no layer of
    its own, so it takes a moment) as ``tag``; the image's id."""
    image, _ = engine_client().images.build(fileobj=io.BytesIO(recipe.encode()), tag=tag, rm=True)
    return str(image.id)


#: Short limits, so that tests waiting for a timeout stay fast.
FAST = Limits(move_seconds=0.3, bank_seconds=0.3, startup_seconds=5.0)
#: Ample time per move, for bots whose fault must not become a timeout on a busy machine.
AMPLE = Limits(move_seconds=10.0, bank_seconds=0.3, startup_seconds=5.0)
#: The well-behaved opponent of every hostile bot (in a container too).
OPPONENT = "builtin:lowest"


def hostile(name: str) -> str:
    return str(HOSTILE / f"{name}.py")


def templated(tmp_path: Path, name: str, **values: object) -> str:
    """A copy of a hostile bot with its ``NAME = ...`` lines set to ``values``."""
    text = (HOSTILE / f"{name}.py").read_text()
    for key, value in values.items():
        line = f"{key} = {value!r}"
        text, count = re.subn(rf"(?m)^{key} = .*$", lambda _, line=line: line, text)
        assert count == 1, f"{name}.py has no line {key} = ..."
    folder = tmp_path / "templated"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(text)
    return str(path)


#: The OCI runtime the sandbox tests play with now (see ``runtime`` in test_hostile_bots.py).
runtime = "runc"


def docker_runner(staging: Path, limits: Limits = FAST, **settings: Any) -> DockerRunner:
    settings.setdefault("runtime", runtime)
    return DockerRunner(limits, SandboxSettings(staging_dir=str(staging), **settings))


def runtimes_present() -> list[str]:
    """The runtimes of the engine the sandbox tests play under: runc, and gVisor's runsc
    when it is registered (``deploy/ensure-gvisor.sh``, run by ``make sandbox``)."""
    try:
        known = engine_runtimes(5)
    except (DockerException, OSError):
        return ["runc"]
    return ["runc"] + (["runsc"] if "runsc" in known else [])


def play(
    sources: Sequence[str],
    staging: Path,
    *,
    games: int = 1,
    limits: Limits = FAST,
    rules: GameRules = FIVE_CUCUMBERS,
    seed: int = 7,
    **settings: Any,
) -> list[GameOutcome]:
    """Play a match in the Docker runner (with the sandbox ``settings`` given), then check
    that it left nothing behind."""
    runner = docker_runner(staging, limits, **settings)
    specs = [BotSpec.parse(source) for source in sources]
    outcomes = list(play_match(rules, specs, runner, seed=seed, game_numbers=range(1, games + 1)))
    assert_nothing_left(runner)
    return outcomes


def play_hostile(source: str, staging: Path, limits: Limits = FAST, **settings: Any) -> GameOutcome:
    """One game of ``source`` (bot 0) against :data:`OPPONENT` (bot 1)."""
    (outcome,) = play([source, OPPONENT], staging, limits=limits, **settings)
    return outcome


def seat_of(outcome: GameOutcome, bot: int) -> int:
    return outcome.bots.index(bot)


def output_of(outcome: GameOutcome, bot: int = 0) -> str:
    return outcome.outputs[seat_of(outcome, bot)]


def faults_of(outcome: GameOutcome, bot: int) -> list[Fault]:
    return [fault for fault in outcome.faults if fault.seat == seat_of(outcome, bot)]


def assert_only_fault(outcome: GameOutcome, kind: FaultKind | None) -> Fault | None:
    """Bot 0 has exactly one fault of ``kind`` (or none at all); every other bot has none;
    the game still ended with a full placement."""
    assert sorted(outcome.placement) == list(range(len(outcome.bots)))
    for bot in range(1, len(outcome.bots)):
        assert faults_of(outcome, bot) == [], f"bot {bot} was harmed: {outcome.faults}"
        assert output_of(outcome, bot) == "", "a well-behaved bot's output is empty"
    mine = faults_of(outcome, 0)
    if kind is None:
        assert mine == [], mine
        return None
    assert [fault.kind for fault in mine] == [kind], mine
    assert outcome.placement[-1] == seat_of(outcome, 0), "a faulty bot is ranked last"
    return mine[0]


def report(outcome: GameOutcome, tag: str) -> str:
    """The text after ``TAG `` on the first line of bot 0's output that starts with it."""
    for line in output_of(outcome).splitlines():
        if line.startswith(tag + " "):
            return line[len(tag) + 1 :]
    raise AssertionError(f"no {tag} line in: {output_of(outcome)[:500]!r}")


def containers_of_match(match_id: str) -> list[str]:
    """The match's containers the engine lists, as ``name (state: status)``."""
    found = engine_client().api.containers(
        all=True, filters={"label": [f"{labels.MATCH}={match_id}"]}
    )
    return [f"{c['Names'][0]} ({c['State']}: {c['Status']})" for c in found]


def processes_with(text: str) -> list[int]:
    """Live processes on this host (in containers too) whose command line holds ``text``."""
    found = []
    needle = text.encode()
    for pid, info in process_table().items():
        if not info.alive:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                if needle in file.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def assert_nothing_left(runner: DockerRunner) -> None:
    """No container of the runner's match and no ``docker`` client of it remain, once it is
    closed. The message says what the engine still lists and whether the runner knew (it
    gave up waiting and left them to the reaper) or believed them gone."""
    match_id = runner.match_id
    listed = containers_of_match(match_id)
    if runner.left_behind:
        known = f"the runner gave up waiting for {runner.left_behind} and left them to the reaper"
    else:
        known = "the runner's close returned believing every container gone"
    assert listed == [], f"the engine still lists {listed}; {known}"
    # The clients' command lines name their containers: cucumbers-<match>-<seat>-<random>.
    assert processes_with(f"cucumbers-{labels.safe_name_part(match_id)}-") == []


def bridge_gateway() -> str:
    """The Docker bridge's gateway on this machine (where a host's database would listen)."""
    network = engine_client().api.inspect_network("bridge")
    for config in network["IPAM"]["Config"]:
        if config.get("Gateway"):
            return str(config["Gateway"])
        subnet = ipaddress.ip_network(config["Subnet"])
        return str(next(subnet.hosts()))  # Docker's default: the first address
    raise AssertionError("the bridge network has no address")
