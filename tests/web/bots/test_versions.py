"""Managing versions: the owner makes a passed version active again (a roll-back), each
version's figures are on the bot page, and an identical re-upload is refused with a pointer
to the version that already holds the file."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.web.conftest import logged_in
from tests.web.factories import GOOD_BOT, MatchFactory, VersionFactory, active_bot, variant
from web.bots.errors import UploadError
from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import MatchStatus, RatingChange
from web.pages.versions import figures

pytestmark = pytest.mark.django_db


def two_versions(owner: User) -> tuple[Bot, BotVersion, BotVersion]:
    """A bot whose v1 played and was retired for v2, active now."""
    bot = active_bot(owner=owner, name="twice")
    first = bot.active_version
    assert first is not None
    second = VersionFactory(bot=bot, number=2, status=VersionStatus.ACTIVE, data=variant(1))
    BotVersion.objects.filter(pk=first.pk).update(status=VersionStatus.RETIRED)
    bot.active_version = second
    bot.save()
    match = MatchFactory(status=MatchStatus.FINISHED, rated=True)
    match.participants.create(index=0, bot=bot, version=first, name="x", placement=1)
    for game in range(1, 26):
        RatingChange.objects.create(
            bot=bot, version=first, match=match, game=game, before=1500, after=1502, delta=2
        )
    return bot, first, second


def test_an_owner_rolls_back_to_a_version_that_passed(user: User) -> None:
    bot, first, second = two_versions(user)
    response = logged_in(user).post(f"/bots/{bot.pk}/versions/1/activate/")
    assert response.status_code == 302
    bot.refresh_from_db()
    first.refresh_from_db()
    second.refresh_from_db()
    assert bot.active_version == first
    assert (first.status, second.status) == (VersionStatus.ACTIVE, VersionStatus.RETIRED)
    # It keeps the rated games it played: 25 of them, so it is not provisional again.
    assert bot.games_since_version == 25 and not bot.is_provisional


def test_a_rejected_or_pending_version_cannot_be_made_active(user: User) -> None:
    bot, _, second = two_versions(user)
    VersionFactory(bot=bot, number=3, status=VersionStatus.REJECTED, data=variant(2))
    VersionFactory(bot=bot, number=4, status=VersionStatus.QUEUED, data=variant(3))
    client = logged_in(user)
    for number, status in ((3, "rejected"), (4, "queued for validation")):
        page = client.post(f"/bots/{bot.pk}/versions/{number}/activate/", follow=True)
        assert f"v{number} is {status}" in page.content.decode()
    bot.refresh_from_db()
    assert bot.active_version == second


def test_nobody_else_changes_the_active_version(user: User, other_user: User) -> None:
    bot, _, second = two_versions(user)
    assert logged_in(other_user).post(f"/bots/{bot.pk}/versions/1/activate/").status_code == 403
    assert Client().post(f"/bots/{bot.pk}/versions/1/activate/").status_code == 302  # log in
    bot.refresh_from_db()
    assert bot.active_version == second


def test_the_bot_page_shows_each_versions_figures_and_the_switch_to_its_owner(
    user: User,
) -> None:
    bot, first, _ = two_versions(user)
    assert figures(bot)[first.pk].rated_games == 25
    assert figures(bot)[first.pk].elo_change == 50.0
    assert figures(bot)[first.pk].mean_place == 1.0
    mine = logged_in(user).get(f"/bots/{bot.pk}/").content.decode()
    assert "Make active" in mine and "50.0" in mine
    assert "Make active" not in Client().get(f"/bots/{bot.pk}/").content.decode()


def test_an_identical_re_upload_is_refused_pointing_at_the_version_that_has_it(
    user: User,
) -> None:
    bot = active_bot(owner=user, name="same")
    with pytest.raises(UploadError) as caught:
        upload_version(user, "same.py", GOOD_BOT, bot=bot)
    assert caught.value.problem == "duplicate_version" and caught.value.http_status == 409
    assert "already v1 of same (active)" in caught.value.message
    assert f"/bots/{bot.pk}/" in caught.value.message
    form = logged_in(user).post(
        f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("same.py", GOOD_BOT)}
    )
    assert form.status_code == 409 and "nothing new to upload" in form.content.decode()
    assert bot.versions.count() == 1


def test_a_rejected_file_may_be_tried_again(user: User) -> None:
    bot = active_bot(owner=user, name="retry")
    VersionFactory(bot=bot, number=2, status=VersionStatus.REJECTED, data=variant(1))
    again = upload_version(user, "retry.py", variant(1), bot=bot)
    assert again.number == 3


def test_a_bot_has_one_standing_in_the_same_words_on_every_page(user: User) -> None:
    bot = active_bot(owner=user, name="steady")
    Bot.objects.filter(pk=bot.pk).update(active_version=None)
    BotVersion.objects.filter(bot=bot).update(status=VersionStatus.REJECTED)
    client = logged_in(user)
    pages = [f"/bots/{bot.pk}/", f"/users/{user.username}/", "/my/bots/"]
    for path in pages:
        text = client.get(path).content.decode()
        assert "v1 rejected" in text, path
        for other in ("not validated yet", "no active version"):
            assert other not in text, (path, other)
    bot.refresh_from_db()
    VersionFactory(bot=bot, number=2, status=VersionStatus.QUEUED, data=variant(1))
    assert bot.standing == "validating v2"


def test_a_bot_without_a_rated_game_is_unrated_not_1500_provisional(user: User) -> None:
    bot = active_bot(owner=user, name="fresh")
    for path in (f"/bots/{bot.pk}/", "/", f"/users/{user.username}/"):
        text = Client().get(path).content.decode()
        main = text.split("<main", 1)[1]
        shown = re.sub(r"<[^>]+>", "", main)  # what is read, not the titles
        assert "unrated" in shown and "1500" not in shown, path
