"""How many rated games does the ladder need to order its bots right, with and without
duplicate deals?

Two fields. ``house``: the baseline built-ins (``benchmarks/strength.py``'s ``baselines``:
heuristic, highest, random, lowest; docs/bots.md), far apart in strength. ``close``: four
bots of close strength, the heuristic bot playing a uniformly random legal card instead
with probability 0, 0.1, 0.2 and 0.3, its dice seeded by the position (hand, trick, round,
scores), so that a bot answers a position the same way whichever seat it holds: duplicate
deals then cancel the luck of both the cards and the dice. The reference order is a
large local round robin's (``--reference-games`` four-player games with duplicate deals,
printed with each bot's mean place). Each run is a simulated ladder of those four bots:
tables of 2 to 4 seats drawn at random, matches of ``MATCH_GAMES`` (5) games played by the
SDK's match loop with the in-process runner (plain deals; duplicate deals rounded up to whole
seat rotations in one match, as the platform planned them before; or a deal set, one match
of ``MATCH_GAMES`` deals per seat rotation, the sets' matches interleaved from a queue of
``QUEUED``, as the platform plans them now), rated game by game with the
platform's Elo (``arena.rating.EloSettings``: K 48 while provisional, then 16 shrinking
like 1/sqrt(games) to 4). A run's figures: the number of rated
games after which the Elo order first equals the reference order (Kendall tau = 1), the
number after which it stays so for the rest of the run's budget ("for good", a run wrong
at the end counting as beyond the budget), and the share of the second half's matches
after which it is right; over the seeded runs, the medians (with the quartiles of "for
good") and the mean share, for each kind of deal. "For good" is what "the games the ladder
needs before its order matches" means; the first time comes early by chance (four bots
fall in the right order one time in 24). ``--k`` and ``--min-k`` are what-ifs, not the
platform: the K of a bot's first established game and its floor (``--min-k`` equal to
``--k`` is a fixed K: at K 16 Elo's own noise swaps close neighbours now and then for
ever, so "for good" lands near the end of any budget; benchmarks/deal_variance.py measures
the cards' share of the noise).

``--match-games 5,10,20,40`` asks another question (issue 31): how the games the ladder needs
depend on the length of its matches. Only deal sets are played then, of each length G in
turn (G deals per seat rotation) on the same seeds: the same tables drawn in the same order,
the same Elo; only the games each match holds differ. ``benchmarks/match_length.py`` puts
these figures beside the pipeline's rated games per hour at each G.

Run: ``python benchmarks/ladder_convergence.py [--field house|close] [--runs N]
[--budget GAMES] [--k K] [--min-k K] [--match-games G,G,...]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rating_calibration import add_k_what_ifs, k_what_if

from arena.rating import INITIAL_RATING, EloSettings, rate_series
from cucumbers.games import rules_for
from cucumbers.match import derive_seed, duplicate_games, play_match
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.runners.inprocess import InProcessRunner

HOUSE = ("heuristic", "highest", "random", "lowest")
MATCH_GAMES = 5
#: The close field: how often each bot plays a random card instead of the heuristic's.
ERRORS = (0.0, 0.1, 0.2, 0.3)

ERRING_BOT = """import random

from cucumbers.bots.heuristic import HeuristicBot


class Erring(HeuristicBot):
    \"\"\"The heuristic bot, but a random legal card with probability {error}, drawn from
    the position itself (hand, trick, round): the same position, the same answer.\"\"\"

    def play(self, view):
        position = (view.hand, tuple(p.card for p in view.trick), view.round_number,
                    view.trick_number, view.scores)
        dice = random.Random(repr(position))
        if dice.random() < {error}:
            return dice.choice(view.legal)
        return super().play(view)
"""


def close_field(folder: Path) -> dict[str, BotSpec]:
    specs = {}
    for error in ERRORS:
        name = f"err{round(100 * error):02d}"
        path = folder / f"{name}.py"
        path.write_text(ERRING_BOT.format(error=error))
        specs[name] = BotSpec(str(path), name)
    return specs


def reference_order(
    specs: dict[str, BotSpec], games: int
) -> tuple[tuple[str, ...], dict[str, float]]:
    """The order of a local round robin: every bot at one four-seat table, duplicate
    deals, ``games`` games; with each bot's mean place."""
    names = list(specs)
    outcomes = play_match(
        rules_for("five-cucumbers"),
        [specs[name] for name in names],
        InProcessRunner(Limits()),
        seed=derive_seed("reference", games),
        game_numbers=range(1, duplicate_games(games, len(names)) + 1),
        keep_replays=False,
        duplicate=True,
    )
    places = dict.fromkeys(names, 0.0)
    count = 0
    for outcome in outcomes:
        count += 1
        for i, name in enumerate(names):
            places[name] += outcome.place_of_bot(i)
    means = {name: total / count for name, total in places.items()}
    return tuple(sorted(names, key=means.__getitem__)), means


