"""A tournament's page in Chromium: an owner enters from it; while the event runs the page
refreshes itself as matches finish; its final standings, head-to-head and rounds read on a
desktop and a 390x844 phone (nothing wider than the screen but the tables' own scroll)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import PHONE, log_in, screenshot
from tests.web.factories import UserFactory
from tests.web.tournaments.helpers import HIGHEST, LOWEST, house_bot, open_tournament, playing_bot
from web.pipeline.kinds.tournament import start
from web.pipeline.running import run_match
from web.sandbox import SandboxKind
from web.tournaments.entering import enter
from web.tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def field(tournament: Tournament) -> None:
    """Six entrants: four house bots and two uploaded ones."""
    for name in ("heuristic", "highest", "random", "lowest"):
        bot = house_bot(name)
        enter(bot.owner, tournament.pk, bot.pk)
    for owner_name, bot_name, source in [("ann", "tall", HIGHEST), ("bob", "short", LOWEST)]:
        owner = UserFactory(username=owner_name)
        enter(owner, tournament.pk, playing_bot(owner, bot_name, source).pk)


def test_an_owner_enters_a_bot_from_the_tournament_page(page: Any, live_server: Any) -> None:
    tournament = open_tournament(name="Club night")
    owner = UserFactory(username="cyd")
    playing_bot(owner, "climber", HIGHEST)
    log_in(page, live_server, "cyd")
    page.goto(f"{live_server.url}/tournaments/")
    screenshot(page, "tournament-list-desktop")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "tournament-list-phone")
    page.click("text=Club night")
    page.select_option("#entry-bot", label="cyd/climber")
    page.get_by_role("button", name="Enter", exact=True).click()
    page.locator(".message", has_text="cyd/climber is entered in Club night.").wait_for()
    assert "cyd/climber" in page.locator("ul.entries").inner_text()
    assert tournament.entries.get().name == "cyd/climber"


def test_a_running_tournament_page_refreshes_itself_as_matches_finish(
    page: Any, live_server: Any
) -> None:
    tournament = open_tournament(name="Live cup", deals_per_table=1)
    field(tournament)
    start(tournament.pk, send=False)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    assert "0 of 18 matches played" in page.locator("#standings").inner_text()
    first = tournament.tables.order_by("round", "table").first()
    assert first is not None
    run_match(first.match_id, SandboxKind.PROCESS)
    # The page's own poll of the API sees one more match played and reloads: no F5.
    page.locator("#standings", has_text="1 of 18 matches played").wait_for(timeout=30_000)


def test_the_final_standings_read_on_a_desktop_and_a_phone(page: Any, live_server: Any) -> None:
    tournament = open_tournament(name="Winter cup", deals_per_table=2)
    field(tournament)
    start(tournament.pk, send=False)
    for table in tournament.tables.all():
        run_match(table.match_id, SandboxKind.PROCESS)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    assert page.locator("h2", has_text="Final standings").is_visible()
    rows = page.locator("#standings table").first.locator("tbody tr")
    assert rows.count() == 6
    assert "heuristic-five-cucumbers" in rows.first.inner_text()
    assert page.locator("table.grid tbody tr").count() == 6  # head to head
    assert page.locator("#rounds h3").count() == 3
    match_link = page.locator("#rounds a").first
    screenshot(page, "tournament-desktop")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # On a phone the standings keep rank, bot, score and games in view.
    header = page.locator("#standings table").first.locator("thead").inner_text()
    assert all(word in header for word in ("Rank", "Bot", "Score", "Games"))
    screenshot(page, "tournament-phone")
    match_link.click()
    page.wait_for_url(re.compile(r"/matches/\d+/$"))
