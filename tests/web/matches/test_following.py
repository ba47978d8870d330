"""Following a match: the public arena page, a queued match's place in its queue, the match
list by bot with links and plain dates, and the bot page's recent matches with their
opponents."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from arena.contract import MatchKind
from tests.web.factories import MatchFactory, VersionFactory, active_bot
from web.bots.models import VersionStatus
from web.matches.models import MatchStatus, RatingChange
from web.matches.status import arena_figures, place_in_queue
from web.matches.templatetags.when import ago, duration

pytestmark = pytest.mark.django_db


def test_the_arena_page_counts_queued_and_running_matches_by_kind(client: Client) -> None:
    for kind, status in [
        (MatchKind.LADDER, MatchStatus.QUEUED),
        (MatchKind.LADDER, MatchStatus.QUEUED),
        (MatchKind.VALIDATION, MatchStatus.QUEUED),
        (MatchKind.CHALLENGE, MatchStatus.RUNNING),
    ]:
        MatchFactory(kind=kind, status=status)
    figures = arena_figures()
    assert figures.queued == {"ladder": 2, "validation": 1}
    assert figures.running == {"challenge": 1}
    page = client.get("/arena/")
    assert page.status_code == 200
    rows = page.content.decode()
    assert "Validation" in rows or "validation" in rows
    assert "/matches/" not in rows.split("<main", 1)[1]  # counts, never anyone's match


def test_waiting_times_are_medians_from_upload(user: User) -> None:
    now = timezone.now()
    bot = active_bot(owner=user, name="timed")
    bot.versions.filter(number=1).update(created_at=now - timedelta(days=2))  # out of the window
    for n, seconds in enumerate((30, 60, 600), start=2):
        VersionFactory(
            bot=bot,
            number=n,
            status=VersionStatus.RETIRED,
            created_at=now - timedelta(hours=1),
            validated_at=now - timedelta(hours=1) + timedelta(seconds=seconds),
        )
    version = bot.versions.get(number=2)
    match = MatchFactory(status=MatchStatus.FINISHED, rated=True)
    RatingChange.objects.create(
        bot=bot,
        version=version,
        match=match,
        game=1,
        before=1500,
        after=1510,
        delta=10,
        created_at=version.created_at + timedelta(seconds=90),
    )
    figures = arena_figures()
    assert figures.verdict.median == pytest.approx(60)
    assert figures.first_rated.median == pytest.approx(90)
    assert duration(75) == "1 min 15 s" and duration(3.2) == "3 s" and duration(3700) == "1 h 1 min"


def test_a_queued_match_knows_how_many_are_ahead_of_it_in_its_queue(client: Client) -> None:
    first = MatchFactory(kind=MatchKind.LADDER)
    MatchFactory(kind=MatchKind.VALIDATION)  # another queue: not ahead of a ladder match
    second = MatchFactory(kind=MatchKind.LADDER)
    challenge = MatchFactory(kind=MatchKind.CHALLENGE)
    assert (place_in_queue(first), place_in_queue(second), place_in_queue(challenge)) == (0, 1, 1)
    page = client.get(f"/matches/{second.pk}/").content.decode()
    assert "1 match ahead of it in its queue" in page
    assert "data-live-match" in page and "match_live.js" in page
    assert "next in its queue" in client.get(f"/matches/{first.pk}/").content.decode()
    finished = MatchFactory(status=MatchStatus.FINISHED)
    assert "data-live-match" not in client.get(f"/matches/{finished.pk}/").content.decode()


def test_the_match_list_filters_by_bot_links_bots_and_says_just_now(client: Client) -> None:
    mine, other = active_bot(name="mine"), active_bot(name="other")
    played = MatchFactory(status=MatchStatus.FINISHED, finished_at=timezone.now())
    played.participants.create(index=0, bot=mine, version=mine.active_version, name="a/mine")
    played.participants.create(index=1, bot=other, version=other.active_version, name="b/other")
    alone = MatchFactory(status=MatchStatus.FINISHED, finished_at=timezone.now())
    alone.participants.create(index=0, bot=other, version=other.active_version, name="b/other")
    page = client.get(f"/matches/?bot={mine.pk}")
    assert [m.pk for m in page.context["page"].object_list] == [played.pk]
    text = page.content.decode()
    assert f'href="/bots/{other.pk}/"' in text and "just now" in text
    assert client.get("/matches/?bot=99999999999999999999").status_code == 200  # no such bot
    assert ago(timezone.now() - timedelta(minutes=5)) == "5\xa0minutes ago"  # one line


def test_the_bot_page_lists_recent_matches_with_opponents_and_a_link_to_all(
    client: Client,
) -> None:
    mine, other = active_bot(name="mine"), active_bot(name="other")
    played = MatchFactory(status=MatchStatus.FINISHED, finished_at=timezone.now())
    played.participants.create(index=0, bot=mine, version=mine.active_version, name="a/mine")
    played.participants.create(index=1, bot=other, version=other.active_version, name="b/other")
    text = client.get(f"/bots/{mine.pk}/").content.decode()
    assert f'href="/bots/{other.pk}/">b/other</a>' in text
    assert f'href="/matches/?bot={mine.pk}"' in text and "just now" in text
