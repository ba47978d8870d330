"""House bots: the SDK's built-in bots, uploaded as ordinary bots of the ``house`` user so
that they validate and play exactly like everyone's."""

from __future__ import annotations

from django.contrib.auth.models import User

from cucumbers.bots import BUILTINS

from .models import GAMES, Bot
from .uploads import upload_version

HOUSE_USERNAME = "house"


def house_source(builtin: str) -> str:
    cls = BUILTINS[builtin]
    return (
        f'"""House bot: the SDK\'s builtin:{builtin}, uploaded like any other bot."""\n\n'
        f"from {cls.__module__} import {cls.__name__} as _Builtin\n\n\n"
        f"class House{cls.__name__}(_Builtin):\n"
        f'    """builtin:{builtin}"""\n'
    )


def house_bot_name(builtin: str, game: str) -> str:
    return f"{builtin}-{game}"


def ensure_house_bots() -> list[Bot]:
    """The house user and one bot per built-in and game; uploads only what is missing."""
    house, created = User.objects.get_or_create(username=HOUSE_USERNAME)
    if created:
        house.set_unusable_password()
        house.save(update_fields=["password"])
    created_bots = []
    for game in GAMES:
        for builtin in BUILTINS:
            name = house_bot_name(builtin, game)
            if Bot.objects.filter(owner=house, name=name).exists():
                continue
            version = upload_version(
                house,
                f"{builtin}.py",
                house_source(builtin).encode(),
                new_bot_name=name,
                game=game,
                enforce_rate=False,
            )
            created_bots.append(version.bot)
    return created_bots
