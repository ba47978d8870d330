"""What a newcomer and a regular tripped on (issue 45), in Chromium on a desktop and a
390x844 phone, axe-core on each page: the rules' wide tables are scrolling regions that take
the keyboard's focus, the challenge form calls a bot with no rated game "unrated" as the
leaderboard does, the match page's Elo change and Faults and the token page's Revoke are on
a phone's screen without a sideways scroll, the tournament's select is in the page's font,
and My bots shows the waiting card of a version that waits for its first rated game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.db import transaction

from tests.e2e.axe import accessibility_problems
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE, log_in, screenshot
from tests.e2e.test_viewer import GAME_1, GAME_2, as_outcome
from tests.web.factories import UserFactory
from tests.web.recorded import Entrant, record_series
from tests.web.tournaments.helpers import HIGHEST, LOWEST, open_tournament, playing_bot
from web.accounts.models import ApiToken
from web.bots.models import Bot
from web.matches.models import Match, MatchKind
from web.matches.replays import StoredFiles
from web.tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORTS = {"desktop": DESKTOP, "phone": PHONE}


@dataclass
class Site:
    rated: Bot
    fresh: Bot
    stranger: Bot
    match: Match
    event: Tournament


@pytest.fixture
def site() -> Site:
    """nell, with a rated bot and one whose active version waits for its first rated game;
    a stranger's unrated bot; a finished rated match with a fault; an open tournament; two
    of nell's tokens, one revoked."""
    nell = UserFactory(username="nell")
    rated = playing_bot(nell, "steady-ducker", HIGHEST)
    Bot.objects.filter(pk=rated.pk).update(
        rating=1612, games=40, games_since_version=40, wins=12, skill_sigma=1.5
    )
    fresh = playing_bot(nell, "fresh-start", LOWEST)
    stranger = playing_bot(UserFactory(username="oscar"), "newcomer-bot", LOWEST)
    ApiToken.issue(nell, "laptop")
    ApiToken.issue(nell, "the old desktop in the garage")[0].revoke()
    names = ["nell/steady-ducker", "oscar/newcomer-bot", "builtin:heuristic", "rita/late-lead"]
    with StoredFiles() as files, transaction.atomic():
        match = record_series(
            game="five-cucumbers",
            kind=MatchKind.LADDER,
            seed=11,
            sandbox="process",
            entrants=[Entrant(name) for name in names[: len(GAME_1["players"])]],
            outcomes=[as_outcome(1, GAME_1), as_outcome(2, GAME_2)],
            files=files,
        )
    for index, (before, after) in enumerate([(1500, 1400), (1612, 1618.5), (1550, 1560)]):
        match.participants.filter(index=index).update(rating_before=before, rating_after=after)
    Match.objects.filter(pk=match.pk).update(rated=True)
    return Site(rated, fresh, stranger, match, open_tournament(name="Spring cup"))


def each_viewport(page: Any, name: str) -> list[str]:
    """axe on a desktop, then on a phone (a screenshot of each); what it finds, described."""
    problems = []
    for label, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        problems += accessibility_problems(page, f"{name} ({label})")
        screenshot(page, f"strangers-{name}-{label}")
    return problems


def within_the_screen(page: Any, selector: str) -> list[str]:
    """The elements of ``selector`` shown at this width whose box reaches past the right edge
    of the screen or of a scrolling box around them (a part that needs a sideways scroll)."""
    assert page.locator(selector).count() > 0, f"nothing matches {selector}"
    found: list[str] = page.eval_on_selector_all(
        selector,
        """(elements) => elements.filter((e) => {
            if (e.getClientRects().length === 0) return false;  // not shown at this width
            const box = e.getBoundingClientRect();
            let clip = window.innerWidth;
            for (let p = e.parentElement; p; p = p.parentElement) {
                if (p.scrollWidth > p.clientWidth && getComputedStyle(p).overflowX !== "visible")
                    clip = Math.min(clip, p.getBoundingClientRect().right);
            }
            return box.right > clip + 0.5;
        }).map((e) => e.outerHTML.slice(0, 120))""",
    )
    return found


def test_the_rules_wide_tables_take_the_focus_and_scroll_by_keyboard(
    page: Any, live_server: Any
) -> None:
    page.goto(f"{live_server.url}/rules/")
    assert each_viewport(page, "rules") == []
    regions = page.locator("article.doc .table-wrap")
    tables = page.locator("article.doc table").count()
    assert regions.count() == tables > 0
    labels = [regions.nth(i).get_attribute("aria-label") for i in range(tables)]
    assert all(label for label in labels) and len(set(labels)) == tables, labels
    assert all(regions.nth(i).get_attribute("tabindex") == "0" for i in range(tables))
    assert all(regions.nth(i).get_attribute("role") == "region" for i in range(tables))
    # On the phone (each_viewport left it there), the worked example is wider than the
    # screen: Tab reaches its box, and the arrow keys scroll it.
    example = page.locator('[aria-label^="A worked example"]')
    assert example.evaluate("e => e.scrollWidth > e.clientWidth")
    example.focus()
    assert page.evaluate("document.activeElement.getAttribute('aria-label')").startswith(
        "A worked example"
    )
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('[aria-label^=\"A worked example\"]').scrollLeft > 0"
    )
    example.screenshot(path=str(ARTIFACTS / "strangers-rules-example-phone.png"))


