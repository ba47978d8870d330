"""Honest waiting figures (web/matches/upload_waits.py, version_wait.py): the arena page and
``GET /api/arena/`` count the versions still waiting with their wait so far and leave the
house's bots out; a bot page, and each bot's card on My bots, tells a waiting version's place
in its queue and an estimate."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from arena.contract import MatchKind
from tests.web.conftest import logged_in
from tests.web.factories import BotFactory, MatchFactory, UserFactory, VersionFactory
from web.bots.house import HOUSE_USERNAME
from web.bots.models import Bot, BotVersion, VersionStatus
from web.matches.models import MatchStatus, RatingChange
from web.matches.status import arena_figures

pytestmark = pytest.mark.django_db

#: A test takes a few seconds: a wait "so far" grows meanwhile.
DRIFT = 10


def uploaded(bot: Bot, ago: float, verdict_after: float | None, status: str) -> BotVersion:
    created = timezone.now() - timedelta(seconds=ago)
    version: BotVersion = VersionFactory(
        bot=bot,
        status=status,
        created_at=created,
        validated_at=created + timedelta(seconds=verdict_after) if verdict_after else None,
    )
    if status == VersionStatus.ACTIVE:
        Bot.objects.filter(pk=bot.pk).update(active_version=version)
    return version


def rated(version: BotVersion, after: float) -> None:
    RatingChange.objects.create(
        bot=version.bot,
        version=version,
        match=MatchFactory(status=MatchStatus.FINISHED, rated=True),
        game=1,
        before=1500,
        after=1510,
        delta=10,
        created_at=version.created_at + timedelta(seconds=after),
    )


@pytest.fixture
def day_of_uploads(user: User) -> None:
    """Four uploads of the last day (one still queued, one active without a rated game
    yet), a house bot waiting for hours and an upload of the day before."""
    waiting = uploaded(BotFactory(owner=user, name="waits"), 600, 20, VersionStatus.ACTIVE)
    uploaded(BotFactory(owner=user, name="queued"), 300, None, VersionStatus.QUEUED)
    uploaded(BotFactory(owner=user, name="bad"), 100, 40, VersionStatus.REJECTED)
    rated(uploaded(BotFactory(owner=user, name="fast"), 200, 10, VersionStatus.ACTIVE), 120)
    house = BotFactory(owner=UserFactory(username=HOUSE_USERNAME), name="random-five-cucumbers")
    uploaded(house, 5 * 3600, None, VersionStatus.QUEUED)
    uploaded(BotFactory(owner=user, name="old"), 2 * 86400, 5000, VersionStatus.REJECTED)
    waiting.bot.refresh_from_db()
    assert waiting.bot.active_version_id == waiting.pk


def test_the_figures_count_versions_still_waiting_and_leave_house_bots_out(
    day_of_uploads: None,
) -> None:
    figures = arena_figures()
    verdict, first = figures.verdict, figures.first_rated
    # Verdicts after 20, 40 and 10 s, and one still queued for 300 s so far.
    assert (verdict.uploads, verdict.waiting) == (4, 1)
    assert verdict.median == pytest.approx(20)
    assert verdict.p95 == pytest.approx(300, abs=DRIFT)
    # A first rated game after 120 s; two still waiting (600 and 300 s so far); the
    # rejected version never gets one and is not counted. Counting only the versions
    # through (the old figure) would have said 120 s.
    assert (first.uploads, first.waiting) == (3, 2)
    assert first.median == pytest.approx(300, abs=DRIFT)
    assert first.p95 == pytest.approx(600, abs=DRIFT)


def test_the_arena_page_and_the_api_give_median_and_95th_percentile(
    day_of_uploads: None, client: Client
) -> None:
    body = client.get("/api/arena/").json()
    assert body["window_hours"] == 24
    assert body["upload_to_verdict"]["median_seconds"] == pytest.approx(20)
    assert body["upload_to_verdict"]["waiting"] == 1
    first = body["upload_to_first_rated_game"]
    assert (first["uploads"], first["waiting"]) == (3, 2)
    assert first["p95_seconds"] == pytest.approx(600, abs=DRIFT)
    page = client.get("/arena/").content.decode()
    assert "95th percentile" in page and "Waiting</th>" in page
    assert '<td>first rated game</td><td class="num">5 min' in page


#: Where an owner reads a version's wait: the bot's page, and the card of each bot on My bots.
PAGES = ["bot page", "my bots"]


def page_of(user: User, bot: Bot, where: str) -> str:
    url = f"/bots/{bot.pk}/" if where == "bot page" else "/my/bots/"
    return logged_in(user).get(url).content.decode()


@pytest.mark.parametrize("where", PAGES)
def test_a_waiting_versions_place_in_its_queue_and_an_estimate_are_told(
    user: User, where: str
) -> None:
    bot = BotFactory(owner=user, name="newcomer")
    version = uploaded(bot, 90, None, VersionStatus.QUEUED)
    for _ in range(2):  # ahead of it in the urgent queue: a validation and a challenge
        MatchFactory(kind=MatchKind.VALIDATION)
    MatchFactory(kind=MatchKind.CHALLENGE)
    match = MatchFactory(kind=MatchKind.VALIDATION)
    BotVersion.objects.filter(pk=version.pk).update(validation_match=match)
    MatchFactory(kind=MatchKind.LADDER)  # another queue: not ahead of it
    for minutes in range(6):  # the urgent queue's pace: one match every 10 minutes
        MatchFactory(
            kind=MatchKind.VALIDATION,
            status=MatchStatus.FINISHED,
            finished_at=timezone.now() - timedelta(minutes=5 + 10 * minutes),
        )
    page = page_of(user, bot, where)
    assert "waits for its validation verdict: 1 min 3" in page
    assert "3 matches ahead of it in its queue" in page
    assert "About 40 min to go at the last hour" in page  # (3 + 1) × 10 minutes


@pytest.mark.parametrize("where", PAGES)
def test_an_active_version_waiting_for_its_first_rated_game_is_told(user: User, where: str) -> None:
    bot = BotFactory(owner=user, name="passed")
    version = uploaded(bot, 120, 15, VersionStatus.ACTIVE)
    for _ in range(3):
        MatchFactory(kind=MatchKind.LADDER)
    page = page_of(user, bot, where)
    assert "waits for its first rated game: 2 min" in page
    assert "Its first ladder match is not planned yet; 3 ladder matches queued." in page
    assert "to go at the last hour" not in page  # no ladder match finished: no pace
    queued = MatchFactory(kind=MatchKind.LADDER, rated=True)
    queued.participants.create(index=0, bot=bot, version=version, name="alice/passed")
    assert "3 matches ahead of it in its queue" in page_of(user, bot, where)
    rated(version, 130)
    Bot.objects.filter(pk=bot.pk).update(games_since_version=1)
    assert "waits for" not in page_of(user, bot, where)


def test_my_bots_tells_each_bots_wait_on_its_own_card(user: User) -> None:
    waiting = BotFactory(owner=user, name="a-waiting")
    uploaded(waiting, 120, 15, VersionStatus.ACTIVE)
    settled = BotFactory(owner=user, name="b-settled")
    version = uploaded(settled, 300, 15, VersionStatus.ACTIVE)
    rated(version, 200)
    Bot.objects.filter(pk=settled.pk).update(games_since_version=1)
    checking = BotFactory(owner=user, name="c-checking")
    uploaded(checking, 30, None, VersionStatus.VALIDATING)
    cards = page_of(user, waiting, "my bots").split('<div class="card">')[1:]
    assert [("a-waiting" in c, "b-settled" in c, "c-checking" in c) for c in cards] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
    ]
    assert "waits for its first rated game" in cards[0]
    assert "waits for" not in cards[1]
    assert "waits for its validation verdict" in cards[2]
