# mypy: disable-error-code="import-untyped,import-not-found"
# (the Django project is imported from platform/ at run time, outside mypy's path)
"""How long should a ladder match be? The ratings' convergence per hour of machine time at
each length (issue 31).

A longer match starts its containers once for more games, so the pipeline rates more games
an hour; but its games come in larger lumps of the same table, so the ladder may need more
of them before its order is right. The figure to maximise is their quotient, per length G
(games a match: G deals per seat rotation of a deal set):

- games to converge(G): ``ladder_convergence.py --match-games`` (the simulated ladder, the
  same seeds for every G): the median rated games until the Elo order is the reference
  order for good;
- rated games per hour(G): ``pipeline.py --match-games`` (the real pipeline: arena worker,
  Redis, PostgreSQL, Docker), the lengths alternating over rounds, with the CPU seconds per
  rated game and how long one match holds a worker;
- convergences per machine-hour(G) = rated games per hour(G) / games to converge(G), and
  its ratio to G = 5 (the ladder's length before issue 31).

The simulated part is CPU-bound and takes most of the run (about 15 minutes with the
defaults on the project's 2-core machine; ``--runs``, ``--budget`` shorten it), the pipeline
part a few minutes: not part of ``make bench`` (docs/arena.md, "How long a ladder match
is").

    python benchmarks/match_length.py [--match-games 5,10,20,40] [--field close|house]
        [--runs 21] [--budget 2000] [--matches 40] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from ladder_convergence import (
    MATCH_GAMES,
    Summary,
    field_and_reference,
    games_list,
    report_lengths,
)
from pipeline import (
    FAST_BUILTINS,
    Throughput,
    engine_runtimes,
    environment,
    fresh_database,
    house_bots_playing,
    load_average,
    measure_lengths,
    print_lengths,
    setup_django,
)

from arena.rating import EloSettings


def convergence(args: argparse.Namespace) -> dict[int, Summary]:
    """Games to converge at each length, on the simulated ladder."""
    with tempfile.TemporaryDirectory() as folder:
        specs, reference = field_and_reference(args.field, args.reference_games, Path(folder))
        return report_lengths(
            specs, reference, args.runs, args.budget, EloSettings(), args.match_games
        )


def throughput(args: argparse.Namespace) -> dict[int, list[Throughput]]:
    """Rated games per hour at each length, through the real pipeline."""
    data_dir = tempfile.mkdtemp(prefix="cucumbers-bench-")
    try:
        env = environment(data_dir)
        fresh_database()
        setup_django(env)
        house_bots_playing(list(FAST_BUILTINS))
        runtime = engine_runtimes()[0]
        batches = measure_lengths(
            args.match_games,
            args.rounds,
            args.matches,
            args.concurrency,
            {**env, "CUCUMBERS_SANDBOX_RUNTIME": runtime},
            Path(data_dir),
        )
        print_lengths(batches)
        return batches
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def combine(games_needed: dict[int, Summary], batches: dict[int, list[Throughput]]) -> None:
    """The table: per length, the games to converge, the rated games per hour, their
    quotient (convergences per machine-hour) and its ratio to ``MATCH_GAMES`` (5)."""
    per_hour = {g: statistics.fmean(b.per_hour for b in runs) for g, runs in batches.items()}
    machine_cpu = {
        g: statistics.fmean(b.cpu_per_game["machine"] for b in runs) for g, runs in batches.items()
    }
    rate = {g: per_hour[g] / games_needed[g].settled for g in batches}
    base = MATCH_GAMES if MATCH_GAMES in rate else next(iter(rate))
    print(
        f"games a match | games to converge (median, quartiles) | rated games per hour"
        f" (x {base}) | convergences per machine-hour (x {base}) | CPU s per convergence"
        " | a match holds a worker"
    )
    for g, summary in games_needed.items():
        held = statistics.fmean(b.match_seconds for b in batches[g])
        print(
            f"  {g:3d} | {summary.settled:6g} ({summary.settled_low:g}-{summary.settled_high:g})"
            f" | {per_hour[g]:9,.0f} ({per_hour[g] / per_hour[base]:.2f}x)"
            f" | {rate[g]:7.1f} ({rate[g] / rate[base]:.2f}x)"
            f" | {machine_cpu[g] * summary.settled:6.1f} | {held:.1f} s"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--match-games", type=games_list, default=[5, 10, 20, 40])
    parser.add_argument("--field", choices=("house", "close"), default="close")
    parser.add_argument("--runs", type=int, default=21, help="simulated ladders per length")
    parser.add_argument("--budget", type=int, default=2000, help="rated games per ladder")
    parser.add_argument("--reference-games", type=int, default=4000)
    parser.add_argument("--matches", type=int, default=40, help="matches per pipeline batch")
    parser.add_argument("--rounds", type=int, default=2, help="pipeline batches per length")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    print(f"load average before: {load_average()}")
    games_needed = convergence(args)
    print(f"load average after the simulated ladders: {load_average()}")
    batches = throughput(args)
    combine(games_needed, batches)
    print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
