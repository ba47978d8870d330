"""A move's cost, and a bot's start, per transport, side by side in one run (issue 31):

- **per move over whole games**: the extra wall time of a long match of ``builtin:lowest``
  against itself over a short one, divided by the extra moves (start-up and close cancel
  out), for the Docker sandbox on its ``socket`` channel (Unix sockets bind-mounted into the
  container: the kernel carries every move), on its ``attach`` channel (the container's
  stdin and stdout through dockerd and the shim), and ``--sandbox process``;
- **the limit**: a raw pipe round trip between two Python processes, a line of a real
  view's size each way;
- **the Python floor**: a move over whole games with all that is ours taken away, every
  view whole as JSON to another Python process and its answer back as JSON
  (:func:`python_floor`): what any runner and host written in Python pay for a move;
- **start to ready** of a match's bots: Docker (each channel) and ``--sandbox process``;
- **CPU per move**, measured over whole games the same way, of every process involved:
  the runner, the bots' hosts (their containers' cgroups, or the runner's children), the
  containers' shims and the Docker daemons (``dockerd``, ``containerd``; left out of
  ``--sandbox process``, which they do not serve); for the raw pipe, both processes. On a
  busy machine wall time mostly measures the wait for a core; the CPU spent is the steadier
  figure (the daemons' share includes whatever else the engine does meanwhile, so its best
  round is taken too). The CPU of each part is printed too (the runner, the hosts, the
  daemons), each part's best round: where a move's cost lies.

The variants are measured in turns, round after round, and the best round of each printed
(the least disturbed by the rest of the machine): these machines are shared and noisy, and
turns spread the noise over every variant alike. The raw round trip is the best of short
batches, for the same reason.

Run: ``make bench`` or ``python benchmarks/move_channel.py [--rounds N] [--games N]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress

from arena.sandbox.container import engine_runtimes
from arena.sandbox.image import ensure_image
from arena.sandbox.runner import DockerRunner, register
from arena.sandbox.settings import ATTACH_CHANNEL, SOCKET_CHANNEL, SandboxSettings
from cucumbers.engine import GameState
from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.match import game_seed, play_game, play_match, seating
from cucumbers.protocol import MoveReply, MoveRequest, encode
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec, Limits, Runner

LIMITS = Limits(move_seconds=5.0, bank_seconds=5.0, startup_seconds=30.0)
BOTS = ("builtin:lowest", "builtin:lowest")
#: The issue's target: a move, over whole games, within this many raw pipe round trips.
TARGET = 5.0

#: The raw baseline's other process: answers every line with a move, as a host would. It
#: reads through a buffer, as the host does: a raw stream's readline reads one byte per
#: system call (until 2026-12-02 it did, and the "limit" measured some 550 reads a move).
ECHO = """
import os, sys
reply = sys.argv[1].encode() + b"\\n"
read = sys.stdin.buffer.readline
while read():
    os.write(1, reply)
"""


def runner_for(variant: str, settings: dict[str, SandboxSettings]) -> Runner:
    if variant in settings:
        return DockerRunner(LIMITS, settings[variant])
    return make_runner(variant, LIMITS)


def match_time(variant: str, settings: dict[str, SandboxSettings], games: int) -> tuple[float, int]:
    """Seconds and moves of a whole match of ``games`` games (start and close included)."""
    specs = [BotSpec.parse(bot) for bot in BOTS]
    runner = runner_for(variant, settings)
    started = time.perf_counter()
    moves = 0
    for outcome in play_match(
        FIVE_CUCUMBERS, specs, runner, seed=2026, game_numbers=range(1, games + 1)
    ):
        assert not outcome.faults, outcome.faults
        moves += sum(outcome.moves)
    return time.perf_counter() - started, moves


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
DAEMONS = ("dockerd", "containerd")
CPUACCT = "/sys/fs/cgroup/cpuacct/docker"


def process_cpu(pid: int) -> float:
    """CPU seconds (user and system) of process ``pid`` so far; 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def processes_named(*names: str) -> list[tuple[int, bytes]]:
    """(pid, command line) of the live processes whose name starts with one of ``names``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as comm, open(f"/proc/{entry}/cmdline", "rb") as cmd:
                if comm.read().strip().startswith(names):
                    found.append((int(entry), cmd.read()))
        except OSError:
            continue
    return found


def daemons_cpu() -> float:
    return sum(process_cpu(pid) for pid, _ in processes_named(*DAEMONS))


def containers_cpu(runner: Runner) -> float:
    """CPU seconds of the runner's live containers (their cgroups) and of their shims."""
    if not isinstance(runner, DockerRunner) or runner._engine is None:
        return 0.0
    match = f"org.cucumbers.match={runner.match_id}"
    ids = [c["Id"] for c in runner._engine.api.containers(filters={"label": match})]
    total = 0.0
    for container in ids:
        with suppress(OSError), open(f"{CPUACCT}/{container}/cpuacct.usage") as usage:
            total += int(usage.read()) / 1e9
    for pid, command in processes_named("containerd-shim"):
        if any(container.encode() in command for container in ids):
            total += process_cpu(pid)
    return total


