"""What a regular trips on (issue 30), in Chromium on a desktop and a 390x844 phone: axe-core
finds no critical or serious violation on the pages a regular visits (each page's
screenshot kept under test-artifacts/), ranks are numbers with a visible legend, the phone's
navigation is one line, the viewer keeps the keys after its own buttons are used, the
landing page plays a recent top game, and a tournament's entry form and Withdraw button
read right once a bot is entered."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from cucumbers.games import GameName
from tests.e2e.axe import accessibility_problems
from tests.e2e.conftest import DESKTOP, PHONE, log_in, screenshot
from tests.e2e.test_viewer import GAME_1, GAME_2, as_outcome
from tests.web.factories import UserFactory
from tests.web.recorded import Entrant, record_series
from tests.web.tournaments.helpers import HIGHEST, LOWEST, house_bot, playing_bot
from web.bots.models import Bot
from web.matches.models import Match, MatchKind
from web.matches.replays import StoredFiles
from web.tournaments.entering import enter
from web.tournaments.models import RecurringTournament, Tournament
from web.tournaments.recurring import open_next

pytestmark = pytest.mark.django_db(transaction=True)


@dataclass
class Site:
    steady: Bot
    close: Bot
    fresh: Bot
    match: Match
    event: Tournament


@pytest.fixture
def site() -> Site:
    """A regular (rita) with two rated bots whose intervals overlap and an unrated one, a
    weekly house event she entered, and a finished rated-looking ladder match."""
    rita = UserFactory(username="rita")
    steady = playing_bot(rita, "steady", HIGHEST)
    close = playing_bot(UserFactory(username="otto"), "close", LOWEST)
    fresh = playing_bot(UserFactory(username="nina"), "fresh", LOWEST)
    Bot.objects.filter(pk=steady.pk).update(rating=1640, games=60, wins=30, skill_sigma=1.0)
    Bot.objects.filter(pk=close.pk).update(rating=1630, games=8, wins=2, skill_sigma=2.0)
    for name in ("heuristic", "highest", "random", "lowest"):
        house_bot(name)
    series = RecurringTournament.objects.create(
        name="Weekly Five Cucumbers round robin",
        game=GameName.FIVE_CUCUMBERS,
        first_start=timezone.now() + timedelta(days=2),
    )
    event = open_next(series.pk)
    assert event is not None
    enter(rita, event.pk, steady.pk)
    with StoredFiles() as files, transaction.atomic():
        match = record_series(
            game="five-cucumbers",
            kind=MatchKind.LADDER,
            seed=11,
            sandbox="process",
            entrants=[Entrant(p["name"]) for p in GAME_1["players"]],
            outcomes=[as_outcome(1, GAME_1), as_outcome(2, GAME_2)],
            files=files,
        )
    # Rated as the ladder would: a provisional seat at place 1 may still lose 100.
    for index, (before, after) in enumerate(
        [(1500, 1400), (1600, 1610), (1550, 1560), (1520, 1525)]
    ):
        match.participants.filter(index=index).update(rating_before=before, rating_after=after)
    Match.objects.filter(pk=match.pk).update(rated=True)
    return Site(steady, close, fresh, match, event)


def check(page: Any, name: str) -> list[str]:
    """axe on the desktop, a screenshot; then the same on a phone, with nothing wider than
    its screen but the tables' own scrolling regions. What is wrong, described."""
    page.set_viewport_size(DESKTOP)
    problems = accessibility_problems(page, f"{name} (desktop)")
    screenshot(page, f"regular-{name}-desktop")
    page.set_viewport_size(PHONE)
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > PHONE["width"]:
        problems.append(f"{name}: {width} px wide on a {PHONE['width']} px phone")
    problems += accessibility_problems(page, f"{name} (phone)")
    screenshot(page, f"regular-{name}-phone")
    page.set_viewport_size(DESKTOP)
    return problems


def test_the_pages_a_visitor_sees_pass_axe_on_a_desktop_and_a_phone(
    page: Any, live_server: Any, site: Site
) -> None:
    base = live_server.url
    page.goto(f"{base}/")
    page.wait_for_selector("[data-replay-viewer][data-loaded]")
    problems = check(page, "landing")
    for name, path in [
        ("leaderboard", "/leaderboard/"),
        ("tournaments", "/tournaments/"),
        ("tournament", site.event.get_absolute_url()),
        ("bot", site.close.get_absolute_url()),
        ("ratings", "/ratings/"),
        ("getting-started", "/getting-started/"),
        ("login", "/accounts/login/"),
        ("signup", "/accounts/signup/"),
    ]:
        page.goto(f"{base}{path}")
        problems += check(page, name)
    page.goto(f"{base}{site.match.get_absolute_url()}")
    page.wait_for_selector("[data-replay-viewer][data-loaded]")
    problems += check(page, "match")
    assert not problems, "\n".join(problems)


