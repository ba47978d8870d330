"""A tournament's schedule (arena/schedule.py): every entrant seated once a round, tables
of the allowed sizes, a heads-up field a true round robin, pairs spread evenly, byes shared,
the same schedule for the same seed."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.schedule import (
    Round,
    ScheduleError,
    TableSizes,
    default_rounds,
    plan_rounds,
    split_sizes,
)


def meetings(schedule: list[Round]) -> Counter[tuple[int, int]]:
    met: Counter[tuple[int, int]] = Counter()
    for tables in schedule:
        for table in tables:
            met.update(itertools.combinations(sorted(table), 2))
    return met


def plays(schedule: list[Round]) -> Counter[int]:
    return Counter(entrant for tables in schedule for table in tables for entrant in table)


@pytest.mark.parametrize("entrants", [2, 5, 8, 11])
def test_a_heads_up_field_meets_every_other_entrant_exactly_once(entrants: int) -> None:
    sizes = TableSizes(2, 2)
    schedule = plan_rounds(entrants, sizes, default_rounds(entrants, sizes), seed=3)
    met = meetings(schedule)
    assert set(met) == set(itertools.combinations(range(entrants), 2))
    assert set(met.values()) == {1}
    for tables in schedule:  # nobody twice in a round
        seated = [e for table in tables for e in table]
        assert len(seated) == len(set(seated))


@pytest.mark.parametrize(
    ("entrants", "smallest", "largest", "expected"),
    [
        (8, 4, 4, (4, 4)),
        (9, 3, 5, (5, 4)),
        (10, 3, 4, (4, 3, 3)),
        (7, 2, 6, (4, 3)),
        (5, 4, 4, (4,)),  # no split seats five at tables of four: one sits out
        (4, 4, 6, (4,)),
    ],
)
def test_tables_are_as_even_as_the_sizes_allow(
    entrants: int, smallest: int, largest: int, expected: tuple[int, ...]
) -> None:
    assert split_sizes(entrants, TableSizes(smallest, largest)) == expected


def test_every_round_seats_everyone_once_at_tables_of_the_allowed_sizes() -> None:
    sizes = TableSizes(3, 4)
    schedule = plan_rounds(13, sizes, 6, seed=9)
    assert len(schedule) == 6
    for tables in schedule:
        seated = sorted(e for table in tables for e in table)
        assert seated == list(range(13))
        assert all(3 <= len(table) <= 4 for table in tables)


def test_pairs_share_tables_evenly_over_the_rounds() -> None:
    sizes = TableSizes(4, 4)
    schedule = plan_rounds(30, sizes, default_rounds(30, sizes), seed=1)
    met = meetings(schedule)
    pairs = [met[pair] for pair in itertools.combinations(range(30), 2)]
    # 14 rounds of three opponents each cover the 29 others with next to no repeats.
    assert max(pairs) <= 2
    assert sum(count == 0 for count in pairs) <= 20


def test_a_small_field_is_searched_whole_so_that_pairs_left_apart_are_few() -> None:
    # Twelve entrants at tables of three or four over six rounds: every pair meets.
    sizes = TableSizes(3, 4)
    met = meetings(plan_rounds(12, sizes, default_rounds(12, sizes), seed=1))
    assert all(met[pair] for pair in itertools.combinations(range(12), 2))


def test_byes_go_round_so_everyone_plays_as_often() -> None:
    sizes = TableSizes(4, 4)
    rounds = default_rounds(5, sizes)
    assert rounds == 5  # a whole cycle: each of the five sits out once
    assert set(plays(plan_rounds(5, sizes, rounds, seed=2)).values()) == {4}
    assert set(plays(plan_rounds(7, TableSizes(2, 2), 7, seed=2)).values()) == {6}


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another() -> None:
    sizes = TableSizes(3, 3)
    assert plan_rounds(9, sizes, 4, seed=5) == plan_rounds(9, sizes, 4, seed=5)
    assert plan_rounds(9, sizes, 4, seed=5) != plan_rounds(9, sizes, 4, seed=6)


def test_a_field_too_small_for_one_table_or_bad_sizes_are_refused_with_a_reason() -> None:
    with pytest.raises(ScheduleError, match="cannot fill a table of 4"):
        plan_rounds(3, TableSizes(4, 4), 1, seed=1)
    with pytest.raises(ScheduleError, match="at least two players"):
        TableSizes(1, 4)
    with pytest.raises(ScheduleError, match="smallest no larger"):
        TableSizes(5, 4)
    with pytest.raises(ScheduleError, match="at least one"):
        plan_rounds(8, TableSizes(4, 4), 0, seed=1)