#: The parts of a move's CPU: this process (the runner), the bots' hosts (with their
#: containers' shims), the Docker daemons.
PARTS = ("runner", "hosts", "daemons")


def match_cpu(
    variant: str, settings: dict[str, SandboxSettings], games: int
) -> tuple[dict[str, float], int]:
    """CPU seconds of every process involved in a whole match of ``games`` games, by part
    (:data:`PARTS`), and its moves."""
    specs = [BotSpec.parse(bot) for bot in BOTS]
    runner = runner_for(variant, settings)
    # The daemons carry nothing of the process runner's: counted there, they add only noise.
    docker = variant in settings
    own, daemons = time.process_time(), daemons_cpu() if docker else 0.0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    clients = runner.start(specs)
    moves = 0
    for number in range(1, games + 1):
        order = seating(2026, number, len(specs))
        outcome = play_game(
            FIVE_CUCUMBERS,
            [clients[bot] for bot in order],
            seed=game_seed(2026, number),
            limits=runner.limits,
            game_number=number,
            bots=order,
            keep_replay=False,
        )
        assert not outcome.faults, outcome.faults
        moves += sum(outcome.moves)
    hosts = containers_cpu(runner)
    runner.close()
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    hosts += (reaped.ru_utime + reaped.ru_stime) - (children.ru_utime + children.ru_stime)
    spent = {
        "runner": time.process_time() - own,
        "hosts": hosts,
        "daemons": daemons_cpu() - daemons if docker else 0.0,
    }
    return spent, moves


def cpu_per_move(
    variant: str, settings: dict[str, SandboxSettings], short: int, long: int
) -> dict[str, float]:
    """CPU seconds per move over whole games, in all (``total``) and by part."""
    if variant == "raw pipe":
        return {"total": raw_pipe_cpu()}
    short_cpu, short_moves = match_cpu(variant, settings, short)
    long_cpu, long_moves = match_cpu(variant, settings, long)
    parts = {
        part: (long_cpu[part] - short_cpu[part]) / (long_moves - short_moves) for part in PARTS
    }
    return {"total": sum(parts.values()), **parts}


def per_move(variant: str, settings: dict[str, SandboxSettings], short: int, long: int) -> float:
    """Seconds per move, measured over whole games: (long match - short match) / moves."""
    short_time, short_moves = match_time(variant, settings, short)
    long_time, long_moves = match_time(variant, settings, long)
    return (long_time - short_time) / (long_moves - short_moves)


def start_to_ready(variant: str, settings: dict[str, SandboxSettings], bots: int) -> float:
    runner = runner_for(variant, settings)
    started = time.perf_counter()
    runner.start([BotSpec.parse(BOTS[0]) for _ in range(bots)])
    ready = time.perf_counter() - started
    runner.close()
    return ready


def ready_of(settings: dict[str, SandboxSettings], bots: int, variant: str) -> float:
    return start_to_ready(variant, settings, bots)


def raw_pipe_cpu(requests: int = 5000) -> float:
    """CPU seconds of both processes per raw round trip (:func:`raw_pipe`): a long run
    less a short one, so that the other process's start cancels out."""

    def spent(count: int) -> float:
        own = time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        raw_pipe(count, batch=count)
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = (reaped.ru_utime + reaped.ru_stime) - (children.ru_utime + children.ru_stime)
        return time.process_time() - own + child

    short = requests // 10
    return (spent(requests) - spent(short)) / (requests - short)


