"""The database goes away under a running pipeline, as the platform's worker sees it: its
connections to PostgreSQL run through a relay that the test cuts (every connection closed,
new ones refused) and restores, as a restart or a longer outage does. Arena workers hold no
database and go on playing; the reports they send meanwhile are recorded once it is back:
every match finished, recorded once, no attempt lost to the outage."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.db import connection

from tests.relay import TcpRelay
from tests.web.matches.arena_helpers import assert_history_consistent, make_active
from tests.web.matches.celery_worker import (
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from web.bots.models import Bot
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline.kinds.ladder import queue_ladder_matches

pytestmark = pytest.mark.django_db(transaction=True)


def played(log: Path) -> int:
    """Matches the arena worker has played and reported, by its log."""
    return len(re.findall(r"match \d+ attempt \S+: played", log.read_text(errors="replace")))


def test_reports_sent_while_the_database_is_away_are_recorded_once_it_is_back(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    for name in ("fox", "gus", "hap"):
        make_active(name)
    db = connection.settings_dict
    relay = TcpRelay(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))
    # The platform's worker reaches PostgreSQL through the relay only.
    env = platform_env(
        DATABASE_URL=(
            f"postgres://{db['USER']}:{db['PASSWORD']}@127.0.0.1:{relay.port}/{db['NAME']}"
        )
    )
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    with (
        platform_broker(),
        platform_worker(env, platform_log),
        arena_worker(arena_env("process"), arena_log),
    ):
        first = queue_ladder_matches("concombre", 2)
        wait_for(
            lambda: all(Match.objects.get(pk=m.pk).status == MatchStatus.FINISHED for m in first),
            120,
            "the first matches",
            arena_log,
            platform_log,
        )
        relay.cut()  # the database is gone for the platform's worker
        before = played(arena_log)
        during = queue_ladder_matches("concombre", 4)  # this process still reaches it
        wait_for(lambda: played(arena_log) >= before + 4, 120, "play during the outage", arena_log)
        assert all(Match.objects.get(pk=m.pk).status != MatchStatus.FINISHED for m in during)
        relay = TcpRelay(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432), relay.port)
        wait_for(
            lambda: all(Match.objects.get(pk=m.pk).status == MatchStatus.FINISHED for m in during),
            240,
            "the reports recorded after the outage",
            arena_log,
            platform_log,
        )
    relay.cut()
    matches = [*first, *during]
    for match in matches:
        match.refresh_from_db()
        seats = match.participants.count()
        games = match.games_planned  # 2: one rotation of a deal set, 2 deals
        assert (games, match.attempts, match.games.count()) == (2, 1, games)
        assert RatingChange.objects.filter(match=match).count() == seats * games
    assert "OperationalError" in platform_log.read_text(errors="replace")
    assert_history_consistent(list(Bot.objects.all()))
