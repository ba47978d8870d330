"""Golden replays: games the engine must reproduce byte for byte (like python-chess's perft
files). ``test_engine_properties.py`` replays every game below and compares the bytes of
:func:`cucumbers.replay.dumps_replay` with the committed file.

After a *deliberate* change to the engine's output (a rule fix, a new replay key, a new
deal), regenerate the files and commit them with the change, saying why::

    python -m tests.sdk.regen_golden           # rewrite tests/sdk/golden/*.json
    python -m tests.sdk.regen_golden --check   # only compare; exit status 1 on a difference

Each game is played by test bots that pick a legal card with ``random.Random(move_seed)``,
with faults injected at fixed decisions, so the files depend on the engine and the replay
writer only (not on the built-in bots or the match loop). The ``engine`` key is written as
``"golden"`` so that a version bump alone does not churn the files.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

from cucumbers.engine import GameState
from cucumbers.faults import FaultKind
from cucumbers.games import rules_for
from cucumbers.replay import dumps_replay

GOLDEN_DIR = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class GoldenGame:
    """One golden game: the table, the deal seed, the bots' seed, and the faults to inject
    as ``{(seat, decision number of that seat from 1): kind}``."""

    game: str
    players: int
    seed: int
    move_seed: int
    faults: dict[tuple[int, int], FaultKind] = field(default_factory=dict)

    @property
    def file_name(self) -> str:
        return f"{self.game}-seed{self.seed}-{self.players}p.json"


GOLDEN = (
    GoldenGame("five-cucumbers", 4, 1234, 1234),
    GoldenGame("concombre", 4, 1234, 1234),
    GoldenGame(
        "five-cucumbers", 5, 4321, 111, {(2, 9): FaultKind.TIMEOUT, (4, 30): FaultKind.CRASH}
    ),
    GoldenGame(
        "concombre", 6, 4321, 99, {(1, 5): FaultKind.ILLEGAL_MOVE, (3, 60): FaultKind.PROTOCOL}
    ),
)


def play_golden(spec: GoldenGame) -> bytes:
    """The canonical bytes of the replay of ``spec``'s game."""
    state = GameState(rules_for(spec.game), spec.players, spec.seed)
    rng = random.Random(spec.move_seed)
    decisions = [0] * spec.players
    while (seat := state.to_move) is not None:
        decisions[seat] += 1
        kind = spec.faults.get((seat, decisions[seat]))
        if kind is not None:
            state.fault(kind, f"golden {kind} of seat {seat}")
        else:
            legal = state.legal()
            state.play(legal[rng.randrange(len(legal))])
    players = [{"seat": s, "name": f"golden-random-{s}"} for s in range(spec.players)]
    replay = state.to_replay(players)
    replay["engine"] = "golden"
    return dumps_replay(replay)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare only; write nothing")
    args = parser.parse_args(argv)
    GOLDEN_DIR.mkdir(exist_ok=True)
    status = 0
    for spec in GOLDEN:
        path = GOLDEN_DIR / spec.file_name
        data = play_golden(spec)
        old = path.read_bytes() if path.exists() else None
        if old == data:
            print(f"unchanged  {path}")
        elif args.check:
            print(f"DIFFERENT  {path}")
            status = 1
        else:
            path.write_bytes(data)
            print(f"written    {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
