"""Docker sandbox cost, side by side in one run on one machine:

(a) a raw ``docker run -i --rm`` of a trivial Python script answering JSON lines, in the
    sandbox image: start until the first answer, round trip per request, teardown; with
    Docker's default bridge network, and with ``--network none`` (no network to set up: the
    cheapest container, the baseline of the ratios);
(b) the sandbox runner (``--sandbox docker``, ``builtin:lowest``): start of a bot until
    ready, close, time per move; a four-bot start against a one-bot start (the containers of
    a match start in parallel); a whole four-bot match against ``--sandbox process``;
(c) the same runner figures per OCI runtime and seccomp profile, side by side: runc with
    the sandbox's own profile (the default), runc with Docker's default profile, and gVisor
    (``runsc``) when the engine has it.

Targets (issue 3): per move at most 2x the raw round trip; fixed cost per bot per series at
most 1.5x the raw container start. These machines are noisy: medians of several runs.

Run: ``make bench`` or ``python benchmarks/docker_sandbox.py [--requests N] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable

from arena.sandbox.container import engine_runtimes
from arena.sandbox.image import ensure_image
from arena.sandbox.runner import DockerRunner, register
from arena.sandbox.settings import ENGINE_SECCOMP, SandboxSettings
from cucumbers.engine import GameState
from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.match import play_match
from cucumbers.protocol import MoveRequest, encode
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotClient, BotSpec, Limits
from cucumbers.view import View

#: The raw baseline: answer each request line with the lowest legal card, as JSON.
RAW_SCRIPT = """
import json, sys
while True:
    line = sys.stdin.readline()
    if not line:
        break
    message = json.loads(line)
    answer = {"type": "move", "id": message["id"], "card": min(message["view"]["legal"])}
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""
PLAYERS = 4
LIMITS = Limits(move_seconds=5.0, bank_seconds=5.0, startup_seconds=30.0)


def sample_view() -> View:
    """A real first-move view of a four-player game."""
    state = GameState(FIVE_CUCUMBERS, PLAYERS, seed=2026)
    assert state.to_move is not None
    return state.view(state.to_move)


def median_of(repeat: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(repeat))


# -- (a) raw docker run -i ---------------------------------------------------------------------


def raw_container(image: str, network: str = "none") -> subprocess.Popen[bytes]:
    argv = ["docker", "run", "-i", "--rm", f"--network={network}", "--entrypoint", "python3"]
    argv += [image, "-c", RAW_SCRIPT]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def raw_ask(process: subprocess.Popen[bytes], line: bytes) -> bytes:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(line)
    process.stdin.flush()
    return process.stdout.readline()


def raw_start(image: str, line: bytes, network: str = "none") -> tuple[float, float]:
    """Seconds from ``docker run`` to the first answer, and from end of input to exit."""
    started = time.perf_counter()
    process = raw_container(image, network)
    assert raw_ask(process, line)
    answered = time.perf_counter()
    assert process.stdin is not None
    process.stdin.close()
    process.wait()
    return answered - started, time.perf_counter() - answered


def raw_round_trip(image: str, line: bytes, requests: int) -> float:
    process = raw_container(image)
    raw_ask(process, line)  # started
    started = time.perf_counter()
    for _ in range(requests):
        raw_ask(process, line)
    seconds = (time.perf_counter() - started) / requests
    assert process.stdin is not None
    process.stdin.close()
    process.wait()
    return seconds


# -- (b) the sandbox runner --------------------------------------------------------------------


def sandbox_start(bots: int, settings: SandboxSettings | None = None) -> tuple[float, float]:
    """Seconds to start ``bots`` bots until all are ready, and to close them."""
    runner = DockerRunner(LIMITS, settings)
    started = time.perf_counter()
    runner.start([BotSpec.parse("builtin:lowest") for _ in range(bots)])
    ready = time.perf_counter()
    runner.close()
    return ready - started, time.perf_counter() - ready


def move_time(client: BotClient, view: View, requests: int) -> float:
    client.request_move(view, timeout=5.0)
    started = time.perf_counter()
    for _ in range(requests):
        client.request_move(view, timeout=5.0)
    return (time.perf_counter() - started) / requests


def sandbox_move(view: View, requests: int, settings: SandboxSettings | None = None) -> float:
    with DockerRunner(LIMITS, settings) as runner:
        (client,) = runner.start([BotSpec.parse("builtin:lowest")])
        return move_time(client, view, requests)


def match_seconds(sandbox: str, games: int, settings: SandboxSettings | None = None) -> float:
    specs = [BotSpec.parse("builtin:random") for _ in range(PLAYERS)]
    runner = DockerRunner(LIMITS, settings) if settings else make_runner(sandbox, LIMITS)
    started = time.perf_counter()
    for outcome in play_match(
        FIVE_CUCUMBERS, specs, runner, seed=2026, game_numbers=range(1, games + 1)
    ):
        assert not outcome.faults, outcome.faults
    return time.perf_counter() - started


# -- (c) per runtime ---------------------------------------------------------------------------


def sandbox_variants() -> list[tuple[str, SandboxSettings]]:
    """runc with the sandbox's profile, runc with the engine's, and runsc if registered."""
    runtimes = engine_runtimes(5)
    variants = [
        ("runc, arena seccomp (default)", SandboxSettings()),
        ("runc, Docker's default seccomp", SandboxSettings(seccomp=ENGINE_SECCOMP)),
    ]
    if "runsc" in runtimes:
        variants.append(("runsc (gVisor)", SandboxSettings(runtime="runsc")))
    return variants