def raw_pipe(requests: int, batch: int = 100) -> float:
    """Seconds per round trip of a request line (a real view) and its answer, through a
    pipe each way between this process and another Python process."""
    state = GameState(FIVE_CUCUMBERS, len(BOTS), seed=2026)
    assert state.to_move is not None
    line = encode(MoveRequest(1, state.view(state.to_move)))
    reply = encode(MoveReply(1, 3)).decode().strip()
    child = subprocess.Popen(
        [sys.executable, "-c", ECHO, reply], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None
    to_child, from_child = child.stdin.fileno(), child.stdout.fileno()

    def ask() -> None:
        os.write(to_child, line)
        answer = b""
        while not answer.endswith(b"\n"):
            answer += os.read(from_child, 65536)

    for _ in range(200):
        ask()
    best = float("inf")
    for _ in range(max(1, requests // batch)):
        started = time.perf_counter()
        for _ in range(batch):
            ask()
        best = min(best, (time.perf_counter() - started) / batch)
    child.stdin.close()
    child.wait()
    return best


#: The name of :func:`python_floor` among the transports.
PYTHON_FLOOR = "python floor"
#: The Python floor's host: the least a Python bot host does for a move. It reads the
#: view whole, as JSON, and answers the lowest legal card, as JSON.
FLOOR_HOST = """
import json, os, sys
read = sys.stdin.buffer.readline
while line := read():
    card = json.loads(line)[4][0]
    os.write(1, (json.dumps({"type": "move", "card": card}) + "\\n").encode())
"""


def python_floor(games: int = 100) -> float:
    """Seconds a move over whole games at the least a Python runner and host can do: the
    engine plays ``games`` two-seat games, every view going whole as JSON through a pipe to
    another Python process (:data:`FLOOR_HOST`), and the answer coming back as JSON. No
    container, no checks, no deltas, no clock, no replay: what remains of a move when all
    that is ours is taken away, and two interpreters still encode, wake and decode."""
    child = subprocess.Popen(
        [sys.executable, "-c", FLOOR_HOST], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None
    to_child, from_child = child.stdin.fileno(), child.stdout.fileno()
    moves = 0

    def ask(view: object) -> object:
        nonlocal moves
        moves += 1
        os.write(to_child, (json.dumps(view) + "\n").encode())
        answer = b""
        while not answer.endswith(b"\n"):
            answer += os.read(from_child, 65536)
        return json.loads(answer)["card"]

    def play(count: int) -> tuple[float, int]:
        nonlocal moves
        moves = 0
        started = time.perf_counter()
        for number in range(count):
            GameState(FIVE_CUCUMBERS, len(BOTS), seed=number).run([ask] * len(BOTS))
        return time.perf_counter() - started, moves

    play(2)  # the child's start
    short_seconds, short_moves = play(max(1, games // 10))
    long_seconds, long_moves = play(games)
    child.stdin.close()
    child.wait()
    return (long_seconds - short_seconds) / (long_moves - short_moves)


def best_of(rounds: int, variants: list[str], measure: Callable[[str], float]) -> dict[str, float]:
    """Each variant measured once per round, in an order turned by one each round; the
    least of each variant's rounds."""
    best = best_parts_of(rounds, variants, lambda variant: {"": measure(variant)})
    return {variant: parts[""] for variant, parts in best.items()}


def best_parts_of(
    rounds: int, variants: list[str], measure: Callable[[str], dict[str, float]]
) -> dict[str, dict[str, float]]:
    """:func:`best_of` for measures of several parts: the least of each part's rounds."""
    samples: dict[str, list[dict[str, float]]] = {variant: [] for variant in variants}
    for number in range(rounds):
        turn = number % len(variants)
        for variant in variants[turn:] + variants[:turn]:
            samples[variant].append(measure(variant))
    return {
        variant: {part: min(sample[part] for sample in values) for part in values[0]}
        for variant, values in samples.items()
    }


def load_average() -> str:
    """The machine's load (these machines are shared: every figure goes with it)."""
    return "load average " + ", ".join(f"{load:.2f}" for load in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="turns of every variant")
    parser.add_argument("--games", type=int, default=200, help="games of the long match")
    parser.add_argument("--short", type=int, default=4, help="games of the short match")
    parser.add_argument("--requests", type=int, default=5000, help="raw round trips a turn")
    parser.add_argument("--runtime", default="runc", help="OCI runtime of the containers")
    args = parser.parse_args()
    register()
    image = ensure_image().tag
    if args.runtime not in engine_runtimes(5):
        sys.exit(f"the engine has no runtime {args.runtime!r}")
    settings = {
        f"docker ({channel})": SandboxSettings(channel=channel, runtime=args.runtime)
        for channel in (SOCKET_CHANNEL, ATTACH_CHANNEL)
    }
    docker = list(settings)
    print(
        f"move channel benchmark: {platform.python_implementation()}"
        f" {platform.python_version()}, os.cpu_count() = {os.cpu_count()},"
        f" image {image}, runtime {args.runtime}, {args.rounds} rounds (best of each),"
        f" {load_average()}"
    )
    measures: dict[str, Callable[[], float]] = {
        "raw pipe": functools.partial(raw_pipe, args.requests),
        PYTHON_FLOOR: python_floor,
    }
    moves = best_of(
        args.rounds,
        [*measures, *docker, "process"],
        lambda v: measures[v]() if v in measures else per_move(v, settings, args.short, args.games),
    )
    raw, floor = moves["raw pipe"], moves[PYTHON_FLOOR]
    print(
        f"\nper move over whole games ({' vs '.join(BOTS)}, {args.games} games less"
        f" {args.short}), against the limit: a raw pipe round trip between two processes;"
        " and against the Python floor (python_floor: a whole view as JSON each way, nothing"
        " else)"
    )
    print(
        f"  {'transport':24} {'per move':>11} {'/ raw pipe':>11}   target <= {TARGET:g}x"
        f" {'/ floor':>9}"
    )
    for variant, seconds in moves.items():
        ratio = seconds / raw
        verdict = "" if variant in measures else ("met" if ratio <= TARGET else "MISSED")
        print(
            f"  {variant:24} {1e6 * seconds:8.1f} µs {ratio:10.1f}x   {verdict:6}"
            f" {seconds / floor:8.2f}x"
        )
    attach, sock = moves["docker (attach)"], moves["docker (socket)"]
    print(f"  socket channel / attach stream: {sock / attach:4.2f}x; {load_average()}")

    split = best_parts_of(
        args.rounds,
        ["raw pipe", *docker, "process"],
        functools.partial(cpu_per_move, settings=settings, short=args.short, long=args.games),
    )
    cpu = {variant: parts["total"] for variant, parts in split.items()}
    print("\nCPU per move over whole games, every process involved (see the docstring)")
    print(
        f"  {'transport':24} {'CPU a move':>11} {'/ raw pipe':>11}   target <= {TARGET:g}x"
        + "".join(f" {part:>9}" for part in PARTS)
    )
    for variant, seconds in cpu.items():
        ratio = seconds / cpu["raw pipe"]
        verdict = "" if variant == "raw pipe" else ("met" if ratio <= TARGET else "MISSED")
        parts = "".join(
            f" {1e6 * split[variant][part]:6.1f} µs" if part in split[variant] else " " * 10
            for part in PARTS
        )
        print(f"  {variant:24} {1e6 * seconds:8.1f} µs {ratio:10.1f}x   {verdict:6}{parts}")
    ratio = cpu["docker (socket)"] / cpu["docker (attach)"]
    print(f"  socket channel / attach stream: {ratio:4.2f}x; {load_average()}")

    for bots in (1, 2):
        ready = best_of(
            args.rounds, [*docker, "process"], functools.partial(ready_of, settings, bots)
        )
        process = ready["process"]
        print(f"\nstart to ready, {bots} bot{'s' if bots > 1 else ''} in parallel")
        print(f"  {'runner':24} {'ready':>11} {'/ process':>11}")
        for variant, seconds in ready.items():
            print(f"  {variant:24} {1e3 * seconds:8.1f} ms {seconds / process:10.2f}x")
        print(f"  {load_average()}")


if __name__ == "__main__":
    main()
