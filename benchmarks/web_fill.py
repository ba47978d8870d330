"""A big ladder written straight into PostgreSQL for the load benchmark (``web.py``).

10,000 bots of 1,000 owners, 200,000 finished ladder matches of 5 games (1,000,000 rated
games) with their participants and every seat's rating change (about 4 million rows), and
one unrated validation match per version. Nothing is played: each bot has a hidden
strength, a game's places are that strength plus noise, and ratings move by multiplayer Elo
(``arena.rating``'s, with the platform's K schedule), so ratings, places and histories
look like a real ladder's. Bot 1 (``veteran``) sits at one table in a hundred: 10,000 games.

Rows go in by ``COPY`` in chunks. The three big tables lose their secondary indexes and
constraints while they are filled and get them back afterwards, exactly as the migrations
made them (their definitions are read from the catalogue first): checking a foreign key
row by row costs more than the rest of the filling together.
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.rating import EloSettings, game_deltas

BOTS = 10_000
OWNERS = 1_000
MATCHES = 200_000
GAMES_PER_MATCH = 5
VETERAN = 1  # bot id
VETERAN_EVERY = 100  # matches: 2,000 matches, 10,000 games
CHUNK = 5_000  # matches per COPY round
ELO = EloSettings()
START = datetime(2025, 1, 1, tzinfo=UTC)
MATCH_SPACING = timedelta(seconds=120)  # a finished match every two minutes, for a year
BIG_TABLES = ("matches_participant", "matches_matchgame", "matches_ratingchange")
BUILTINS = ("random", "lowest", "highest")
SEATS = {"five-cucumbers": 6, "concombre": 7}  # the most seats at a ladder table


@dataclass(frozen=True)
class Filled:
    """What the benchmark needs to know about the filled database."""

    bots: int
    matches: int
    rated_games: int
    rating_changes: int
    veteran: int
    veteran_games: int
    sample_match: int


def _ts(moment: datetime) -> str:
    return moment.isoformat()


def _copy(cursor: Any, table: str, columns: str, lines: list[str]) -> None:
    if not lines:
        return
    with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        buffer = io.StringIO()
        buffer.writelines(lines)
        copy.write(buffer.getvalue())


def _schema_of(cursor: Any, table: str) -> tuple[list[str], list[str], list[str]]:
    """(drops, index creations, constraint additions) that remove and restore the table's
    secondary indexes and its foreign key and unique constraints."""
    cursor.execute(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint"
        " WHERE conrelid = %s::regclass AND contype IN ('f', 'u')",
        [table],
    )
    constraints = cursor.fetchall()
    cursor.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s"
        " AND indexname NOT IN (SELECT conname FROM pg_constraint"
        "  WHERE conrelid = %s::regclass AND contype IN ('p', 'u'))",
        [table, table],
    )
    indexes = cursor.fetchall()
    drops = [f'ALTER TABLE {table} DROP CONSTRAINT "{name}"' for name, _ in constraints]
    drops += [f'DROP INDEX "{name}"' for name, _ in indexes]
    creates = [definition for _, definition in indexes]
    adds = [f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {d}' for name, d in constraints]
    return drops, creates, adds


def _users_and_bots(
    cursor: Any, rng: random.Random
) -> tuple[dict[int, tuple[str, float]], dict[int, int]]:
    """Owners, bots with one or two versions each; returns bot id -> (game, strength) and
    bot id -> its active version's id."""
    joined = _ts(START - timedelta(days=30))
    _copy(
        cursor,
        "auth_user",
        "id, password, is_superuser, username, first_name, last_name, email, is_staff,"
        " is_active, date_joined",
        [
            f"{u}\t!\tf\towner{u:04d}\t\t\towner{u:04d}@example.org\tf\tt\t{joined}\n"
            for u in range(1, OWNERS + 1)
        ],
    )
    bots: dict[int, tuple[str, float]] = {}
    playing: dict[int, int] = {}
    bot_lines, version_lines = [], []
    version_id = 0
    for b in range(1, BOTS + 1):
        game = "concombre" if b % 10 == 9 else "five-cucumbers"
        active = "f" if b % 20 == 7 else "t"  # one in twenty has been deactivated
        bots[b] = (game, rng.gauss(0.0, 1.0))
        name = "veteran" if b == VETERAN else f"bot{b:05d}"
        created = _ts(START - timedelta(days=20, minutes=b))
        owner = (b - 1) % OWNERS + 1
        bot_lines.append(f"{b}\t{owner}\t{name}\t{game}\t{active}\t1500\t0\t0\t0\t{created}\n")
        for number in range(1, 2 + (b % 3 == 0)):
            version_id += 1
            status = "active" if number == 1 + (b % 3 == 0) else "retired"
            if status == "active":
                playing[b] = version_id
            version_lines.append(
                f"{version_id}\t{b}\t{number}\tsources/{b}/v{number}.py\tbot.py\t{'0' * 64}"
                f"\t1200\t{created}\t{status}\t{created}\t{created}\t\t\t\n"
            )
    _copy(
        cursor,
        "bots_bot",
        "id, owner_id, name, game, active, rating, games, wins, games_since_version, created_at",
        bot_lines,
    )
    _copy(
        cursor,
        "bots_botversion",
        "id, bot_id, number, source, filename, sha256, size, created_at, status,"
        " validation_started_at, validated_at, rejection_kind, rejection_detail, stderr_tail",
        version_lines,
    )
    cursor.execute(
        "UPDATE bots_bot b SET active_version_id = v.id FROM bots_botversion v"
        " WHERE v.bot_id = b.id AND v.status = 'active'"
    )
    return bots, playing


