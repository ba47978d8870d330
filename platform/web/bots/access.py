"""Who may do what with a bot. Bots, versions' statuses, matches and replays are public;
a bot's source and its rejection details (its own output) are for its owner and staff; only
the owner changes a bot. Each helper ends in ``get_object_or_404`` or ``PermissionDenied``."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from .models import Bot, BotVersion

User = AbstractBaseUser | AnonymousUser


def is_owner(user: User, bot: Bot) -> bool:
    return bool(user.is_authenticated and bot.owner_id == user.pk)


def sees_private(user: User, bot: Bot) -> bool:
    """Owner or staff: may read the source, rejection details and the bot's own output."""
    return is_owner(user, bot) or bool(user.is_authenticated and getattr(user, "is_staff", False))


def public_bot(bot_id: int) -> Bot:
    return get_object_or_404(Bot.objects.select_related("owner", "active_version"), pk=bot_id)


def owned_bot(user: User, bot_id: int) -> Bot:
    """The bot, for a change only its owner may make."""
    bot = public_bot(bot_id)
    if not is_owner(user, bot):
        raise PermissionDenied("only the bot's owner can change it")
    return bot


def private_version(user: User, bot_id: int, number: int) -> BotVersion:
    """A version whose source is about to be shown."""
    version = get_object_or_404(
        BotVersion.objects.select_related("bot__owner"), bot_id=bot_id, number=number
    )
    if not sees_private(user, version.bot):
        raise PermissionDenied("a bot's source is visible to its owner only")
    return version
