"""The one upload path: the web form, the API and ``cucumbers upload`` all end here.

Everything that can be checked is checked before anything is written; then the bot (when
new), the version row and its source file are written in one transaction, and validation is
queued only once that transaction has committed.
"""

from __future__ import annotations

from datetime import timedelta
from typing import cast

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from web.pipeline.validation import queue_validation

from .errors import UploadError, UploadProblem
from .models import Bot, BotVersion, Game, bot_name_validator, bot_source_storage
from .source_check import CheckedSource, check_source

THROTTLE_WINDOW = timedelta(hours=1)


def read_upload(file: UploadedFile[bytes]) -> tuple[str, bytes]:
    """The name and bytes of an uploaded file, refusing an oversized one before reading it."""
    name = file.name or ""
    limit = settings.UPLOAD_MAX_BYTES
    if file.size is not None and file.size > limit:
        raise UploadError(
            UploadProblem.TOO_LARGE,
            f"{name or 'the file'} is {file.size / 1024:.0f} KB;"
            f" the limit is {limit / 1024:.0f} KB",
        )
    return name, file.read(limit + 1)


def check_upload_rate(owner: User) -> None:
    since = timezone.now() - THROTTLE_WINDOW
    recent = BotVersion.objects.filter(bot__owner=owner, created_at__gte=since).count()
    if recent >= settings.UPLOADS_PER_HOUR:
        raise UploadError(
            UploadProblem.TOO_MANY_UPLOADS,
            f"too many uploads: {recent} in the last hour, the limit is"
            f" {settings.UPLOADS_PER_HOUR}; try again later",
        )


def check_bot_name(owner: User, name: str) -> str:
    try:
        bot_name_validator(name)
    except ValidationError as error:
        raise UploadError(UploadProblem.BAD_BOT_NAME, f"{name!r}: {error.messages[0]}") from None
    if Bot.objects.filter(owner=owner, name__iexact=name).exists():
        raise UploadError(
            UploadProblem.DUPLICATE_NAME,
            f"you already have a bot named {name!r}: upload a new version of it instead",
        )
    return name


def own_bot(owner: User, bot_id: int) -> Bot:
    """The uploader's bot ``bot_id``; another user's bot is refused, never written to."""
    bot = Bot.objects.filter(pk=bot_id).first()
    if bot is None:
        raise UploadError(UploadProblem.UNKNOWN_BOT, f"there is no bot with id {bot_id}")
    if bot.owner_id != owner.pk:
        raise UploadError(
            UploadProblem.FOREIGN_BOT, "this bot belongs to another user: upload to your own bots"
        )
    return bot


def _store_version(bot: Bot, checked: CheckedSource) -> BotVersion:
    """Inside a transaction: the next version of ``bot`` with its source stored."""
    Bot.objects.select_for_update().filter(pk=bot.pk).first()  # numbers are given in turn
    last = bot.versions.aggregate(last=Max("number"))["last"] or 0
    number = last + 1
    storage = bot_source_storage()
    name = storage.save(
        f"{bot.owner_id}/{bot.pk}/v{number}-{checked.sha256[:16]}.py", ContentFile(checked.data)
    )
    try:
        version = BotVersion.objects.create(
            bot=bot,
            number=number,
            source=name,
            filename=checked.filename,
            sha256=checked.sha256,
            size=checked.size,
        )
    except BaseException:
        storage.delete(name)
        raise
    return version


def upload_version(
    owner: User,
    filename: str,
    data: bytes,
    *,
    bot: Bot | None = None,
    new_bot_name: str | None = None,
    game: str | None = None,
    enforce_rate: bool = True,
) -> BotVersion:
    """Store a new version of ``bot``, or of a new bot ``new_bot_name`` for ``game``, and
    queue its validation. Raises :class:`UploadError` with nothing stored."""
    if (bot is None) == (new_bot_name is None):
        raise ValueError("give either bot or new_bot_name")
    if bot is not None and bot.owner_id != owner.pk:
        raise UploadError(
            UploadProblem.FOREIGN_BOT, "this bot belongs to another user: upload to your own bots"
        )
    if new_bot_name is not None:
        check_bot_name(owner, new_bot_name)
        if game not in Game.values:
            raise UploadError(UploadProblem.BAD_BOT_NAME, f"unknown game {game!r}")
    if enforce_rate:
        check_upload_rate(owner)
    checked = check_source(filename, data, settings.UPLOAD_MAX_BYTES)
    stored: list[str] = []
    try:
        with transaction.atomic():
            if bot is None:
                assert new_bot_name is not None and game is not None  # both checked above
                try:
                    with transaction.atomic():
                        bot = Bot.objects.create(owner=owner, name=new_bot_name, game=game)
                except IntegrityError:
                    # Lost a race with another upload of the same new name.
                    raise UploadError(
                        UploadProblem.DUPLICATE_NAME,
                        f"you already have a bot named {new_bot_name!r}",
                    ) from None
            version = _store_version(bot, checked)
            stored.append(cast(str, version.source.name))  # just saved: it has a name
            # Its match is sent after the commit, and a broker that is down then leaves it
            # queued for the reaper: never an error here once the rows are saved.
            queue_validation(version)
    except BaseException:
        # The rows rolled back: so must the file (a source is stored only with its row).
        for name in stored:
            bot_source_storage().delete(name)
        raise
    return version