def per_runtime(view: View, requests: int, repeat: int, games: int) -> None:
    rows = []
    for label, settings in sandbox_variants():
        one = [sandbox_start(1, settings) for _ in range(repeat)]
        four = [sandbox_start(PLAYERS, settings) for _ in range(repeat)]
        move = sandbox_move(view, requests, settings)
        match = median_of(3, functools.partial(match_seconds, "docker", games, settings))
        rows.append(
            (
                label,
                statistics.median(r[0] for r in one),
                statistics.median(r[0] for r in four),
                move,
                match,
            )
        )
    base = rows[0]
    print(f"\n(c) per runtime, builtin:lowest / {PLAYERS}-bot match of {games} games (random)")
    print(
        f"  {'runtime':32} {'1 bot ready':>12} {f'{PLAYERS} bots ready':>13}"
        f" {'per move':>10} {'match':>8}   ratios to the default"
    )
    for label, ready_1, ready_4, move, match in rows:
        print(
            f"  {label:32} {1e3 * ready_1:9.1f} ms {1e3 * ready_4:10.1f} ms {1e6 * move:7.1f} µs"
            f" {match:6.2f} s   {ready_1 / base[1]:4.2f}x {ready_4 / base[2]:4.2f}x"
            f" {move / base[3]:4.2f}x {match / base[4]:4.2f}x"
        )


# -- report ------------------------------------------------------------------------------------


def verdict(ratio: float, target: float) -> str:
    return f"{ratio:5.2f}x (target <= {target:g}x: {'met' if ratio <= target else 'MISSED'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="round trips measured")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each start-up figure")
    parser.add_argument("--games", type=int, default=20, help="games of the 4-bot match")
    args = parser.parse_args()
    register()
    image = ensure_image().tag
    view = sample_view()
    line = encode(MoveRequest(1, view))
    print(
        f"docker sandbox benchmark: {platform.python_implementation()}"
        f" {platform.python_version()}, os.cpu_count() = {os.cpu_count()}, image {image}"
    )

    bridge = [raw_start(image, line, "bridge") for _ in range(args.repeat)]
    raw = [raw_start(image, line) for _ in range(args.repeat)]
    raw_first = statistics.median(r[0] for r in raw)
    raw_teardown = statistics.median(r[1] for r in raw)
    raw_trip = raw_round_trip(image, line, args.requests)

    one = [sandbox_start(1) for _ in range(args.repeat)]
    ready_1 = statistics.median(r[0] for r in one)
    close_1 = statistics.median(r[1] for r in one)
    four = [sandbox_start(PLAYERS) for _ in range(args.repeat)]
    ready_4 = statistics.median(r[0] for r in four)
    close_4 = statistics.median(r[1] for r in four)
    per_move = sandbox_move(view, args.requests)

    process_match = median_of(3, lambda: match_seconds("process", args.games))
    docker_match = median_of(3, lambda: match_seconds("docker", args.games))

    print("\n(a) raw docker run -i, trivial JSON-lines script")
    print(
        f"  bridge: start to first answer {1e3 * statistics.median(r[0] for r in bridge):8.1f} ms"
    )
    print(
        f"  bridge: teardown              {1e3 * statistics.median(r[1] for r in bridge):8.1f} ms"
    )
    print(f"  none: start to first answer   {1e3 * raw_first:8.1f} ms")
    print(f"  none: teardown (end of input) {1e3 * raw_teardown:8.1f} ms")
    print(f"  none: round trip per request  {1e6 * raw_trip:8.1f} µs")
    print("\n(b) sandbox runner, builtin:lowest")
    print(f"  1 bot: start to ready        {1e3 * ready_1:9.1f} ms")
    print(f"  1 bot: close                 {1e3 * close_1:9.1f} ms")
    print(f"  {PLAYERS} bots: start to ready       {1e3 * ready_4:9.1f} ms")
    print(f"  {PLAYERS} bots: close                {1e3 * close_4:9.1f} ms")
    print(f"  per move                     {1e6 * per_move:9.1f} µs")
    print(f"\n  {PLAYERS}-bot match, {args.games} games (builtin:random), median of 3")
    print(f"  --sandbox process            {process_match:9.2f} s")
    print(f"  --sandbox docker             {docker_match:9.2f} s")
    print(f"  docker overhead              {docker_match - process_match:9.2f} s")

    raw_fixed = raw_first + raw_teardown
    print("\nratios (against the raw --network none container)")
    print(f"  per move / raw round trip                    {verdict(per_move / raw_trip, 2)}")
    print(
        f"  fixed cost per bot (start+close) / raw start+teardown"
        f" {verdict((ready_1 + close_1) / raw_fixed, 1.5)}"
    )
    print(f"  start to ready / raw start to first answer   {verdict(ready_1 / raw_first, 1.5)}")
    print(
        f"  {PLAYERS} bots / 1 bot start (serial would be {PLAYERS}x;"
        f" the engine's work is CPU-bound) {ready_4 / ready_1:5.2f}x"
    )
    per_runtime(view, args.requests // 4, args.repeat, args.games)


if __name__ == "__main__":
    main()