@dataclass(frozen=True, slots=True)
class Run:
    """One simulated ladder: the rated games after which the Elo order was first the
    reference order (None: never), after which it stayed so to the end of the budget
    (None: it was wrong at the end), and the share of the second half's matches after
    which it was right."""

    first: int | None
    settled: int | None
    right_late: float


#: How a run's tables play their deals: plain; duplicate deals with every rotation in one
#: match (one set of bot processes: before deal sets); duplicate deals as the platform now
#: plays them, a deal set (one match of ``MATCH_GAMES`` deals per seat rotation, fresh
#: processes each), its matches queued together and played interleaved with other sets'.
SCHEMES = ("plain", "one-match", "sets")
#: Matches queued at once in the ``sets`` scheme (the ladder keeps about this many): the
#: next match played is any of them, as with several workers taking from one queue.
QUEUED = 8


@dataclass(frozen=True, slots=True)
class Planned:
    """One match of a simulated ladder: its bots, seed, game count and rotation."""

    table: tuple[str, ...]
    seed: int
    games: int
    duplicate: bool
    rotation: int | None = None


def planned_matches(
    scheme: str, seed: int, names: Sequence[str], match_games: int = MATCH_GAMES
) -> Iterator[Planned]:
    """The matches of a run, in the order they are played, of ``match_games`` games (deals
    per rotation): the tables, seeds and interleaving depend on ``seed`` alone, never on
    the length, so runs of different lengths on one seed draw the same tables."""
    rng = random.Random(seed)
    match = 0
    pending: list[Planned] = []
    while True:
        match += 1
        table = tuple(rng.sample(names, rng.randint(2, 4)))
        match_seed = derive_seed("convergence", seed, match)
        if scheme == "plain":
            yield Planned(table, match_seed, match_games, False)
        elif scheme == "one-match":
            yield Planned(table, match_seed, duplicate_games(match_games, len(table)), True)
        else:
            pending += [
                Planned(table, match_seed, match_games, True, rotation)
                for rotation in range(len(table))
            ]
            while len(pending) >= QUEUED:
                yield pending.pop(rng.randrange(len(pending)))