def test_the_pages_a_signed_in_regular_sees_pass_axe_on_a_desktop_and_a_phone(
    page: Any, live_server: Any, site: Site
) -> None:
    log_in(page, live_server, "rita")
    base = live_server.url
    problems = []
    for name, path in [
        ("my-bots", "/my/bots/"),
        ("new-bot", "/bots/new/"),
        ("tokens", "/accounts/tokens/"),
        ("my-tournament", site.event.get_absolute_url()),
        ("my-bot", site.steady.get_absolute_url()),
    ]:
        page.goto(f"{base}{path}")
        problems += check(page, name)
    assert not problems, "\n".join(problems)


def test_ranks_are_numbers_with_a_legend_and_unrated_bots_come_last(
    page: Any, live_server: Any, site: Site
) -> None:
    page.goto(f"{live_server.url}/leaderboard/")
    ranks = page.locator("tbody td.rank").all_inner_texts()
    names = page.locator("tbody tr td:nth-child(2)").all_inner_texts()
    assert names[:2] == ["steady", "close"] and names[-1] in ("fresh", "lowest-five-cucumbers")
    assert ranks[0] == "1" and ranks[1].startswith("2") and "≈" in ranks[1]
    # Unrated: no number, after every rated bot.
    assert all(r.startswith("–") for r in ranks[2:])
    legend = page.locator("#rank-legend")
    assert legend.is_visible() and "≈" in legend.inner_text()
    # A screen reader hears words for the marker.
    tied = page.get_by_role("cell", name="2 (tied: not separated from the bot above)")
    assert tied.count() == 1


def test_the_phone_gets_a_one_line_navigation_behind_a_menu_button(
    browser: Any, live_server: Any, site: Site
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{live_server.url}/leaderboard/")
    header = page.locator("header.top")
    assert header.bounding_box()["height"] < 64  # the brand and "Menu": one line
    assert not page.locator(".nav-wide").is_visible()
    page.get_by_text("Menu", exact=True).click()
    menu = page.locator(".nav-phone nav")
    assert menu.get_by_role("link", name="Tournaments").is_visible()
    screenshot(page, "regular-menu-open-phone")
    menu.get_by_role("link", name="Tournaments").click()
    page.wait_for_url(f"{live_server.url}/tournaments/")
    context.close()


def test_the_viewer_keeps_the_keys_after_its_own_buttons_are_clicked(
    page: Any, live_server: Any, site: Site
) -> None:
    page.goto(f"{live_server.url}{site.match.get_absolute_url()}")
    page.wait_for_selector('[data-replay-viewer][data-game="1"][data-loaded]')
    root = page.locator('[data-viewer-game="1"]')

    def index() -> int:
        return int(root.get_attribute("data-position-index") or -1)

    root.locator('[data-action="play-forward"]').click()
    assert index() == 1
    # The keys now go to the viewer, not to the page.
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('[data-viewer-game=\"1\"]').dataset.positionIndex === '2'"
    )
    root.locator('[data-action="trick-forward"]').click()
    after_trick = index()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        f"() => document.querySelector('[data-viewer-game=\"1\"]').dataset.positionIndex"
        f" === '{after_trick - 1}'"
    )
    root.locator('[data-action="toggle"]').click()
    page.wait_for_selector('[data-viewer-game="1"][data-playing="true"]')
    page.keyboard.press("Space")  # pauses: the button clicked last is not pressed again
    page.wait_for_selector('[data-viewer-game="1"][data-playing="false"]')


def test_the_landing_page_plays_a_recent_game_and_shows_the_arena_live(
    page: Any, live_server: Any, site: Site
) -> None:
    page.goto(f"{live_server.url}/")
    viewer = page.locator("[data-replay-viewer][data-autoplay]")
    page.wait_for_selector("[data-replay-viewer][data-loaded][data-playing='true']")
    page.wait_for_function(
        "() => Number(document.querySelector('[data-viewer-game]').dataset.positionIndex) >= 2"
    )
    assert f"match #{site.match.pk}" in page.locator("#featured-caption").inner_text()
    assert viewer.count() == 1
    assert "#" not in page.url  # it plays without rewriting the address
    figures = page.locator(".live-figures").inner_text()
    assert "Bots playing" in figures and "Games today" in figures and "Matches queued" in figures
    assert site.event.name in page.locator(".next-event").inner_text()


def test_an_entered_owner_is_offered_no_other_bot_and_sees_a_withdraw_button(
    page: Any, live_server: Any, site: Site
) -> None:
    playing_bot(site.steady.owner, "spare", LOWEST)
    log_in(page, live_server, "rita")
    page.goto(f"{live_server.url}{site.event.get_absolute_url()}")
    assert page.locator("#entry-bot").count() == 0
    assert "rita/steady" in page.locator("#your-entry").inner_text()
    withdraw = page.get_by_role("button", name="Withdraw rita/steady")
    assert withdraw.count() == 2 and withdraw.first.is_visible()
    withdraw.first.click()
    page.locator(".message", has_text="withdrawn").wait_for()
    assert sorted(page.locator("#entry-bot option").all_inner_texts()) == [
        "rita/spare",
        "rita/steady",
    ]