class _Ladder:
    """Plays nothing: draws tables and places, and keeps the Elo ratings as they move."""

    def __init__(
        self, bots: dict[int, tuple[str, float]], playing: dict[int, int], rng: random.Random
    ) -> None:
        self.rng = rng
        self.strength = {b: s for b, (_, s) in bots.items()}
        self.pool = {
            game: [b for b, (g, _) in bots.items() if g == game and b % 20 != 7]
            for game in ("five-cucumbers", "concombre")
        }
        self.rating = dict.fromkeys(bots, 1500.0)
        self.games = dict.fromkeys(bots, 0)
        self.wins = dict.fromkeys(bots, 0)
        self.version = playing

    def table(self, m: int) -> tuple[str, list[int]]:
        game = "concombre" if m % 10 == 9 else "five-cucumbers"  # m % 100 == 0: never
        seats = self.rng.sample(self.pool[game], self.rng.randint(2, SEATS[game]))
        if m % VETERAN_EVERY == 0 and VETERAN not in seats:
            seats[0] = VETERAN
        return game, seats

    def play(self, seats: list[int]) -> tuple[list[int], list[float]]:
        """One game: participant indexes best first, and each seat's rating change."""
        noisy = [self.strength[b] + self.rng.gauss(0.0, 1.2) for b in seats]
        order = sorted(range(len(seats)), key=lambda i: -noisy[i])
        place = [0] * len(seats)
        for p, i in enumerate(order):
            place[i] = p + 1
        ks = [ELO.k_for(self.games[b]) for b in seats]
        deltas = game_deltas([self.rating[b] for b in seats], place, ks)
        return order, deltas


def _ladder_rows(
    ladder: _Ladder, first: int, last: int, ids: dict[str, int]
) -> Iterator[tuple[str, list[str]]]:
    matches, seats_rows, games_rows, changes = [], [], [], []
    for m in range(first, last):
        game, seats = ladder.table(m)
        match_id = m + 1
        finished = START + MATCH_SPACING * m
        started = finished - timedelta(seconds=40)
        matches.append(
            f"{match_id}\t{game}\tladder\tfinished\tt\t{m}\t{GAMES_PER_MATCH}\tdocker"
            f"\tarena@rack1\t{_ts(started - timedelta(seconds=5))}\t{_ts(started)}"
            f"\t{_ts(finished)}\t1\t\t\\N\t\\N\n"
        )
        before = [ladder.rating[b] for b in seats]
        place_sum = [0] * len(seats)
        wins = [0] * len(seats)
        for number in range(1, GAMES_PER_MATCH + 1):
            order, deltas = ladder.play(seats)
            at = _ts(started + timedelta(seconds=8 * number))
            games_rows.append(
                f"{match_id}\t{number}\t{m * 10 + number}\t[{', '.join(map(str, order))}]"
                f"\t[]\treplays/{match_id}/{number}.json.gz\t4000\t\n"
            )
            for p, i in enumerate(order):
                place_sum[i] += p + 1
            wins[order[0]] += 1
            for i, b in enumerate(seats):
                old = ladder.rating[b]
                new = old + deltas[i]
                ladder.rating[b] = new
                ladder.games[b] += 1
                ids["change"] += 1
                changes.append(
                    f"{ids['change']}\t{b}\t{ladder.version[b]}\t{match_id}\t{number}"
                    f"\t{old:.3f}\t{new:.3f}\t{deltas[i]:.3f}\t{at}\n"
                )
        means = [s / GAMES_PER_MATCH for s in place_sum]
        for i, b in enumerate(seats):
            ladder.wins[b] += wins[i]
            ids["seat"] += 1
            standing = 1 + sum(other < means[i] for other in means)
            seats_rows.append(
                f"{ids['seat']}\t{match_id}\t{i}\t{b}\t{ladder.version[b]}\t"
                f"{'veteran' if b == VETERAN else f'bot{b:05d}'}\t{standing}\t{means[i]:.2f}"
                f"\t{wins[i]}\t0\t{before[i]:.3f}\t{ladder.rating[b]:.3f}\n"
            )
    yield "matches_match", matches
    yield "matches_participant", seats_rows
    yield "matches_matchgame", games_rows
    yield "matches_ratingchange", changes


