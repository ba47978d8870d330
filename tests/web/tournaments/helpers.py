"""Tournaments and playing bots for the tournament tests."""

from __future__ import annotations

import hashlib
from datetime import timedelta

from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.utils import timezone

from cucumbers.games import GameName
from tests.web.factories import UserFactory
from web.bots.house import HOUSE_USERNAME, house_source
from web.bots.models import Bot, BotVersion, VersionStatus
from web.tournaments.models import Tournament

HIGHEST = b"def play(view):\n    return max(view.legal)\n"
LOWEST = b"def play(view):\n    return min(view.legal)\n"


def open_tournament(**fields: object) -> Tournament:
    """An open tournament whose entries close in an hour."""
    now = timezone.now()
    values: dict[str, object] = {
        "name": "Winter cup",
        "game": GameName.FIVE_CUCUMBERS,
        "table_size_min": 3,
        "table_size_max": 3,
        "deals_per_table": 2,
        "entry_deadline": now + timedelta(hours=1),
        "starts_at": now + timedelta(hours=1),
        "seed": 20261201,
    }
    values.update(fields)
    return Tournament.objects.create(**values)


def playing_bot(owner: User, name: str, source: bytes, game: str = GameName.FIVE_CUCUMBERS) -> Bot:
    """A bot with an active version of ``source`` (as if validated)."""
    bot = Bot.objects.create(owner=owner, name=name, game=game)
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        filename=f"{name}.py",
        source=ContentFile(source, name=f"{name}.py"),
        sha256=hashlib.sha256(source).hexdigest(),
        size=len(source),
        status=VersionStatus.ACTIVE,
    )
    bot.active_version = version
    bot.save(update_fields=["active_version"])
    return bot


def house_bot(builtin: str, game: str = GameName.FIVE_CUCUMBERS) -> Bot:
    house = UserFactory(username=HOUSE_USERNAME)
    return playing_bot(house, f"{builtin}-{game}", house_source(builtin).encode(), game)
