"""The move review (``cucumbers review``): what it finds for the built-in bots, and what it
costs per game.

Four-seat tables of ``search``, ``heuristic``, ``highest`` and ``random`` (seats reshuffled
every game by the match loop), played in process; then every seat of every game is reviewed
with ``--deals`` deals per decision (:func:`cucumbers.review.review_game`, seed 0). Per bot:
its decisions with a choice, the mean regret per decision with a 95% interval (over
decisions), the share of decisions with a regret of 0.5 or more, and the regret per game. Per
game: the review's CPU time for one seat (what one "Review" of a game costs a worker), its
wall time (which a busy machine inflates), and the CPU time per decision; one process.

Expected: search's moves review near zero (its playouts are the review's), random's clearly
higher; docs/bots.md ("Reviewing a game") has the figures of a longer run.

Run: ``make bench`` or ``python benchmarks/review.py [--games N] [--deals N]``.
"""

from __future__ import annotations

import argparse
import math
import statistics
from dataclasses import dataclass, field
from time import perf_counter, process_time

from cucumbers.games import GameName, rules_for
from cucumbers.match import play_match
from cucumbers.review import review_game
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.runners.inprocess import InProcessRunner

BOTS = ("search", "heuristic", "highest", "random")
SEED = 2026
MISTAKE = 0.5


@dataclass(slots=True)
class Tally:
    """One bot's reviewed decisions."""

    regrets: list[float] = field(default_factory=list)
    games: int = 0

    def line(self, bot: str, unit: str) -> str:
        n = len(self.regrets)
        mean = statistics.fmean(self.regrets) if n else 0.0
        sd = statistics.stdev(self.regrets) if n > 1 else 0.0
        big = sum(r >= MISTAKE for r in self.regrets) / n if n else 0.0
        per_game = sum(self.regrets) / self.games if self.games else 0.0
        return (
            f"{bot:<10} {n:>9} {mean:>8.3f} ± {1.96 * sd / math.sqrt(max(n, 1)):<6.3f}"
            f" {100 * big:>12.1f}% {per_game:>10.2f} {unit}"
        )


def run(game: str, games: int, deals: int) -> None:
    rules = rules_for(game)
    specs = [BotSpec(f"builtin:{bot}", bot) for bot in BOTS]
    tallies = {bot: Tally() for bot in BOTS}
    seconds: list[float] = []
    cpu: list[float] = []
    per_decision: list[float] = []
    outcomes = play_match(
        rules,
        specs,
        InProcessRunner(Limits()),
        seed=SEED,
        game_numbers=range(1, games + 1),
    )
    for outcome in outcomes:
        assert outcome.replay is not None
        for seat, index in enumerate(outcome.bots):
            started, started_cpu = perf_counter(), process_time()
            review = review_game(outcome.replay, seat, deals=deals)
            seconds.append(perf_counter() - started)
            cpu.append(process_time() - started_cpu)
            if review.decisions:
                per_decision.append(cpu[-1] / len(review.decisions))
            tally = tallies[BOTS[index]]
            tally.regrets.extend(d.regret for d in review.decisions)
            tally.games += 1
    print(f"\n{rules.title}: {games} games of {', '.join(BOTS)}; {deals} deals a decision")
    print(
        f"{'bot':<10} {'decisions':>9} {'mean regret ± 95%':>17} {'regret ≥ 0.5':>13}"
        f" {'per game':>10}"
    )
    for bot in BOTS:
        print(tallies[bot].line(bot, rules.unit))
    print(
        f"review of one seat's game: CPU median {statistics.median(cpu):.2f} s, max"
        f" {max(cpu):.2f} s (wall median {statistics.median(seconds):.2f} s); CPU per"
        f" decision median {1000 * statistics.median(per_decision):.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games per game (default: 4)")
    parser.add_argument("--deals", type=int, default=1000, help="deals per decision")
    parser.add_argument("--game", choices=[g.value for g in GameName], action="append")
    args = parser.parse_args()
    for game in args.game or [g.value for g in GameName]:
        run(game, args.games, args.deals)


if __name__ == "__main__":
    main()
