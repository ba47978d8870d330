"""Duplicate deals without memory, tried from the attacker's side: a bot that remembers
every deal it has seen (``memorising_bot_source.py``, legal play only) reads its opponents'
hands when one of its deals comes back in the same process. Played by one process through
every rotation (the old duplicate match, still what ``cucumbers play --duplicate`` does on
one's desk) it predicts most of the cards it then sees; through the real pipeline (the
platform on PostgreSQL, Redis, an arena worker in this machine's sandbox, Docker when it
answers) in ladder deal sets and a tournament, where each rotation is a match of its own
with fresh processes, it predicts none."""

from __future__ import annotations

import hashlib
import re
import uuid
from pathlib import Path

import pytest

from arena.contract import JobLimits, JobSeat, MatchJob, MatchKind
from arena.playing import play_job
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.matches.celery_worker import (
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from tests.web.matches.memorising_bot import SOURCE
from tests.web.test_end_to_end import sandbox_for_this_machine
from tests.web.tournaments.helpers import HIGHEST, open_tournament
from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus, Participant
from web.matches.replays import read_outputs
from web.pipeline.kinds.ladder import queue_ladder_matches
from web.pipeline.kinds.tournament import start
from web.tournaments.entering import enter

GAME = "five-cucumbers"
TALLY = re.compile(
    r"memory: recognised (\d+) hands, foresaw (\d+) deals, predicted (\d+) of (\d+)"
    r" opponents' cards"
)


def tally(output: str) -> tuple[int, int, int]:
    """The bot's last tally in a game's output: (deals foreseen, cards predicted, seen). A
    deal foreseen is one whose opponents' cards the bot knew, every one; a hand of its own
    that comes back by chance (it happens) predicts some of them, never all."""
    found = TALLY.findall(output)
    assert found, f"no tally in the bot's output: {output!r}"
    _, foreseen, predicted, seen = found[-1]
    return int(foreseen), int(predicted), int(seen)


def test_a_memorising_bot_reads_its_opponents_hands_when_one_process_plays_every_rotation() -> None:
    # The control: the detector works. Two deals at three seats, all rotations in one
    # match (never sent by the platform; what one's own desk may still do).
    text = SOURCE.decode()
    job = MatchJob(
        match=1,
        attempt=uuid.uuid4(),
        kind=MatchKind.LADDER,
        game=GAME,
        seed=7,
        games=6,
        duplicate=True,
        limits=JobLimits(move_seconds=1.0, bank_seconds=10.0, startup_seconds=10.0),
        seats=(
            JobSeat(name="memory", source=text, sha256=hashlib.sha256(SOURCE).hexdigest()),
            JobSeat(name="builtin:random", builtin="random"),
            JobSeat(name="builtin:heuristic", builtin="heuristic"),
        ),
    )
    report = play_job(job, "process", "test")
    last = report.games[-1]
    foreseen, predicted, seen = tally(last.outputs[last.bots.index(0)])
    assert foreseen >= 2 and predicted >= seen // 4 > 0


def memorising_outputs(matches: list[Match], bot: Bot) -> list[str]:
    """The memorising bot's output in every game of ``matches``."""
    texts = []
    for match in matches:
        index = Participant.objects.get(match=match, bot=bot).index
        games = list(match.games.all())
        assert len(games) == match.games_planned
        texts += [read_outputs(game)[index] for game in games]
    return texts


@pytest.mark.django_db(transaction=True)
def test_a_memorising_bot_predicts_no_card_in_ladder_deal_sets_and_tournaments(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 3  # type: ignore[attr-defined]  (deals per rotation match)
    settings.LADDER_DUPLICATE = True  # type: ignore[attr-defined]
    settings.LADDER_MIN_PLAYERS = settings.LADDER_MAX_PLAYERS = 3  # type: ignore[attr-defined]
    sandbox = sandbox_for_this_machine().value
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    mallory, ann, bob = (UserFactory(username=name) for name in ("mallory", "ann", "bob"))
    with (
        platform_broker(),
        # No debut tables (LADDER_QUEUE_TARGET=0): the uploads' debuts are not what this
        # test plays, and on a busy machine nine more matches on the one arena worker
        # outlasted its deadline.
        platform_worker(platform_env(LADDER_QUEUE_TARGET="0"), platform_log),
        arena_worker(arena_env(sandbox), arena_log),
    ):
        versions = [
            upload_version(user, name, data, new_bot_name=user.username, game=GAME)
            for user, name, data in [
                (mallory, "memory.py", SOURCE),
                (ann, "good.py", GOOD_BOT),
                (bob, "high.py", HIGHEST),
            ]
        ]

        def validated() -> bool:
            statuses = BotVersion.objects.filter(pk__in=[v.pk for v in versions])
            return set(statuses.values_list("status", flat=True)) == {VersionStatus.ACTIVE}

        wait_for(validated, 180, "the uploads' validation", arena_log, platform_log)
        ladder = queue_ladder_matches(GAME, 3)
        tournament = open_tournament(deals_per_table=3)
        for user in (mallory, ann, bob):
            enter(user, tournament.pk, Bot.objects.get(owner=user).pk)
        start(tournament.pk)
        event = list(Match.objects.filter(tournament_table__tournament=tournament))
        matches = [*ladder, *event]

        def all_finished() -> bool:
            statuses = Match.objects.filter(pk__in=[m.pk for m in matches])
            return set(statuses.values_list("status", flat=True)) == {MatchStatus.FINISHED}

        wait_for(all_finished, 300, "the ladder and tournament matches", arena_log, platform_log)
    memory = Bot.objects.get(owner=mallory)
    played = Match.objects.filter(pk__in=[m.pk for m in matches], participants__bot=memory)
    # Whole deal sets, each rotation with fresh processes: its three seats' cards of each
    # deal went to every bot once, and the memorising bot never saw a deal twice.
    assert {m.sandbox for m in played} == {sandbox}
    sets = {m.deal_set for m in played}
    assert len(sets) >= 2 and all(
        sorted(Match.objects.filter(deal_set=s).values_list("rotation", flat=True)) == [0, 1, 2]
        for s in sets
    )
    tallies = [tally(text) for text in memorising_outputs(list(played), memory)]
    assert len(tallies) >= 2 * 3 * 3
    assert all(seen > 0 for _, _, seen in tallies)  # it watched every round to the end
    assert [foreseen for foreseen, _, _ in tallies] == [0 for _ in tallies]
