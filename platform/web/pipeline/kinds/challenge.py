"""Challenges: a user asks for an unrated match between one of their bots and bots they
pick (``CHALLENGES_PER_HOUR``, 1 to ``CHALLENGE_MAX_GAMES`` games). One service for the
form and the API; each refusal has a code and an HTTP status. Nothing follows from its
outcome but the match page."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from arena.contract import MatchKind
from cucumbers.games import rules_for
from web.bots.models import Bot
from web.matches.models import Match
from web.refusals import Problem, Refusal

from ..factory import create_match
from ..kind import KindPolicy


class ChallengeError(Refusal):
    """A challenge refused before anything was queued; ``message`` is for the user."""


def challenges_last_hour(user: User) -> int:
    since = timezone.now() - timedelta(hours=1)
    return Match.objects.filter(requested_by=user, created_at__gte=since).count()


def default_games() -> int:
    """A challenge's length unless it asks: the ladder's, within the challenges' bound."""
    return min(settings.MATCH_GAMES, settings.CHALLENGE_MAX_GAMES)


def create_challenge(
    user: User, bot_id: int, opponent_ids: Sequence[int], games: int | None = None
) -> Match:
    """A queued, unrated challenge match of ``games`` games (default :func:`default_games`):
    the user's bot first, then the opponents."""
    largest = settings.CHALLENGE_MAX_GAMES
    if games is None:
        games = default_games()
    if not 1 <= games <= largest:
        raise ChallengeError(
            Problem.BAD_GAMES, f"A challenge plays 1 to {largest} games, not {games}."
        )
    ids = [bot_id, *opponent_ids]
    if len(set(ids)) != len(ids):
        raise ChallengeError(Problem.DUPLICATE_BOT, "Each bot may play only once.")
    with transaction.atomic():
        # Lock the user's row: two requests at once cannot both slip under the quota.
        get_user_model().objects.select_for_update().get(pk=user.pk)
        found = Bot.objects.select_related("owner", "active_version").in_bulk(ids)
        if len(found) != len(ids):
            raise ChallengeError(Problem.UNKNOWN_BOT, "No such bot.")
        bots = [found[i] for i in ids]
        mine = bots[0]
        if mine.owner_id != user.pk:
            raise ChallengeError(Problem.FOREIGN_BOT, "You can challenge with your own bots only.")
        for bot in bots:
            if not bot.on_leaderboard:
                raise ChallengeError(
                    Problem.NOT_PLAYING, f"{bot} has no active version or is inactive."
                )
            if bot.game != mine.game:
                raise ChallengeError(
                    Problem.GAME_MISMATCH, f"{bot} plays {bot.get_game_display()}."
                )
        rules = rules_for(mine.game)
        if not rules.min_players <= len(bots) <= rules.max_players:
            raise ChallengeError(
                Problem.TABLE_SIZE,
                f"{mine.get_game_display()} is played by {rules.min_players} to"
                f" {rules.max_players} bots: pick {rules.min_players - 1} to"
                f" {rules.max_players - 1} opponents.",
            )
        quota = settings.CHALLENGES_PER_HOUR
        if challenges_last_hour(user) >= quota:
            raise ChallengeError(
                Problem.TOO_MANY_CHALLENGES,
                f"You can ask for {quota} challenges per hour; try again later.",
            )
        return create_match(
            mine.game, MatchKind.CHALLENGE, bots, rated=False, requested_by=user, games=games
        )


class ChallengePolicy(KindPolicy):
    """Unrated: its result is only shown."""

    kind = MatchKind.CHALLENGE
