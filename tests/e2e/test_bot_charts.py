"""The bot page's charts in a real browser: the inline SVG draws (no script needed), scales
to a phone's width, and screenshots are saved for a human to look at."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import ARTIFACTS, PHONE, screenshot
from tests.web.bots.history import record_history
from tests.web.factories import active_bot
from web.bots.models import Bot


@pytest.fixture
def veteran(transactional_db: None) -> Bot:
    """A bot with 60 rated matches of five games against four others at varied tables."""
    bots = [active_bot(name=name) for name in ("gherkin", "pickle", "relish", "brine", "dill")]
    matches = []
    for m in range(60):
        seated = [0, *[(m + k) % 4 + 1 for k in range(1 + m % 3)]]  # tables of 2 to 4
        games = [seated[g % len(seated) :] + seated[: g % len(seated)] for g in range(5)]
        if m > 30:  # it gets better: first in two games of three in the second half
            games = [
                sorted(game, key=lambda b: (b != 0, b)) if (m + g) % 3 else game
                for g, game in enumerate(games)
            ]
        matches.append((seated, games))
    record_history(bots, matches)
    return bots[0]


def test_the_bot_page_draws_its_charts(page: Any, live_server: Any, veteran: Bot) -> None:
    page.goto(f"{live_server.url}{veteran.get_absolute_url()}")
    elo = page.locator('[data-chart="elo"] svg')
    assert elo.is_visible()
    box = elo.bounding_box()
    assert box["width"] > 600 and box["height"] > 200  # scaled up from its viewBox
    line = page.locator(".chart-line")
    # 300 games and the start, downsampled to the page's 200 points.
    assert int(line.get_attribute("data-points")) == 200
    assert len(line.get_attribute("points").split()) == 200
    assert "200 of 301 points" in page.locator('[data-chart="elo"] summary').inner_text()
    sizes = page.locator("[data-table-size]").evaluate_all(
        "nodes => nodes.map(n => Number(n.dataset.tableSize))"
    )
    assert sizes == [2, 3, 4]
    for svg in page.locator("svg.chart-svg").all():
        assert svg.get_attribute("role") == "img" and svg.locator("title").count() >= 1
    # Bars are drawn with a height (CSS applied, geometry sane).
    first = page.locator('[data-table-size="2"] [data-place="1"] rect').bounding_box()
    assert first["height"] > 10
    assert page.locator("[data-head-to-head] tbody tr").count() == 4
    screenshot(page, "bot-charts-desktop")

    page.set_viewport_size(PHONE)
    box = elo.bounding_box()
    assert box["width"] <= PHONE["width"]  # no sideways scrolling because of a chart
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "bot-charts-phone")
    page.locator('[data-chart="elo"]').screenshot(path=str(ARTIFACTS / "bot-charts-elo-phone.png"))
