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

from web.refusals import Problem
from web.storage_files import save_whole

from .errors import UploadError
from .models import (
    GAMES,
    Bot,
    BotVersion,
    VersionStatus,
    bot_name_validator,
    bot_source_storage,
)
from .signals import version_submitted
from .source_check import CheckedSource, check_source

THROTTLE_WINDOW = timedelta(hours=1)


def read_upload(file: UploadedFile[bytes]) -> tuple[str, bytes]:
    """The name and bytes of an uploaded file, refusing an oversized one before reading it."""
    name = file.name or ""
    limit = settings.UPLOAD_MAX_BYTES
    if file.size is not None and file.size > limit:
        raise UploadError(
            Problem.TOO_LARGE,
            f"{name or 'the file'} is {file.size / 1024:.0f} KB;"
            f" the limit is {limit / 1024:.0f} KB",
        )
    return name, file.read(limit + 1)


def lock_owner(owner: User) -> None:
    """Inside a transaction: hold the owner's row until it ends, so that the quotas below
    are counted and spent by one request of that owner at a time (40 parallel uploads
    against a limit of 30 store 30). SQLite (``make run``) takes its one write lock at
    BEGIN, which serialises them too."""
    User.objects.select_for_update().filter(pk=owner.pk).first()


def check_upload_rate(owner: User) -> None:
    """Refuse an upload over the hourly quota: before its file is parsed, and again inside
    :func:`lock_owner`'s transaction (the count that holds)."""
    since = timezone.now() - THROTTLE_WINDOW
    recent = BotVersion.objects.filter(bot__owner=owner, created_at__gte=since).count()
    if recent >= settings.UPLOADS_PER_HOUR:
        raise UploadError(
            Problem.TOO_MANY_UPLOADS,
            f"too many uploads: {recent} in the last hour, the limit is"
            f" {settings.UPLOADS_PER_HOUR}; try again later",
        )


def check_bot_quota(owner: User) -> None:
    """Inside :func:`lock_owner`'s transaction: refuse a bot beyond ``BOTS_PER_USER`` (bots
    without versions count: they are rows and names all the same)."""
    owned = Bot.objects.filter(owner=owner).count()
    if owned >= settings.BOTS_PER_USER:
        raise UploadError(
            Problem.TOO_MANY_BOTS,
            f"you have {owned} bots, the limit is {settings.BOTS_PER_USER}:"
            " delete one (its page, Delete) or upload a new version of one instead",
        )


def check_bot_name(owner: User, name: str) -> str:
    try:
        bot_name_validator(name)
    except ValidationError as error:
        raise UploadError(Problem.BAD_BOT_NAME, f"{name!r}: {error.messages[0]}") from None
    if Bot.objects.filter(owner=owner, name__iexact=name).exists():
        raise UploadError(
            Problem.DUPLICATE_NAME,
            f"you already have a bot named {name!r}: upload a new version of it instead",
        )
    return name


def check_new_bot(owner: User, name: str, game: str | None) -> None:
    """What can be checked of a new bot before anything is locked or written."""
    check_bot_name(owner, name)
    if game not in GAMES:
        raise UploadError(Problem.BAD_BOT_NAME, f"unknown game {game!r}")


def create_bot(owner: User, name: str, game: str) -> Bot:
    """A new bot of ``owner`` (no version yet), within the bot quota. Raises
    :class:`UploadError` with nothing stored."""
    check_new_bot(owner, name, game)
    with transaction.atomic():
        lock_owner(owner)
        return _create_bot(owner, name, game)


def _create_bot(owner: User, name: str, game: str) -> Bot:
    """Inside :func:`lock_owner`'s transaction."""
    check_bot_quota(owner)
    try:
        with transaction.atomic():
            return Bot.objects.create(owner=owner, name=name, game=game)
    except IntegrityError:
        # Lost a race with another request for the same new name.
        raise UploadError(
            Problem.DUPLICATE_NAME, f"you already have a bot named {name!r}"
        ) from None


def check_not_a_copy(bot: Bot, checked: CheckedSource) -> None:
    """Refuse a file that is already a version of ``bot`` (a rejected one may be tried
    again: its fault may have been a timeout on a busy day)."""
    same = (
        bot.versions.filter(sha256=checked.sha256)
        .exclude(status=VersionStatus.REJECTED)
        .order_by("-number")
        .first()
    )
    if same is not None:
        raise UploadError(
            Problem.DUPLICATE_VERSION,
            f"this file is already v{same.number} of {bot.name} ({same.get_status_display()}):"
            " nothing new to upload",
            link=bot.get_absolute_url(),
        )


def _store_version(bot: Bot, checked: CheckedSource) -> BotVersion:
    """Inside a transaction: the next version of ``bot`` with its source stored."""
    Bot.objects.select_for_update().filter(pk=bot.pk).first()  # numbers are given in turn
    last = bot.versions.aggregate(last=Max("number"))["last"] or 0
    number = last + 1
    storage = bot_source_storage()
    # A write that fails (a full disk) leaves no file behind.
    name = save_whole(
        storage,
        f"{bot.owner_id}/{bot.pk}/v{number}-{checked.sha256[:16]}.py",
        ContentFile(checked.data),
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
            Problem.FOREIGN_BOT, "this bot belongs to another user: upload to your own bots"
        )
    if new_bot_name is not None:
        check_new_bot(owner, new_bot_name, game)
    if enforce_rate:
        # Counted before the file is parsed (a spent quota must cost no compile: a file
        # can be made to take seconds of it); counted again under the owner's lock below,
        # where two uploads at once cannot both slip under it.
        check_upload_rate(owner)
    checked = check_source(filename, data, settings.UPLOAD_MAX_BYTES)
    stored: list[str] = []
    try:
        with transaction.atomic():
            lock_owner(owner)
            if enforce_rate:
                check_upload_rate(owner)
            if bot is None:
                assert new_bot_name is not None and game is not None  # both checked above
                bot = _create_bot(owner, new_bot_name, game)
            check_not_a_copy(bot, checked)
            version = _store_version(bot, checked)
            stored.append(cast(str, version.source.name))  # just saved: it has a name
            # Its match is sent after the commit, and a broker that is down then leaves it
            # queued for the reaper: never an error here once the rows are saved.
            version_submitted.send(sender=BotVersion, version=version)
    except BaseException:
        # The rows rolled back: so must the file (a source is stored only with its row).
        for name in stored:
            bot_source_storage().delete(name)
        raise
    return version