COLUMNS = {
    "matches_match": "id, game, kind, status, rated, seed, games_planned, sandbox, worker,"
    " created_at, started_at, finished_at, attempts, failure_reason, sent_at, retry_at",
    "matches_participant": 'id, match_id, "index", bot_id, version_id, name, placement,'
    " mean_place, wins, faults, rating_before, rating_after",
    "matches_matchgame": "match_id, number, seed, placement, faults, replay, replay_size, outputs",
    "matches_ratingchange": "id, bot_id, version_id, match_id, game, before, after, delta,"
    " created_at",
}


def _validations(cursor: Any, ids: dict[str, int]) -> None:
    """One unrated validation match per version (candidate and the built-ins, 2 games),
    older than the ladder: private rows the public pages must leave out."""
    cursor.execute("SELECT id, bot_id FROM bots_botversion ORDER BY id")
    matches, seats, games = [], [], []
    for offset, (version_id, bot_id) in enumerate(cursor.fetchall()):
        match_id = MATCHES + 1 + offset
        at = _ts(START - timedelta(days=10, seconds=offset))
        matches.append(
            f"{match_id}\tfive-cucumbers\tvalidation\tfinished\tf\t{offset}\t2\tdocker"
            f"\tarena@rack1\t{at}\t{at}\t{at}\t1\t\t\\N\t\\N\n"
        )
        for index, name in enumerate(["candidate", *BUILTINS]):
            ids["seat"] += 1
            bot, version = (bot_id, version_id) if index == 0 else ("\\N", "\\N")
            seats.append(
                f"{ids['seat']}\t{match_id}\t{index}\t{bot}\t{version}\t{name}"
                f"\t{index + 1}\t{index + 1}\t0\t0\t\\N\t\\N\n"
            )
        for number in (1, 2):
            games.append(
                f"{match_id}\t{number}\t{number}\t[0, 1, 2, 3]\t[]"
                f"\treplays/{match_id}/{number}.json.gz\t4000\t\n"
            )
    _copy(cursor, "matches_match", COLUMNS["matches_match"], matches)
    _copy(cursor, "matches_participant", COLUMNS["matches_participant"], seats)
    _copy(cursor, "matches_matchgame", COLUMNS["matches_matchgame"], games)
    cursor.execute("UPDATE bots_botversion v SET validation_match_id = %s + v.id", [MATCHES])


def fill(dsn: str, *, seed: int = 11, progress: Any = print) -> Filled:
    """Fill the (freshly migrated, empty) database at ``dsn``."""
    import psycopg

    rng = random.Random(seed)
    with psycopg.connect(dsn) as conn, conn.cursor() as cursor:
        bots, playing = _users_and_bots(cursor, rng)
        conn.commit()  # its deferred foreign key checks, before the tables are altered
        restore: list[str] = []
        plans = [_schema_of(cursor, table) for table in BIG_TABLES]
        for drops, creates, adds in plans:
            for statement in drops:
                cursor.execute(statement)
            restore += creates + adds
        conn.commit()
        ladder = _Ladder(bots, playing, rng)
        ids = {"seat": 0, "change": 0}
        for first in range(0, MATCHES, CHUNK):
            for table, lines in _ladder_rows(ladder, first, min(first + CHUNK, MATCHES), ids):
                _copy(cursor, table, COLUMNS[table], lines)
            conn.commit()
            if (first + CHUNK) % 50_000 == 0:
                progress(f"  {first + CHUNK:,} matches")
        _validations(cursor, ids)
        cursor.executemany(
            "UPDATE bots_bot SET rating = %s, games = %s, wins = %s, games_since_version = %s"
            " WHERE id = %s",
            [
                (ladder.rating[b], ladder.games[b], ladder.wins[b], ladder.games[b], b)
                for b in bots
                if ladder.games[b]
            ],
        )
        conn.commit()
        progress("  indexes and constraints back")
        for statement in restore:
            cursor.execute(statement)
        for table in ("auth_user", "bots_bot", "bots_botversion", "matches_match"):
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                f" (SELECT max(id) FROM {table}))"
            )
        for table in ("matches_participant", "matches_ratingchange"):
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                f" (SELECT max(id) FROM {table}))"
            )
        conn.commit()
        conn.autocommit = True
        cursor.execute("VACUUM ANALYZE")
    return Filled(
        bots=BOTS,
        matches=MATCHES,
        rated_games=MATCHES * GAMES_PER_MATCH,
        rating_changes=ids["change"],
        veteran=VETERAN,
        veteran_games=ladder.games[VETERAN],
        sample_match=MATCHES - 7,
    )