def run_ladder(
    specs: dict[str, BotSpec],
    reference: Sequence[str],
    scheme: str,
    budget: int,
    seed: int,
    settings: EloSettings,
    match_games: int = MATCH_GAMES,
) -> Run:
    """One seeded ladder of the bots of ``specs`` for ``budget`` rated games, its matches
    of ``match_games`` games (deals per rotation with deal sets)."""
    rules = rules_for("five-cucumbers")
    names = tuple(reference)
    elo = dict.fromkeys(names, INITIAL_RATING)
    played = dict.fromkeys(names, 0)
    games = 0
    settled: int | None = None
    first: int | None = None
    late: list[bool] = []
    for planned in planned_matches(scheme, seed, names, match_games):
        if games >= budget:
            break
        table = planned.table
        outcomes = list(
            play_match(
                rules,
                [specs[name] for name in table],
                InProcessRunner(Limits()),
                seed=planned.seed,
                game_numbers=range(1, planned.games + 1),
                keep_replays=False,
                duplicate=planned.duplicate,
                rotation=planned.rotation,
            )
        )
        placements = [[outcome.place_of_bot(i) for i in range(len(table))] for outcome in outcomes]
        rated = rate_series(
            [elo[b] for b in table], [played[b] for b in table], placements, settings
        )
        for i, bot in enumerate(table):
            elo[bot] = rated[-1].after[i]
            played[bot] += planned.games
        games += planned.games
        right = tuple(sorted(names, key=lambda b: -elo[b])) == names
        if right and first is None:
            first = games
        if right and settled is None:
            settled = games
        elif not right:
            settled = None
        if games > budget // 2:
            late.append(right)
    return Run(first, settled, sum(late) / len(late) if late else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--budget", type=int, default=400, help="rated games per run")
    parser.add_argument("--field", choices=("house", "close"), default="house")
    parser.add_argument("--reference-games", type=int, default=2000)
    parser.add_argument(
        "--match-games",
        type=games_list,
        help="compare deal sets of these games per match (deals per rotation), e.g. 5,10,20,40,"
        " on the same seeds, instead of the three kinds of deals",
    )
    add_k_what_ifs(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        specs, reference = field_and_reference(args.field, args.reference_games, Path(folder))
        if args.match_games:
            report_lengths(
                specs, reference, args.runs, args.budget, k_what_if(args), args.match_games
            )
        else:
            report(specs, reference, args.runs, args.budget, k_what_if(args))


def field_and_reference(
    field: str, reference_games: int, folder: Path
) -> tuple[dict[str, BotSpec], tuple[str, ...]]:
    """The bots of ``field`` (``house`` or ``close``, whose bot files go into ``folder``)
    and their reference order from ``reference_games`` games, printed with mean places."""
    if field == "house":
        specs = {name: BotSpec(f"builtin:{name}", name) for name in HOUSE}
    else:
        specs = close_field(folder)
    reference, means = reference_order(specs, reference_games)
    print(
        f"reference ({reference_games} four-seat games, duplicate deals): "
        + ", ".join(f"{name} {means[name]:.3f}" for name in reference)
    )
    return specs, reference


def games_list(text: str) -> list[int]:
    """``5,10,20`` as [5, 10, 20]: games per match, each at least 1."""
    lengths = [int(part) for part in text.split(",") if part.strip()]
    if not lengths or min(lengths) < 1:
        raise argparse.ArgumentTypeError(f"games per match, each at least 1: {text!r}")
    return lengths


@dataclass(frozen=True, slots=True)
class Summary:
    """The figures of a batch of seeded runs: medians of the games to the right order first
    and for good (with the quartiles of the latter; a run never right, or wrong at the end,
    counts as beyond the budget), how many were right at the end, and the mean share of the
    second half's matches after which the order was right."""

    first: float
    settled: float
    settled_low: float
    settled_high: float
    right_at_end: int
    runs: int
    right_late: float

    def line(self) -> str:
        return (
            f"median {self.first:g} games to the right order first, {self.settled:g} to it"
            f" for good (quartiles {self.settled_low:g}-{self.settled_high:g};"
            f" {self.right_at_end}/{self.runs} right at the end);"
            f" right after {self.right_late:.0%} of the second half's matches"
        )


def summarise(results: Sequence[Run], budget: int) -> Summary:
    never = budget + 1  # a run that never got there counts as beyond the budget
    first = statistics.median(r.first if r.first is not None else never for r in results)
    settled_runs = [r.settled if r.settled is not None else never for r in results]
    # The quartiles too: a median alone hides runs that settle late or never.
    low, settled, high = statistics.quantiles(settled_runs, n=4, method="inclusive")
    return Summary(
        first,
        settled,
        low,
        high,
        sum(r.settled is not None for r in results),
        len(results),
        statistics.fmean(r.right_late for r in results),
    )


def converge_by_length(
    specs: dict[str, BotSpec],
    reference: Sequence[str],
    runs: int,
    budget: int,
    settings: EloSettings,
    lengths: Sequence[int],
) -> dict[int, Summary]:
    """Deal sets of each length in ``lengths`` (games per match), ``runs`` seeded ladders
    each, the same seeds for every length."""
    return {
        games: summarise(
            [
                run_ladder(specs, reference, "sets", budget, seed, settings, games)
                for seed in range(runs)
            ],
            budget,
        )
        for games in lengths
    }


def report_lengths(
    specs: dict[str, BotSpec],
    reference: Sequence[str],
    runs: int,
    budget: int,
    settings: EloSettings,
    lengths: Sequence[int],
) -> dict[int, Summary]:
    print(
        f"{runs} ladders of {', '.join(reference)}, {budget} rated games each, deal sets of"
        f" {', '.join(map(str, lengths))} games per match (deals per rotation), the same seeds"
    )
    summaries: dict[int, Summary] = {}
    for games in lengths:  # printed as each length is done: the run takes minutes
        summaries |= converge_by_length(specs, reference, runs, budget, settings, [games])
        print(f"  {games:3d} games a match: {summaries[games].line()}", flush=True)
    return summaries


def report(
    specs: dict[str, BotSpec],
    reference: Sequence[str],
    runs: int,
    budget: int,
    settings: EloSettings,
) -> None:
    print(
        f"{runs} ladders of {', '.join(reference)}, {budget} rated games each,"
        f" K {settings.provisional_k:g} for a bot's first {settings.provisional_games} games"
        f" then {settings.k:g} shrinking like 1/sqrt(games) to {settings.min_k:g}"
    )
    labels = {
        "plain": "plain deals                  ",
        "one-match": "duplicate, one match (before)",
        "sets": "duplicate, deal sets (now)   ",
    }
    for scheme in SCHEMES:
        results = [
            run_ladder(specs, reference, scheme, budget, seed, settings) for seed in range(runs)
        ]
        print(f"  {labels[scheme]}: {summarise(results, budget).line()}")


if __name__ == "__main__":
    main()