@pytest.mark.parametrize(
    ("path", "name"),
    [("/docs/writing-bots/", "writing-bots"), ("/ratings/", "ratings"), ("/docs/bots/", "bots")],
)
def test_every_documents_tables_are_named_focusable_regions(
    page: Any, live_server: Any, path: str, name: str
) -> None:
    page.goto(f"{live_server.url}{path}")
    assert each_viewport(page, name) == []
    tables = page.locator("article.doc table")
    boxes = page.locator("article.doc .table-wrap[role=region][tabindex='0'][aria-label]")
    assert tables.count() == boxes.count() > 0
    assert within_the_screen(page, "article.doc .table-wrap") == []


def test_the_challenge_form_calls_a_bot_with_no_rated_game_unrated(
    page: Any, live_server: Any, site: Site
) -> None:
    log_in(page, live_server, "nell")
    page.goto(f"{live_server.url}/bots/{site.stranger.pk}/challenge/")
    against = page.locator("main form.card p").first.inner_text()
    assert against == "Against oscar/newcomer-bot (unrated), and, if you like:"
    labels = [text.strip() for text in page.locator("label.choice").all_inner_texts()]
    choices = dict(text.split(" ", 1) for text in labels)
    assert choices["nell/steady-ducker"] == "Elo 1612", labels
    assert choices["nell/fresh-start"] == "unrated"
    assert "1500" not in page.locator("main").inner_text()
    assert each_viewport(page, "challenge") == []


def test_the_match_pages_elo_change_and_faults_are_on_a_phones_screen(
    page: Any, live_server: Any, site: Site
) -> None:
    page.goto(f"{live_server.url}{site.match.get_absolute_url()}")
    page.wait_for_selector("[data-replay-viewer][data-loaded]")
    assert each_viewport(page, "match") == []
    participants = page.locator("table.participants")
    participants.screenshot(path=str(ARTIFACTS / "strangers-participants-phone.png"))
    headers = page.locator("table.participants th").all_inner_texts()
    assert [h.strip() for h in headers][-2:] == ["Faults", "Elo change ?"], headers
    assert within_the_screen(page, "table.participants th, table.participants td") == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_token_pages_revoke_is_on_a_phones_screen(
    page: Any, live_server: Any, site: Site
) -> None:
    log_in(page, live_server, "nell")
    page.goto(f"{live_server.url}/accounts/tokens/")
    assert each_viewport(page, "tokens") == []
    page.locator("table.tokens").screenshot(
        path=str(ARTIFACTS / "strangers-tokens-table-phone.png")
    )
    assert page.get_by_role("button", name="Revoke").count() == 1
    assert within_the_screen(page, "table.tokens th, table.tokens td, table.tokens button") == []


def test_the_tournament_pages_select_keeps_the_pages_font_on_a_phone(
    page: Any, live_server: Any, site: Site
) -> None:
    log_in(page, live_server, "nell")
    page.goto(f"{live_server.url}{site.event.get_absolute_url()}")
    assert each_viewport(page, "tournament") == []
    select, label, body = page.evaluate(
        """() => ['#entry-bot', 'label[for=entry-bot]', 'body'].map(
            (s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize))"""
    )
    assert select == label == body >= 16, (select, label, body)
    # As tall as the Enter button beside it, a finger's target (the native one was 23 px).
    entry = page.locator("#entry-bot").bounding_box()
    button = page.locator("form.inline-form button").bounding_box()
    assert entry["height"] >= 40 and abs(entry["height"] - button["height"]) <= 1
    assert abs(entry["y"] - button["y"]) <= 1


def test_my_bots_shows_the_waiting_card_of_a_version_with_no_rated_game(
    page: Any, live_server: Any, site: Site
) -> None:
    log_in(page, live_server, "nell")
    page.goto(f"{live_server.url}/my/bots/")
    assert each_viewport(page, "my-bots") == []
    cards = page.locator("main .card")
    fresh = cards.filter(has_text="fresh-start")
    wait = fresh.locator(".version-wait")
    assert wait.get_attribute("role") == "status"
    assert wait.inner_text().startswith("v1 waits for its first rated game:")
    # The rated bot waits for nothing: no card.
    assert cards.filter(has_text="steady-ducker").locator(".version-wait").count() == 0
