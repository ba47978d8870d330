"""A tournament's schedule: who sits at which table in each round (pure functions, no
Django; the site's ``web.tournaments`` stores and plays it).

The format is a **round robin over tables**, fixed at the start:

- heads-up events (tables of two) are a classic round robin by the circle method: every
  pair meets once over ``n - 1`` rounds (``n`` rounds and a bye each when ``n`` is odd);
- larger tables: each round seats every entrant once (tables as even in size as the sizes
  allowed permit; byes only when no split fits, given to those who sat out least), choosing
  among many seeded candidate splits the one whose tables repeat the fewest earlier
  meetings, so that over the rounds pairs share tables about evenly (a greedy search, not
  an optimum: in a small field a pair may still never meet).

Why this and not Swiss rounds: the whole schedule is known at the start, so every match can
be queued at once and played in parallel by every arena host (a Swiss round waits for the
slowest match of the round before), nothing depends on results that could be disputed, and
every entrant meets the same field. Swiss saves games when entrants are many and tables
small; events here are tens of bots, and the duplicate deals (each deal once per seat
rotation) already take the luck of the cards out of every table.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass

#: Candidate splits tried per round (larger tables): a field of 30 in tables of four plans
#: its 10 rounds in about a second.
CANDIDATE_SPLITS = 200

#: Fields this small have their whole schedule drawn this many times (each round among
#: fewer candidate splits), the best kept.
SMALL_FIELD = 16
WHOLE_SCHEDULES = 20
SMALL_FIELD_SPLITS = 40

#: Entrants (indexes 0..n-1) at one table, in seat order.
Table = tuple[int, ...]
Round = tuple[Table, ...]


class ScheduleError(ValueError):
    """The entrants cannot be seated as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class TableSizes:
    smallest: int
    largest: int

    def __post_init__(self) -> None:
        if not 2 <= self.smallest <= self.largest:
            raise ScheduleError(
                f"table sizes {self.smallest}-{self.largest}: at least two players a table,"
                " the smallest no larger than the largest"
            )


