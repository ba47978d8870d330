"""The bot pages: create and upload forms, the owner's controls, my bots and its status."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.web.conftest import logged_in
from tests.web.factories import GOOD_BOT, BotFactory, VersionFactory, active_bot, variant
from web.bots.models import Bot, BotVersion, VersionStatus

pytestmark = pytest.mark.django_db


def py(data: bytes = GOOD_BOT, name: str = "lowball.py") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/x-python")


def test_the_create_form_makes_a_bot_and_its_first_version(alice: Client, user: User) -> None:
    response = alice.post(
        reverse("bot-create"), {"name": "lowball", "game": "concombre", "file": py()}
    )
    assert response.status_code == 302 and response.url == reverse("my-bots")
    version = BotVersion.objects.get(bot__owner=user, bot__name="lowball")
    assert (version.number, version.status, version.bot.game) == (1, "queued", "concombre")


@pytest.mark.parametrize(
    ("data", "name", "status", "message"),
    [
        (GOOD_BOT, "lowball.txt", 400, "a bot is a single Python file ending in .py"),
        (b"", "lowball.py", 400, "The submitted file is empty."),
        (b"def play(:\n", "lowball.py", 400, "syntax error in lowball.py, line 1"),
        (b"x = 1\n", "lowball.py", 400, "no bot found in lowball.py"),
        (b"\xff\xfe\x00", "lowball.py", 400, "not UTF-8"),
    ],
)
def test_the_create_form_explains_a_bad_file_and_stores_nothing(
    alice: Client, data: bytes, name: str, status: int, message: str
) -> None:
    response = alice.post(
        reverse("bot-create"), {"name": "lowball", "game": "concombre", "file": py(data, name)}
    )
    assert response.status_code in (status, 200)
    assert message in response.content.decode()
    assert not Bot.objects.exists()


def test_the_create_form_refuses_a_duplicate_name(alice: Client, user: User) -> None:
    BotFactory(owner=user, name="lowball")
    response = alice.post(
        reverse("bot-create"), {"name": "LOWBALL", "game": "concombre", "file": py()}
    )
    assert response.status_code == 409
    assert "you already have a bot named" in response.content.decode()
    assert Bot.objects.count() == 1


def test_the_upload_form_adds_a_version(alice: Client, user: User) -> None:
    bot = active_bot(owner=user)
    response = alice.post(reverse("bot-upload", args=[bot.pk]), {"file": py(variant(1))})
    assert response.status_code == 302
    assert list(bot.versions.values_list("number", "status")) == [(2, "queued"), (1, "active")]


def test_the_upload_form_answers_429_when_uploading_too_fast(
    alice: Client, user: User, settings: object
) -> None:
    settings.UPLOADS_PER_HOUR = 1  # type: ignore[attr-defined]
    bot = BotFactory(owner=user)
    assert alice.post(reverse("bot-upload", args=[bot.pk]), {"file": py()}).status_code == 302
    response = alice.post(reverse("bot-upload", args=[bot.pk]), {"file": py()})
    assert response.status_code == 429
    assert "too many uploads" in response.content.decode()


def test_the_owner_deactivates_and_reactivates_a_bot(alice: Client, user: User) -> None:
    bot = active_bot(owner=user)
    alice.post(reverse("bot-set-active", args=[bot.pk]), {"active": "0"})
    bot.refresh_from_db()
    assert not bot.active and not Bot.objects.on_leaderboard(bot.game).exists()
    alice.post(reverse("bot-set-active", args=[bot.pk]), {"active": "1"})
    bot.refresh_from_db()
    assert bot.active


def test_the_bot_page_shows_versions_and_rank(client: Client) -> None:
    bot = active_bot(name="ducker")
    VersionFactory(
        bot=bot,
        number=2,
        status=VersionStatus.REJECTED,
        rejection_kind="crash",
        rejection_detail="ValueError: secret detail",
        stderr_tail="my output",
    )
    page = client.get(bot.get_absolute_url()).content.decode()
    assert "ducker" in page and "#1" in page and "rejected" in page
    assert "secret detail" not in page and "my output" not in page


@pytest.mark.parametrize(
    ("games", "k"), [(0, "48"), (19, "48"), (20, "16"), (45, "10.7"), (80, "8"), (900, "4")]
)
def test_the_bot_page_shows_how_far_a_game_moves_its_rating(
    client: Client, games: int, k: str
) -> None:
    bot = active_bot(name="ducker", games=games, games_since_version=games)
    page = client.get(bot.get_absolute_url()).content.decode()
    assert f">K {k}</span>" in page


def test_the_owner_sees_rejection_details_and_output(alice: Client, user: User) -> None:
    bot = BotFactory(owner=user)
    VersionFactory(
        bot=bot,
        number=1,
        status=VersionStatus.REJECTED,
        rejection_kind="crash",
        rejection_detail="ValueError: boom",
        stderr_tail="my output",
    )
    page = alice.get(bot.get_absolute_url()).content.decode()
    assert "ValueError: boom" in page and "my output" in page


def test_my_bots_lists_only_mine_with_their_status(alice: Client, user: User) -> None:
    mine = BotFactory(owner=user, name="mine")
    VersionFactory(bot=mine, number=1, status=VersionStatus.VALIDATING)
    BotFactory(name="theirs")
    page = alice.get(reverse("my-bots")).content.decode()
    assert "mine" in page and "theirs" not in page
    assert 'data-pending="1"' in page  # the refresher has work


def queries_of(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_my_bots_and_the_profile_cost_the_same_queries_for_one_bot_or_five(
    alice: Client, user: User
) -> None:
    """Each bot's status ("v2 rejected", "validating v1") reads its versions: from the
    page's one prefetch, not a query per bot."""
    pages = (reverse("my-bots"), reverse("profile", args=[user.username]))

    def add_bot() -> None:
        bot = BotFactory(owner=user)
        VersionFactory(bot=bot, number=1, status=VersionStatus.REJECTED)
        VersionFactory(bot=bot, number=2, status=VersionStatus.VALIDATING)

    add_bot()
    one = [queries_of(alice, url) for url in pages]
    for _ in range(4):
        add_bot()
    assert [queries_of(alice, url) for url in pages] == one
    page = alice.get(pages[1]).content.decode()
    assert page.count("validating v2") == 5


