"""Helpers of the ladder tests: bots on a ladder and queued matches between them."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from arena.contract import MatchJob, MatchKind, MatchStarted
from cucumbers.games import GameName
from tests.web.factories import GOOD_BOT, UserFactory, active_bot
from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, RatingChange
from web.pipeline.dispatch import issue_job
from web.pipeline.factory import create_match
from web.pipeline.running import match_started


def ladder_bots(n: int, game: str = GameName.FIVE_CUCUMBERS) -> list[Bot]:
    return [active_bot(name=f"l{i}", game=game) for i in range(n)]


#: A legal bot that takes 20 ms a move: a match of it lasts long enough to be interrupted.
SLOW_BOT = b"""import time

from cucumbers import Bot, View


class Slow(Bot):
    def play(self, view: View) -> int:
        time.sleep(0.02)
        return view.legal[0]
"""


def make_active(name: str, game: str = "concombre", source: bytes = GOOD_BOT) -> BotVersion:
    """A user ``name`` with a bot ``name`` whose uploaded version is active (its own
    validation match, queued by the upload, is left alone)."""
    version = upload_version(
        UserFactory(username=name), "b.py", source, new_bot_name=name, game=game
    )
    BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACTIVE)
    Bot.objects.filter(pk=version.bot_id).update(active_version=version)
    return version


def queued_match(bots: Sequence[Bot], *, rated: bool = True, seed: int = 1) -> Match:
    kind = MatchKind.LADDER if rated else MatchKind.CHALLENGE
    # Played in the foreground by the tests: never sent to a worker.
    return create_match(bots[0].game, kind, bots, rated=rated, rng=random.Random(seed), send=False)


def started_attempt(match_id: int, worker: str = "test-worker") -> MatchJob:
    """Send the queued match under a new attempt and start it, as an arena worker would."""
    job = issue_job(match_id)
    assert isinstance(job, MatchJob), job
    started = MatchStarted(match=match_id, attempt=job.attempt, worker=worker, sandbox="process")
    assert match_started(started)
    return job


def assert_history_consistent(bots: Sequence[Bot]) -> None:
    """Every bot's rating is 1500 plus its history, and its history is a chain (each
    change starts where the previous one ended): a lost update breaks one or the other."""
    for bot in bots:
        bot.refresh_from_db()
        changes = list(RatingChange.objects.filter(bot=bot).order_by("id"))
        position = 1500.0
        for change in changes:
            assert math.isclose(change.before, position, abs_tol=1e-9), (bot, change)
            position = change.after
        assert math.isclose(bot.rating, position, abs_tol=1e-9)
