"""A tournament's standings, from its finished matches: live while it runs, final after.

The score is comparable across table sizes: in each game an entrant scores the share of its
table it finished ahead of, ``(n - place) / (n - 1)`` (1 for a win, 0 for last), and its
score is the mean over its tables of its mean at each table. The tables are the
independent units (a table's deal set is one match per seat rotation, and its duplicate
deals tie those games together), so the 95% interval is Student's t over the entrant's
table means; entrants whose intervals overlap
the one ranked above them are marked as not separated (``≈``), as on the leaderboard.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from web.matches.models import MatchGame, MatchStatus

from .models import Entry, Tournament, TournamentMatch

#: Student's t, 97.5% quantile, by degrees of freedom (a df between two rows takes the
#: smaller row's value: a slightly wider interval, never a narrower one).
T_975 = (
    (1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (5, 2.571), (6, 2.447), (7, 2.365),
    (8, 2.306), (9, 2.262), (10, 2.228), (12, 2.179), (15, 2.131), (20, 2.086), (30, 2.042),
    (60, 2.000), (120, 1.980),
)  # fmt: skip


def t_975(df: int) -> float:
    """The quantile for ``df`` >= 1 degrees of freedom."""
    return next(quantile for row_df, quantile in reversed(T_975) if df >= row_df)


@dataclass
class Standing:
    entry: Entry
    rank: int = 0
    score: float | None = None
    score_low: float | None = None
    score_high: float | None = None
    #: Its interval overlaps the one of the entrant ranked just above: not separated.
    close_to_above: bool = False
    mean_place: float | None = None
    matches: int = 0
    games: int = 0
    wins: int = 0
    faults: int = 0
    match_scores: list[float] = field(default_factory=list, repr=False)
    places: list[int] = field(default_factory=list, repr=False)


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Over the games two entrants played at one table: how often each finished ahead."""

    ahead: int
    behind: int

    @property
    def games(self) -> int:
        return self.ahead + self.behind


@dataclass(frozen=True, slots=True)
class Standings:
    rows: list[Standing]
    #: (entry id, entry id) -> the first's record against the second.
    head_to_head: dict[tuple[int, int], HeadToHead]
    matches_done: int
    #: The schedule, round by round: each table with its match and the match's participants.
    tables: list[TournamentMatch]

    @property
    def matches_total(self) -> int:
        return len(self.tables)

    def record(self, a: int, b: int) -> HeadToHead | None:
        return self.head_to_head.get((a, b))


def standings(tournament: Tournament) -> Standings:
    entries = list(tournament.entries.all())
    rows = {entry.pk: Standing(entry) for entry in entries}
    tables = list(tournament.tables.select_related("match").prefetch_related("match__participants"))
    finished = {t.match_id: t for t in tables if t.match.status == MatchStatus.FINISHED}
    games = MatchGame.objects.filter(match_id__in=finished).values_list(
        "match_id", "placement", "faults"
    )
    # Per entrant and table (round, table): the rotations of a table's deals are one unit.
    per_table: dict[tuple[int, tuple[int, int]], list[float]] = defaultdict(list)
    ahead: dict[tuple[int, int], int] = defaultdict(int)
    for match_id, placement, faults in games.iterator():
        seated: list[int] = finished[match_id].entries
        size = len(placement)
        for place, participant in enumerate(placement, start=1):
            entry = seated[participant]
            row = rows.get(entry)
            if row is None:
                continue
            row.games += 1
            row.wins += place == 1
            row.places.append(place)
            unit = (finished[match_id].round, finished[match_id].table)
            per_table[(entry, unit)].append((size - place) / (size - 1))
            for beaten in placement[place:]:
                ahead[(entry, seated[beaten])] += 1
        for fault in faults:
            row = rows.get(seated[fault["participant"]])
            if row is not None:
                row.faults += 1
    for (entry, _), scores in per_table.items():
        if entry in rows:
            rows[entry].match_scores.append(statistics.fmean(scores))
    for row in rows.values():
        _summarise(row)
    ranked = sorted(
        rows.values(),
        key=lambda r: (r.score is None, -(r.score or 0.0), r.mean_place or 0.0, r.entry.name),
    )
    for position, row in enumerate(ranked, start=1):
        above = ranked[position - 2] if position > 1 else None
        tied = above is not None and above.score is not None and above.score == row.score
        row.rank = above.rank if tied and above else position
        row.close_to_above = bool(
            above is not None
            and row.score_high is not None
            and above.score_low is not None
            and row.score_high >= above.score_low
        )
    ids = [entry.pk for entry in entries]
    head_to_head = {
        (a, b): HeadToHead(ahead[(a, b)], ahead[(b, a)])
        for a in ids
        for b in ids
        if a != b and (ahead[(a, b)] or ahead[(b, a)])
    }
    # Played counts the held rotations too (progress, no result): their standings wait for
    # their whole deal set, and only finished matches are in the table above.
    played = sum(t.match.status in (MatchStatus.FINISHED, MatchStatus.HELD) for t in tables)
    return Standings(ranked, head_to_head, played, tables)


def _summarise(row: Standing) -> None:
    row.matches = len(row.match_scores)
    if not row.match_scores:
        return
    row.score = statistics.fmean(row.match_scores)
    row.mean_place = statistics.fmean(row.places)
    if row.matches >= 2:
        spread = (
            t_975(row.matches - 1) * statistics.stdev(row.match_scores) / math.sqrt(row.matches)
        )
        row.score_low = max(0.0, row.score - spread)
        row.score_high = min(1.0, row.score + spread)