def split_sizes(entrants: int, sizes: TableSizes) -> tuple[int, ...]:
    """The sizes of one round's tables: every entrant seated, tables as even as the allowed
    sizes permit (fewest tables first); when no split seats everyone, as many tables of the
    largest size as the entrants fill (the others sit out the round)."""
    if entrants < sizes.smallest:
        raise ScheduleError(f"{entrants} entrants cannot fill a table of {sizes.smallest}")
    for tables in range(math.ceil(entrants / sizes.largest), entrants // sizes.smallest + 1):
        base, extra = divmod(entrants, tables)
        if sizes.smallest <= base and base + (extra > 0) <= sizes.largest:
            return (base + 1,) * extra + (base,) * (tables - extra)
    return (sizes.largest,) * (entrants // sizes.largest)


def default_rounds(entrants: int, sizes: TableSizes) -> int:
    """Rounds enough for every entrant to be able to meet every other once: a full round
    robin when heads-up, else ``ceil((n - 1) / (table - 1))`` at the smallest table, rounded
    up to a whole cycle of byes when not everyone can be seated each round."""
    if sizes.largest == 2:
        return entrants - 1 if entrants % 2 == 0 else entrants
    rounds = max(1, math.ceil((entrants - 1) / (sizes.smallest - 1)))
    seats = sum(split_sizes(entrants, sizes))
    # When some must sit out each round, a whole cycle of byes: everyone plays as often.
    cycle = entrants // math.gcd(entrants, seats)
    return math.ceil(rounds / cycle) * cycle


def plan_rounds(entrants: int, sizes: TableSizes, rounds: int, seed: int) -> list[Round]:
    """The schedule: ``rounds`` rounds of tables of entrant indexes, the same for the same
    arguments (``seed`` decides the seats and the choice among equal splits)."""
    if rounds < 1:
        raise ScheduleError(f"{rounds} rounds: at least one")
    split = split_sizes(entrants, sizes)
    rng = random.Random(seed)
    if split and all(size == 2 for size in split) and sizes.largest == 2:
        return _circle(entrants, rounds, rng)
    # Small fields: whole schedules drawn again, the best kept (a pair that never meets is
    # what a greedy round-by-round search leaves most often there).
    small = entrants <= SMALL_FIELD
    attempts, splits = (WHOLE_SCHEDULES, SMALL_FIELD_SPLITS) if small else (1, CANDIDATE_SPLITS)
    drawn = [_greedy_schedule(entrants, split, rounds, splits, rng) for _ in range(attempts)]
    return min(drawn, key=lambda schedule: _spread(entrants, schedule))


def _greedy_schedule(
    entrants: int, split: tuple[int, ...], rounds: int, splits: int, rng: random.Random
) -> list[Round]:
    """Round by round, the candidate split that repeats the fewest earlier meetings."""
    met: Counter[tuple[int, int]] = Counter()
    sat_out = [0] * entrants
    schedule = []
    for _ in range(rounds):
        seated = _seated(entrants, sum(split), sat_out, rng)
        best = min(
            (_candidate(seated, split, met, rng) for _ in range(splits)),
            key=lambda candidate: candidate[0],
        )[1]
        for table in best:
            met.update(itertools.combinations(sorted(table), 2))
        schedule.append(best)
    return schedule


def _spread(entrants: int, schedule: list[Round]) -> tuple[int, int]:
    """How unevenly a schedule seats the pairs: the pairs that never meet, then the sum of
    the squares of the meetings (lower is better)."""
    met: Counter[tuple[int, int]] = Counter(
        pair
        for tables in schedule
        for table in tables
        for pair in itertools.combinations(sorted(table), 2)
    )
    never = sum(1 for pair in itertools.combinations(range(entrants), 2) if not met[pair])
    return never, sum(count * count for count in met.values())


def _seated(entrants: int, seats: int, sat_out: list[int], rng: random.Random) -> list[int]:
    """Who plays this round: everyone, or (when some must sit out) those who sat out most,
    ties drawn; counts those left out."""
    order = list(range(entrants))
    rng.shuffle(order)
    order.sort(key=lambda entrant: -sat_out[entrant])
    for entrant in order[seats:]:
        sat_out[entrant] += 1
    return order[:seats]


def _candidate(
    seated: list[int], split: tuple[int, ...], met: Counter[tuple[int, int]], rng: random.Random
) -> tuple[int, Round]:
    """A random split of ``seated`` into tables of ``split`` sizes, grown greedily (each seat
    to the entrant who met the table least), with its cost: the sum over its tables of the
    squares of earlier meetings, which spreads repeats instead of stacking them."""
    left = seated[:]
    rng.shuffle(left)
    tables = []
    cost = 0
    for size in split:
        table = [left.pop()]
        while len(table) < size:
            scores = [sum(met[_pair(e, t)] for t in table) for e in left]
            pick = scores.index(min(scores))
            table.append(left.pop(pick))
        cost += sum(met[_pair(a, b)] ** 2 for a, b in itertools.combinations(table, 2))
        rng.shuffle(table)
        tables.append(tuple(table))
    return cost, tuple(tables)


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _circle(entrants: int, rounds: int, rng: random.Random) -> list[Round]:
    """The circle method: entrant 0 fixed, the others turning one place a round; with an
    odd field a phantom entrant gives byes. Past a full cycle the rounds repeat."""
    order = list(range(entrants))
    rng.shuffle(order)
    if entrants % 2:
        order.append(-1)  # the phantom: whoever meets it sits out
    count = len(order)
    schedule: list[Round] = []
    ring = order[1:]
    for number in range(rounds):
        turned = ring[number % (count - 1) :] + ring[: number % (count - 1)]
        line = [order[0], *turned]
        tables: list[Table] = []
        for k in range(count // 2):
            a, b = line[k], line[count - 1 - k]
            if a >= 0 and b >= 0:
                # Alternate who sits first so the rotation does not favour a side.
                tables.append((a, b) if (number + k) % 2 == 0 else (b, a))
        schedule.append(tuple(tables))
    return schedule
