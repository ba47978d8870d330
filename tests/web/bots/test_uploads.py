"""The one upload service: what it stores, and that a refused upload stores nothing."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.core.files.storage import storages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from cucumbers.games import GameName
from tests.web.factories import GOOD_BOT, BotFactory, VersionFactory, variant
from web.bots.errors import UploadError
from web.bots.models import GAME_CHOICES, Bot, BotVersion, ImmutableVersionError, VersionStatus
from web.bots.uploads import read_upload, upload_version
from web.matches.models import Match, MatchStatus
from web.pipeline import running
from web.refusals import Problem

pytestmark = pytest.mark.django_db


def stored_files() -> set[Path]:
    root = Path(storages["bot_sources"].location)
    return {path for path in root.rglob("*") if path.is_file()}


def test_a_new_bot_gets_version_1_stored_with_its_digest(user: User) -> None:
    before = stored_files()
    version = upload_version(
        user, "lowball.py", GOOD_BOT, new_bot_name="lowball", game=GameName.CONCOMBRE
    )
    assert (version.number, version.status, version.size) == (
        1,
        VersionStatus.QUEUED,
        len(GOOD_BOT),
    )
    assert version.bot.name == "lowball" and version.bot.game == GameName.CONCOMBRE
    assert version.read_source().encode() == GOOD_BOT
    new_files = stored_files() - before
    assert len(new_files) == 1
    # The stored name is ours, never the uploader's.
    assert "lowball.py" not in str(new_files.pop())


def test_versions_are_numbered_in_turn(user: User) -> None:
    bot = BotFactory(owner=user)
    numbers = [upload_version(user, "b.py", variant(n), bot=bot).number for n in range(3)]
    assert numbers == [1, 2, 3]


def test_validation_is_queued_only_when_the_transaction_commits(
    user: User, django_capture_on_commit_callbacks: object
) -> None:
    send_patch = mock.patch("web.pipeline.dispatch.send_match")
    capture = django_capture_on_commit_callbacks(execute=True)  # type: ignore[operator]
    with send_patch as send, capture as callbacks:
        version = upload_version(user, "b.py", GOOD_BOT, new_bot_name="x", game="concombre")
        send.assert_not_called()
    assert len(callbacks) == 1
    assert version.validation_match is not None
    send.assert_called_once_with(version.validation_match.pk)


def test_an_upload_while_the_broker_is_down_is_kept_whole_and_sent_later(
    user: User, dead_broker: None, django_capture_on_commit_callbacks: object
) -> None:
    before = stored_files()
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        version = upload_version(user, "b.py", GOOD_BOT, new_bot_name="x", game="concombre")
    # Saved with its source, queued, its match waiting to be sent: no error, nothing lost.
    version.refresh_from_db()
    assert version.status == VersionStatus.QUEUED
    assert version.read_source().encode() == GOOD_BOT
    assert len(stored_files() - before) == 1
    match = version.validation_match
    assert match is not None
    match.refresh_from_db()
    assert (match.status, match.sent_at, match.attempts) == (MatchStatus.QUEUED, None, 0)
    # The reaper's next run sends it again (once the on-commit send had its chance).
    Match.objects.filter(pk=match.pk).update(created_at=timezone.now() - timedelta(minutes=1))
    assert running.reap_matches() == ([match.pk], [], [])


def assert_nothing_stored(before_files: set[Path], before_bots: int, before_versions: int) -> None:
    assert stored_files() == before_files
    assert Bot.objects.count() == before_bots
    assert BotVersion.objects.count() == before_versions


@pytest.mark.parametrize(
    ("filename", "data", "problem"),
    [
        ("bot.txt", GOOD_BOT, Problem.WRONG_EXTENSION),
        ("bot.py", b"", Problem.EMPTY),
        ("bot.py", b"#" * (256 * 1024 + 1), Problem.TOO_LARGE),
        ("bot.py", b"\xff\xfe", Problem.NOT_UTF8),
        ("bot.py", b"def play(:\n", Problem.SYNTAX_ERROR),
        ("bot.py", b"x = 1\n", Problem.NO_BOT),
        ("../../bot.py", GOOD_BOT, Problem.BAD_FILENAME),
    ],
)
def test_a_bad_file_creates_neither_bot_nor_version_nor_file(
    user: User, filename: str, data: bytes, problem: Problem
) -> None:
    before = (stored_files(), Bot.objects.count(), BotVersion.objects.count())
    with pytest.raises(UploadError) as caught:
        upload_version(user, filename, data, new_bot_name="newbot", game="concombre")
    assert caught.value.problem is problem
    assert_nothing_stored(*before)


def test_a_duplicate_bot_name_is_refused_whatever_its_case(user: User) -> None:
    BotFactory(owner=user, name="Lowball")
    before = (stored_files(), Bot.objects.count(), BotVersion.objects.count())
    with pytest.raises(UploadError) as caught:
        upload_version(user, "b.py", GOOD_BOT, new_bot_name="lowball", game="concombre")
    assert caught.value.problem is Problem.DUPLICATE_NAME
    assert "already have a bot named 'lowball'" in caught.value.message
    assert_nothing_stored(*before)


def test_the_same_name_is_fine_for_another_owner(user: User, other_user: User) -> None:
    BotFactory(owner=other_user, name="lowball")
    assert upload_version(user, "b.py", GOOD_BOT, new_bot_name="lowball", game="concombre")


@pytest.mark.parametrize(
    "name", ["", "has space", "-dash-first", "x" * 41, "../etc", "alpha\n", "alpha\r\n", "\nalpha"]
)
def test_a_malformed_bot_name_is_refused(user: User, name: str) -> None:
    with pytest.raises(UploadError) as caught:
        upload_version(user, "b.py", GOOD_BOT, new_bot_name=name, game="concombre")
    assert caught.value.problem is Problem.BAD_BOT_NAME


def test_another_users_bot_is_never_written_to(user: User, other_user: User) -> None:
    theirs = BotFactory(owner=other_user)
    before = (stored_files(), Bot.objects.count(), BotVersion.objects.count())
    with pytest.raises(UploadError) as caught:
        upload_version(user, "b.py", GOOD_BOT, bot=theirs)
    assert caught.value.problem is Problem.FOREIGN_BOT
    assert caught.value.http_status == 403
    assert_nothing_stored(*before)


def test_a_file_name_with_a_newline_inside_is_refused_one_around_it_is_trimmed(
    user: User,
) -> None:
    # A pattern ending in `$` would match before a final newline.
    for name in ("bot\n.py", "b\not.py"):
        with pytest.raises(UploadError) as caught:
            upload_version(user, name, GOOD_BOT, new_bot_name="nl", game="concombre")
        assert caught.value.problem is Problem.BAD_FILENAME
    version = upload_version(user, " bot.py\n", GOOD_BOT, new_bot_name="nl", game="concombre")
    assert version.filename == "bot.py"


#: What a hostile uploader sends once the hour's quota is spent: a file whose compile alone
#: takes seconds of the web server's CPU (a chain of comparisons as long as the size limit
#: allows), and a file that is no Python at all.
COMPILE_BOMB = b"x = 1" + b" < 1" * (60 * 1024) + b"\n"


def test_a_spent_quota_is_refused_before_the_file_is_parsed(user: User, settings: object) -> None:
    settings.UPLOADS_PER_HOUR = 1  # type: ignore[attr-defined]
    bot = BotFactory(owner=user)
    upload_version(user, "b.py", variant(1), bot=bot)
    with mock.patch("web.bots.source_check._compile", side_effect=AssertionError("parsed")) as c:
        for data in (COMPILE_BOMB, b"this is (not python"):
            with pytest.raises(UploadError) as caught:
                upload_version(user, "b.py", data, bot=bot)
            assert caught.value.problem is Problem.TOO_MANY_UPLOADS  # not a syntax error
    assert not c.called
    assert bot.versions.count() == 1


def test_too_many_uploads_in_an_hour_are_refused(user: User, settings: object) -> None:
    settings.UPLOADS_PER_HOUR = 2  # type: ignore[attr-defined]
    bot = BotFactory(owner=user)
    upload_version(user, "b.py", variant(1), bot=bot)
    upload_version(user, "b.py", variant(2), bot=bot)
    with pytest.raises(UploadError) as caught:
        upload_version(user, "b.py", variant(3), bot=bot)
    assert caught.value.problem is Problem.TOO_MANY_UPLOADS
    assert caught.value.http_status == 429
    assert bot.versions.count() == 2


def test_the_file_is_removed_when_its_row_cannot_be_written(user: User) -> None:
    bot = BotFactory(owner=user)
    before = stored_files()
    failing = mock.patch.object(BotVersion.objects, "create", side_effect=RuntimeError("db"))
    with failing, pytest.raises(RuntimeError):
        upload_version(user, "b.py", GOOD_BOT, bot=bot)
    assert stored_files() == before


def test_the_file_is_removed_when_the_transaction_fails_after_the_row(user: User) -> None:
    bot = BotFactory(owner=user)
    before = stored_files()
    # The database fails while the validation match is written: the rows roll back.
    failing = mock.patch(
        "web.pipeline.kinds.validation.queue_validation", side_effect=RuntimeError("db")
    )
    with failing, pytest.raises(RuntimeError):
        upload_version(user, "b.py", GOOD_BOT, bot=bot)
    assert stored_files() == before
    assert bot.versions.count() == 0


def test_an_oversized_upload_is_refused_before_it_is_read(settings: object) -> None:
    settings.UPLOAD_MAX_BYTES = 10  # type: ignore[attr-defined]
    upload = mock.Mock(size=20, read=mock.Mock(side_effect=AssertionError("read")))
    upload.name = "bot.py"
    with pytest.raises(UploadError) as caught:
        read_upload(upload)
    assert caught.value.problem is Problem.TOO_LARGE
    assert read_upload(SimpleUploadedFile("bot.py", b"#" * 10)) == ("bot.py", b"#" * 10)


def test_a_version_is_immutable() -> None:
    version = VersionFactory()
    version.sha256 = "0" * 64
    with pytest.raises(ImmutableVersionError):
        version.save()
    with pytest.raises(ImmutableVersionError):
        version.save(update_fields=["sha256"])
    version.refresh_from_db()
    version.status = VersionStatus.REJECTED
    version.save(update_fields=["status"])


def test_the_sites_games_are_the_engines_registered_games() -> None:
    from cucumbers.games import game_choices

    assert game_choices() == GAME_CHOICES
