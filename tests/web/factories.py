"""factory_boy factories for the web tests."""

from __future__ import annotations

import hashlib

import factory
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import connection
from django.db.models import OuterRef, Subquery

from arena.contract import MatchKind
from cucumbers.games import GameName
from web.bots.models import Bot, BotVersion, VersionStatus
from web.matches.models import Match, MatchGame, MatchStatus, Participant

PASSWORD = "correct-horse-battery"

GOOD_BOT = b"""from cucumbers import Bot, View


class Lowball(Bot):
    def play(self, view: View) -> int:
        return view.legal[0]
"""

PLAY_FUNCTION_BOT = b"""def play(view):
    return view.legal[-1]
"""


def variant(n: int, data: bytes = GOOD_BOT) -> bytes:
    """Another file with the same bot: an identical re-upload is refused."""
    return data + f"# variant {n}\n".encode()


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.org")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def save_password(obj: User, create: bool, extracted: object, **kwargs: object) -> None:
        if create:
            obj.save()


class StaffFactory(UserFactory):
    is_staff = True


class BotFactory(factory.django.DjangoModelFactory[Bot]):
    class Meta:
        model = Bot

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"bot-{n}")
    game = GameName.FIVE_CUCUMBERS


class VersionFactory(factory.django.DjangoModelFactory[BotVersion]):
    class Meta:
        model = BotVersion

    class Params:
        data = GOOD_BOT

    bot = factory.SubFactory(BotFactory)
    number = factory.Sequence(lambda n: n + 1)
    filename = "bot.py"
    source = factory.LazyAttribute(lambda v: ContentFile(v.data, name="bot.py"))
    sha256 = factory.LazyAttribute(lambda v: hashlib.sha256(v.data).hexdigest())
    size = factory.LazyAttribute(lambda v: len(v.data))
    status = VersionStatus.QUEUED


def active_bot(**kwargs: object) -> Bot:
    """A bot with an active version: on its game's leaderboard."""
    bot = BotFactory(**kwargs)
    version = VersionFactory(bot=bot, number=1, status=VersionStatus.ACTIVE)
    bot.active_version = version
    bot.save(update_fields=["active_version"])
    return bot


class MatchFactory(factory.django.DjangoModelFactory[Match]):
    class Meta:
        model = Match

    game = GameName.FIVE_CUCUMBERS
    kind = MatchKind.LADDER
    status = MatchStatus.QUEUED
    seed = factory.Sequence(lambda n: 1000 + n)
    games_planned = 1


class ParticipantFactory(factory.django.DjangoModelFactory[Participant]):
    class Meta:
        model = Participant

    match = factory.SubFactory(MatchFactory)
    index = factory.Sequence(lambda n: n)
    name = factory.Sequence(lambda n: f"entrant-{n}")


class MatchGameFactory(factory.django.DjangoModelFactory[MatchGame]):
    class Meta:
        model = MatchGame

    match = factory.SubFactory(MatchFactory)
    number = 1
    seed = 7
    placement = factory.LazyFunction(lambda: [0, 1])


def make_bots(count: int) -> None:
    """``count`` Five Cucumbers bots of 20 owners, nine in ten on the leaderboard, in bulk."""
    owners = [UserFactory() for _ in range(20)]
    Bot.objects.bulk_create(
        Bot(
            owner=owners[i % 20],
            name=f"b{i}",
            game=GameName.FIVE_CUCUMBERS,
            rating=1000 + (i * 7919) % 1000,
            active=i % 10 != 0,
        )
        for i in range(count)
    )
    BotVersion.objects.bulk_create(
        BotVersion(
            bot=bot,
            number=1,
            source="x.py",
            filename="x.py",
            sha256="0" * 64,
            size=1,
            status=VersionStatus.ACTIVE,
        )
        for bot in Bot.objects.all()
    )
    first = BotVersion.objects.filter(bot=OuterRef("pk")).values("pk")[:1]
    Bot.objects.update(active_version=Subquery(first))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE bots_bot")