def test_the_status_feed_has_only_my_versions(alice: Client, user: User) -> None:
    mine = VersionFactory(bot=BotFactory(owner=user), status=VersionStatus.VALIDATING)
    VersionFactory()
    body = alice.get(reverse("my-versions-status")).json()
    assert body == {
        "versions": [
            {"id": mine.pk, "status": "validating", "label": "validating", "pending": True}
        ]
    }


def test_the_source_page_shows_the_source_to_its_owner(alice: Client, user: User) -> None:
    version = VersionFactory(bot=BotFactory(owner=user))
    page = alice.get(reverse("version-source", args=[version.bot_id, version.number]))
    assert "view.legal[0]" in page.content.decode()


def test_strangers_do_not_see_validation_matches_on_the_bot_page(client: Client) -> None:
    from arena.contract import MatchKind
    from tests.web.factories import MatchFactory, ParticipantFactory

    bot = active_bot()
    validation = MatchFactory(kind=MatchKind.VALIDATION, status="finished")
    ladder = MatchFactory(kind=MatchKind.LADDER, status="finished")
    for match in (validation, ladder):
        ParticipantFactory(match=match, index=0, bot=bot)
    BotVersion.objects.filter(pk=bot.active_version_id).update(validation_match=validation)
    page = client.get(bot.get_absolute_url()).content.decode()
    assert f"/matches/{ladder.pk}/" in page
    assert f"/matches/{validation.pk}/" not in page
    owners = logged_in(bot.owner).get(bot.get_absolute_url()).content.decode()
    assert f"/matches/{validation.pk}/" in owners


def test_the_stylesheet_is_found(client: Client) -> None:
    from django.contrib.staticfiles import finders

    assert finders.find("web/site.css")
