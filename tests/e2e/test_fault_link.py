"""A fault in the match page's games table links to its move: the viewer opens there, on the
fault; its owner (and staff) read the whole traceback beside it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.db import transaction

from arena.contract import MatchKind
from cucumbers.faults import Fault, FaultKind
from cucumbers.tracebacks import BotTraceback, Frame
from tests.e2e.conftest import PHONE, screenshot
from tests.e2e.replays import FAULT_ROUND, FAULT_SEAT, FAULT_TRICK
from tests.e2e.test_viewer import GAME_1, GAME_2, Viewer, as_outcome, key, log_in_as_staff
from tests.web.recorded import Entrant, record_series
from web.matches.models import Match
from web.matches.replays import StoredFiles

TRACEBACK = BotTraceback(
    (
        Frame("mybot.py", 21, "play", "return self.choose(view, legal)"),
        Frame("mybot.py", 34, "choose", "return ranked[0]  # the lowest that still covers"),
    ),
    "IndexError: list index out of range",
)


@pytest.fixture
def match(transactional_db: None) -> Match:
    """The viewer tests' match, its fault a crash with a traceback (staff read it)."""
    (fault,) = as_outcome(1, GAME_1).faults
    detail = "IndexError: list index out of range (mybot.py, line 34)"
    crash = Fault(fault.seat, fault.round, fault.trick, FaultKind.CRASH, detail, False, TRACEBACK)
    replay = {**GAME_1, "faults": [crash.to_json()]}
    first = replace(as_outcome(1, replay), faults=(crash,))
    with StoredFiles() as files, transaction.atomic():
        return record_series(
            game="five-cucumbers",
            kind=MatchKind.LADDER,
            seed=11,
            sandbox="process",
            entrants=[Entrant(p["name"]) for p in GAME_1["players"]],
            outcomes=[first, as_outcome(2, GAME_2)],
            files=files,
        )


@pytest.mark.parametrize("viewport", [None, PHONE], ids=["desktop", "phone"])
def test_the_faults_link_opens_the_viewer_at_its_move_with_the_traceback_beside_it(
    browser: Any, live_server: Any, match: Match, viewport: Any
) -> None:
    page = browser.new_page(viewport=viewport) if viewport else browser.new_page()
    log_in_as_staff(page, live_server)
    page.goto(f"{live_server.url}{match.get_absolute_url()}")
    page.wait_for_selector('[data-replay-viewer][data-game="1"][data-loaded]')
    plays = GAME_1["rounds"][FAULT_ROUND - 1]["tricks"][FAULT_TRICK - 1]["plays"]
    at = 1 + [p["seat"] for p in plays].index(FAULT_SEAT)
    link = page.locator("[data-fault-link]")
    assert link.count() == 1
    assert link.get_attribute("href") == "#" + key(1, FAULT_ROUND, FAULT_TRICK, at)
    traceback = page.locator("[data-traceback]")
    traceback.locator("summary").click()
    text = traceback.inner_text()
    assert 'File "mybot.py", line 34, in choose' in text and "IndexError" in text
    link.click()
    viewer = Viewer(page, 1)
    viewer.wait(key(1, FAULT_ROUND, FAULT_TRICK, at))
    assert viewer.root.locator("[data-fault-now]").get_attribute("data-fault") == "crash"
    page.locator("[data-traceback]").scroll_into_view_if_needed()
    screenshot(page, f"fault-traceback-{'phone' if viewport else 'desktop'}")
    page.close()


def test_others_get_the_link_but_no_traceback(page: Any, live_server: Any, match: Match) -> None:
    page.goto(f"{live_server.url}{match.get_absolute_url()}")
    page.wait_for_selector('[data-replay-viewer][data-game="1"][data-loaded]')
    assert page.locator("[data-fault-link]").count() == 1
    assert page.locator("[data-traceback]").count() == 0
    assert "mybot.py" not in page.content()
