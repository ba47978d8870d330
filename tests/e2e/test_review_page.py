"""The site's move review in Chromium, as an owner uses it: the Review button on the match
page (a real form post with its CSRF token), the review page while queued (a script asks for
its status and reloads the page only once it changes: no timed refresh) and once done, and a
decision's link, which opens the match page's viewer at that decision as the bot's seat saw
it (its legal cards marked, the card it chose). Desktop and a 390x844 phone, with
screenshots; axe-core finds nothing critical or serious. The result is computed here with
the arena worker's own function and delivered through the platform's task, signed by a
registered host; the same through real workers on Redis:
tests/web/reviews/test_review_pipeline.py."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import override_settings

from arena.review_contract import dump
from arena.reviewing import review_job
from arena.signing import Purpose, Signer, generate_key
from tests.e2e.axe import accessibility_problems
from tests.e2e.conftest import DESKTOP, PHONE, log_in, screenshot
from tests.e2e.test_viewer import Viewer
from tests.web.factories import UserFactory
from tests.web.reviews.helpers import finished_match
from web.arena_hosts.hosts import add_host
from web.matches.models import Match
from web.matches.replays import read_replay
from web.reviews.models import Review
from web.reviews.sending import job_for
from web.reviews.tasks import review_result_task


def shown_as(match: Match, moment: str) -> str:
    """The viewer's own key of a decision's moment: a lead after the first trick
    (``t6-p0``, not a moment of the timeline) is shown where the table stands then, the
    previous trick complete (``t5-p3``; docs: the viewer's ``indexOf``)."""
    found = re.fullmatch(r"g(\d+)-r(\d+)-t(\d+)-p(\d+)-s(\d+)", moment)
    assert found, moment
    game, rnd, trick, played, seat = map(int, found.groups())
    if played or trick == 1:
        return moment
    replay = read_replay(match.games.get(number=game))
    plays = len(replay["rounds"][rnd - 1]["tricks"][trick - 2]["plays"])
    return f"g{game}-r{rnd}-t{trick - 1}-p{plays}-s{seat}"


@pytest.fixture
def match(transactional_db: None) -> Match:
    with override_settings(MATCH_GAMES=2):
        return finished_match(UserFactory(username="olga"))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@override_settings(REVIEW_DEALS=30)
def test_an_owner_asks_for_a_review_reads_it_and_opens_a_decision_in_the_seat_view(
    browser: Any, live_server: Any, match: Match, viewport: dict[str, int]
) -> None:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(15_000)
    log_in(page, live_server, "olga")
    page.goto(f"{live_server.url}{match.get_absolute_url()}")
    assert accessibility_problems(page, "the match page with its Review button") == []
    page.click("[data-review-form] button")
    page.wait_for_selector('[data-review-status="queued"]')
    assert "estimate" in page.inner_text("#estimate")
    # No timed reload (axe's critical meta-refresh): a script asks for the status instead.
    assert page.locator('meta[http-equiv="refresh"]').count() == 0
    assert accessibility_problems(page, "the queued review page") == []
    screenshot(page, f"review-queued-{'phone' if viewport == PHONE else 'desktop'}")
    # While the review stays queued the page stays as it is (a screen reader keeps its
    # place): the script asks the API, and the document is the same one 5 s later.
    page.evaluate("window.sameDocument = true")
    with page.expect_request(lambda r: "/api/matches/" in r.url, timeout=9_000):
        pass
    page.wait_for_timeout(5_000)
    assert page.evaluate("window.sameDocument === true")

    review = Review.objects.get()
    assert review.attempt is not None
    host = Signer("arena-e2e", generate_key())
    add_host(host.name, host.public)
    result = review_job(job_for(review, review.attempt), "arena-e2e")
    assert review_result_task(host.seal(Purpose.REVIEW_RESULT, dump(result))) == "recorded"
    # Once the status changes the page reloads: it comes to the result on its own.
    page.wait_for_selector('[data-review-status="done"]', timeout=30_000)
    assert page.evaluate("window.sameDocument === undefined")
    assert accessibility_problems(page, "the review page") == []
    screenshot(page, f"review-done-{'phone' if viewport == PHONE else 'desktop'}")
    rows = page.locator("[data-decision]")
    assert rows.count() == min(30, sum(len(g.review["decisions"]) for g in result.games))

    link = page.locator("[data-move-link]").first
    moment = str(link.get_attribute("href")).split("#", 1)[1]
    game, seat = int(moment.split("-")[0][1:]), int(moment.rsplit("-s", 1)[1])
    link.click()
    page.wait_for_selector(f'[data-position-key="{shown_as(match, moment)}"]')
    viewer = Viewer(page, game)
    assert viewer.root.get_attribute("data-view") == str(seat)
    # The costliest decision, first on the page: the viewer shows the card it chose there.
    _, worst = min(
        ((g, d) for g in result.games for d in g.review["decisions"]),
        key=lambda pair: (-pair[1]["regret"], pair[0].number, pair[1]["round"], pair[1]["trick"]),
    )
    chosen = viewer.root.locator("[data-decision]").get_attribute("data-chosen")
    assert chosen == str(worst["played"])
    legal = viewer.seat(seat).locator("[data-hand] [data-card][data-legal]").count()
    assert legal >= 2  # a decision: more than one legal card
    screenshot(page, f"review-move-{'phone' if viewport == PHONE else 'desktop'}")
    context.close()
    assert not errors, errors
