"""Honest waiting figures (web/matches/upload_waits.py, version_wait.py): the arena page and
``GET /api/arena/`` count the versions still waiting with their wait so far and leave the
house's bots out; a bot page tells a waiting version's place in its queue and an estimate."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from arena.contract import MatchKind
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


def test_a_bot_page_tells_a_waiting_versions_place_in_its_queue_and_an_estimate(
    user: User, client: Client
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
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "waits for its validation verdict: 1 min 3" in page
    assert "3 matches ahead of it in its queue" in page
    assert "About 40 min to go at the last hour" in page  # (3 + 1) × 10 minutes


def test_a_bot_page_tells_an_active_version_waiting_for_its_first_rated_game(
    user: User, client: Client
) -> None:
    bot = BotFactory(owner=user, name="passed")
    version = uploaded(bot, 120, 15, VersionStatus.ACTIVE)
    for _ in range(3):
        MatchFactory(kind=MatchKind.LADDER)
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "waits for its first rated game: 2 min" in page
    assert "Its first ladder match is not planned yet; 3 ladder matches queued." in page
    assert "to go at the last hour" not in page  # no ladder match finished: no pace
    queued = MatchFactory(kind=MatchKind.LADDER, rated=True)
    queued.participants.create(index=0, bot=bot, version=version, name="alice/passed")
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert "3 matches ahead of it in its queue" in page
    rated(version, 130)
    Bot.objects.filter(pk=bot.pk).update(games_since_version=1)
    assert "waits for" not in client.get(f"/bots/{bot.pk}/").content.decode()
