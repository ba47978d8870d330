"""A tournament through the real pipeline: PostgreSQL, Redis, an arena worker started with
``env -i`` (the broker and the sandbox only) playing in Docker, the platform's worker
recording. House bots and uploaded bots, each validated in the sandbox first; the event's
matches go on the tournament queue, an upload made meanwhile is validated before the
event's remaining matches (the urgent queue first), the last match finishes the event, and
the standings follow the bots' strength."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.contract import MatchKind
from tests.web.factories import UserFactory
from tests.web.matches.celery_worker import (
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from tests.web.test_end_to_end import sandbox_for_this_machine
from tests.web.tournaments.helpers import HIGHEST, LOWEST, open_tournament
from web.bots.house import HOUSE_USERNAME, house_source
from web.bots.models import BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus
from web.pipeline.kinds.tournament import start
from web.tournaments.entering import enter
from web.tournaments.models import Tournament, TournamentStatus
from web.tournaments.standings import standings

pytestmark = pytest.mark.django_db(transaction=True)

GAME = "five-cucumbers"


def validated(versions: list[BotVersion]) -> bool:
    statuses = BotVersion.objects.filter(pk__in=[v.pk for v in versions]).values_list(
        "status", flat=True
    )
    return set(statuses) == {VersionStatus.ACTIVE}


def test_a_tournament_of_house_and_uploaded_bots_plays_to_the_end_through_the_arena(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]  (the validations' games)
    sandbox = sandbox_for_this_machine().value
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    house = UserFactory(username=HOUSE_USERNAME)
    ann, bob, cy = (UserFactory(username=name) for name in ("ann", "bob", "cy"))
    with (
        platform_broker(),
        platform_worker(platform_env(), platform_log),
        arena_worker(arena_env(sandbox), arena_log),
    ):
        versions = [
            upload_version(house, f"{b}.py", house_source(b).encode(), new_bot_name=f"{b}-{GAME}",
                           game=GAME, enforce_rate=False)
            for b in ("heuristic", "highest", "random", "lowest")
        ] + [
            upload_version(ann, "tall.py", HIGHEST, new_bot_name="tall", game=GAME),
            upload_version(bob, "short.py", LOWEST, new_bot_name="short", game=GAME),
        ]  # fmt: skip
        wait_for(lambda: validated(versions), 240, "the validations", arena_log, platform_log)
        tournament = open_tournament(table_size_min=3, table_size_max=3, deals_per_table=8)
        for version in versions:
            enter(version.bot.owner, tournament.pk, version.bot_id)
        start(tournament.pk)
        late = upload_version(cy, "late.py", HIGHEST + b"# late\n", new_bot_name="late", game=GAME)

        def late_validated() -> bool:
            return validated([late])

        wait_for(late_validated, 240, "the late upload's validation", arena_log, platform_log)
        pending = Match.objects.filter(
            kind=MatchKind.TOURNAMENT, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
        ).count()
        # Served before the event's queue: most of the six tables were still to play.
        assert pending >= 4

        def finished() -> bool:
            return Tournament.objects.get(pk=tournament.pk).status == TournamentStatus.FINISHED

        wait_for(finished, 300, "the tournament to finish", arena_log, platform_log)
    tournament.refresh_from_db()
    matches = Match.objects.filter(tournament_table__tournament=tournament)
    assert matches.count() == 6 * 3  # six tables, each deal set one match per rotation
    assert {(m.status, m.sandbox, m.worker, m.rated) for m in matches} == {
        (MatchStatus.FINISHED, sandbox, "test-arena", False)
    }
    table = standings(tournament)
    order = [row.entry.name.split("/")[1] for row in table.rows]
    assert order[0] == "heuristic-five-cucumbers"
    assert set(order[1:3]) == {"highest-five-cucumbers", "tall"}
    assert order[3] == "random-five-cucumbers"
    assert set(order[4:]) == {"lowest-five-cucumbers", "short"}
    assert all(row.games == 3 * 8 * 3 and row.faults == 0 for row in table.rows)
