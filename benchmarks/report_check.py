"""What checking a report costs the platform's worker, per game (docs/arena.md, "Signed
messages"): ``arena.report_check.problems`` on genuine reports (the plan, the sources, the
independent replay validator on every replay, the replay against the report), and the
envelope's signature check per message, beside the report's own parsing.

Matches of four built-in bots (``random``, ``lowest``, ``highest``, ``heuristic``), five
games each, both games, played in process (``--sandbox none``: the figure is the check's,
not the bots'); each figure is the median of ``--rounds`` timings over all the reports.

Run: ``make bench`` or ``python benchmarks/report_check.py [--matches N] [--rounds N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import uuid
from collections.abc import Callable
from time import perf_counter

from arena.contract import JobLimits, JobSeat, MatchJob, MatchKind, MatchReport, dump, load_report
from arena.playing import play_job
from arena.report_check import problems
from arena.signing import Purpose, Signer, generate_key, open_envelope

BOTS = ("random", "lowest", "highest", "heuristic")


def job(game: str, seed: int) -> MatchJob:
    return MatchJob(
        match=1,
        attempt=uuid.uuid4(),
        kind=MatchKind.LADDER,
        game=game,
        seed=seed,
        games=5,
        limits=JobLimits(move_seconds=5.0, bank_seconds=10.0, startup_seconds=10.0),
        seats=tuple(JobSeat(name=f"builtin:{bot}", builtin=bot) for bot in BOTS),
    )


def median_ms(action: Callable[[], object], rounds: int, per: int) -> float:
    timings = []
    for _ in range(rounds):
        started = perf_counter()
        action()
        timings.append((perf_counter() - started) * 1000 / per)
    return statistics.median(timings)


def measure(game: str, matches: int, rounds: int) -> str:
    host = Signer("bench-host", generate_key())
    keys = {host.name: host.key.public_key()}
    played: list[tuple[MatchJob, MatchReport, str]] = []
    for seed in range(matches):
        match_job = job(game, seed)
        report = play_job(match_job, "none", "bench")
        assert not problems(match_job, report), "a genuine report must have no problem"
        played.append((match_job, report, host.seal(Purpose.REPORT, dump(report))))
    games = sum(len(report.games) for _, report, _ in played)
    check = median_ms(lambda: [problems(j, r) for j, r, _ in played], rounds, games)
    verify = median_ms(
        lambda: [open_envelope(t, Purpose.REPORT, keys) for _, _, t in played], rounds, matches
    )
    parse = median_ms(lambda: [load_report(dump(r)) for _, r, _ in played], rounds, matches)
    size = statistics.mean(len(text) for _, _, text in played) / 1024
    return (
        f"{game}: {games} games of 4 bots; report check {check:.2f} ms per game;"
        f" signature check {verify:.2f} ms per report ({size:.0f} KiB);"
        f" the report's own parsing {parse:.2f} ms per report"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=20, help="matches per game")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    for game in ("five-cucumbers", "concombre"):
        print(measure(game, args.matches, args.rounds))


if __name__ == "__main__":
    main()
