"""Following a bot in Chromium: a queued match's page refreshes itself when the match moves
on, the owner switches the active version from the bot page, and the arena page reads on a
desktop and a phone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.utils import timezone

from arena.contract import MatchKind
from tests.e2e.conftest import PHONE, log_in, screenshot
from tests.web.factories import MatchFactory, VersionFactory, active_bot, variant
from web.bots.models import BotVersion, VersionStatus
from web.matches.models import Match, MatchStatus

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_queued_match_page_refreshes_itself_when_the_match_finishes(
    page: Any, live_server: Any
) -> None:
    match = MatchFactory(kind=MatchKind.LADDER)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    assert "next in its queue" in page.locator(".live").inner_text()
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.FINISHED, started_at=timezone.now(), finished_at=timezone.now()
    )
    # The page's own poll sees the change and reloads: no F5.
    page.locator(".facts", has_text="finished").wait_for(timeout=30_000)
    assert page.locator(".live").count() == 0


def test_the_owner_switches_the_active_version_from_the_bot_page(
    page: Any, live_server: Any
) -> None:
    bot = active_bot(name="switcher")
    first = bot.active_version
    assert first is not None
    second = VersionFactory(bot=bot, number=2, status=VersionStatus.ACTIVE, data=variant(1))
    BotVersion.objects.filter(pk=first.pk).update(status=VersionStatus.RETIRED)
    bot.active_version = second
    bot.save()
    log_in(page, live_server, bot.owner.username)
    page.goto(f"{live_server.url}/bots/{bot.pk}/")
    assert page.locator("tr.current").inner_text().startswith("v2")
    page.click("text=Make active")
    page.locator(".message", has_text="v1 plays from now on").wait_for()
    assert page.locator("tr.current").inner_text().startswith("v1")
    screenshot(page, "version-switch-desktop")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "version-switch-phone")


def test_the_arena_page_reads_on_a_desktop_and_a_phone(page: Any, live_server: Any) -> None:
    MatchFactory(kind=MatchKind.LADDER)
    MatchFactory(kind=MatchKind.CHALLENGE, status=MatchStatus.RUNNING)
    page.goto(f"{live_server.url}/arena/")
    table = page.locator("table.arena-load").inner_text()
    assert re.search(r"Ladder\s+1\s+0", table) and re.search(r"Challenge\s+0\s+1", table)
    screenshot(page, "arena-desktop")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "arena-phone")


def test_a_challenge_on_a_phone_searches_picks_and_follows_the_match(
    browser: Any, live_server: Any
) -> None:
    mine = active_bot(name="mine")
    theirs = active_bot(name="theirs")
    active_bot(name="faraway")
    context = browser.new_context(viewport=PHONE)
    tab = context.new_page()
    log_in(tab, live_server, mine.owner.username)
    tab.goto(f"{live_server.url}/bots/{mine.pk}/")
    tab.click("text=Challenge")
    tab.fill("#challenge-search", "thei")
    tab.click("form.search button")
    options = tab.locator("label.choice")
    assert options.count() == 1 and "theirs" in options.inner_text()
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    options.locator("input").check()
    tab.fill("#id_games", "4")
    screenshot(tab, "challenge-phone")
    tab.click("text=Queue the challenge")
    tab.wait_for_url(re.compile(r"/matches/\d+/$"))
    assert "next in its queue" in tab.locator(".live").inner_text()
    match = Match.objects.get(kind=MatchKind.CHALLENGE)
    assert match.games_planned == 4
    assert list(match.participants.values_list("bot_id", flat=True)) == [mine.pk, theirs.pk]
    context.close()
