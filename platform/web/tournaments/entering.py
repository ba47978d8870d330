"""Entering a tournament and withdrawing from it: one service for the page, the API and the
``tournament`` command; each refusal has a code and an HTTP status.

One bot per owner (collusion between one's own bots is the multiplayer risk): the house's
bots are the exception, reference strategies that staff may enter together.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from web.bots.house import HOUSE_USERNAME
from web.bots.models import Bot
from web.refusals import Problem, Refusal

from .models import Entry, Tournament


class EntryError(Refusal):
    """An entry (or a withdrawal) refused; ``message`` is for the user."""


def _may_enter_for(user: User, bot: Bot) -> bool:
    """Owners enter their own bots; staff may also enter the house's."""
    return bot.owner_id == user.pk or (user.is_staff and bot.owner.username == HOUSE_USERNAME)


def enter(user: User, tournament_id: int, bot_id: int) -> Entry:
    """Enter ``bot_id`` in the tournament for ``user``; raises :class:`EntryError`."""
    with transaction.atomic():
        # The tournament's row, locked: two entries at once cannot both pass the
        # one-bot-per-owner check, and none slips in while the tournament starts.
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        bot = Bot.objects.select_related("owner").filter(pk=bot_id).first()
        if bot is None or not (bot.owner_id == user.pk or user.is_staff):
            raise EntryError(Problem.UNKNOWN_BOT, "No such bot of yours.")
        if not _may_enter_for(user, bot):
            raise EntryError(Problem.FOREIGN_BOT, "You can enter your own bots only.")
        if not tournament.accepts_entries:
            raise EntryError(Problem.CLOSED, f"Entries to {tournament} are closed.")
        if bot.game != tournament.game:
            raise EntryError(
                Problem.GAME_MISMATCH,
                f"{tournament} is a {tournament.get_game_display()} tournament; {bot.name}"
                f" plays {bot.get_game_display()}.",
            )
        if not bot.on_leaderboard:
            raise EntryError(
                Problem.NOT_PLAYING,
                f"{bot.name} has no active version yet (or is inactive): only a validated"
                " bot can enter.",
            )
        entered = tournament.entries.filter(bot=bot).exists()
        if entered:
            raise EntryError(Problem.ALREADY_ENTERED, f"{bot.name} is already entered.")
        if bot.owner.username != HOUSE_USERNAME:
            other = tournament.entries.filter(owner=bot.owner).first()
            if other is not None:
                raise EntryError(
                    Problem.ALREADY_ENTERED,
                    f"One bot per owner: {other.name} is already entered; withdraw it first.",
                )
        return Entry.objects.create(
            tournament=tournament,
            bot=bot,
            owner=bot.owner,
            name=f"{bot.owner.username}/{bot.name}",
        )


def withdraw(user: User, tournament_id: int, entry_id: int) -> None:
    """Take an entry back before entries close; raises :class:`EntryError`."""
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        entry = tournament.entries.select_related("bot__owner").filter(pk=entry_id).first()
        if entry is None or not (
            entry.owner_id == user.pk or (entry.bot is not None and _may_enter_for(user, entry.bot))
        ):
            raise EntryError(Problem.UNKNOWN_ENTRY, "No such entry of yours.")
        if not tournament.accepts_entries:
            raise EntryError(
                Problem.CLOSED,
                f"Entries to {tournament} are closed: it is too late to withdraw.",
            )
        entry.delete()
