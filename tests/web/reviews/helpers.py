"""Helpers of the review tests: a finished match of a user's bot, played in this process
(the process runner) through the pipeline's own steps, with its replays stored."""

from __future__ import annotations

from django.contrib.auth.models import User

from cucumbers.games import GameName
from tests.web.factories import UserFactory, active_bot
from tests.web.matches.arena_helpers import queued_match
from web.bots.models import Bot
from web.matches.models import Match, MatchStatus
from web.pipeline.running import run_match
from web.sandbox import SandboxKind


def bot_of(owner: User, name: str, game: str) -> Bot:
    """``owner``'s active bot ``name``, made the first time."""
    found = Bot.objects.filter(owner=owner, name=name).first()
    return found if found is not None else active_bot(owner=owner, name=name, game=game)


def finished_match(owner: User, game: str = GameName.FIVE_CUCUMBERS, seed: int = 1) -> Match:
    """A finished challenge (unrated) of ``owner``'s bot (participant 0) against two bots
    of another user."""
    rival = UserFactory(username=f"rival-of-{owner.username}")
    bots = [
        bot_of(owner, f"{owner.username}-bot", game),
        bot_of(rival, "r1", game),
        bot_of(rival, "r2", game),
    ]
    match = queued_match(bots, rated=False, seed=seed)
    assert run_match(match.pk, SandboxKind.PROCESS).result == "finished"
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED and match.games.count() >= 1
    return match
