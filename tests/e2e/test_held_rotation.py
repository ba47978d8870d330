"""A held rotation of a deal set as its owner and a visitor see it, on a desktop and a phone:
why it is held and until which match, no result, no seed, no replay viewer; the owner reads
their own bot's output and traceback at once; nothing to scroll sideways; axe finds no
problem."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from arena.contract import MatchKind
from tests.e2e.axe import accessibility_problems
from tests.e2e.conftest import DESKTOP, PHONE, log_in, screenshot
from tests.web.factories import UserFactory, VersionFactory, active_bot
from web.bots.models import VersionStatus
from web.matches.models import Match, MatchStatus
from web.pipeline.factory import create_deal_set
from web.pipeline.running import run_match
from web.sandbox import SandboxKind

CRASHER = b"""def play(view):
    raise RuntimeError("my secret reason")
"""


@pytest.fixture
def held(transactional_db: None) -> tuple[Match, Match]:
    """Rotation 0 of a two-rotation deal set, played and held; rotation 1 still queued."""
    owner = UserFactory(username="hana")
    bot = active_bot(owner=owner, name="crashy")
    version = VersionFactory(bot=bot, number=2, data=CRASHER, status=VersionStatus.ACTIVE)
    bot.active_version = version
    bot.save(update_fields=["active_version"])
    other = active_bot(name="steady")
    with override_settings(MATCH_GAMES=2):
        first, second = create_deal_set(
            "five-cucumbers", MatchKind.LADDER, [bot, other], rated=True, send=False
        )
        run_match(first.pk, SandboxKind.PROCESS)
    first.refresh_from_db()
    assert first.status == MatchStatus.HELD
    return first, second


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_held_rotation_says_why_and_until_when_and_shows_its_owner_their_own_bots_words(
    browser: Any, live_server: Any, held: tuple[Match, Match], viewport: dict[str, int]
) -> None:
    first, second = held
    size = "phone" if viewport == PHONE else "desktop"
    for who in ("visitor", "owner"):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        if who == "owner":
            log_in(page, live_server, "hana")
        page.goto(f"{live_server.url}{first.get_absolute_url()}")
        message = page.locator("#held")
        assert f"held until match #{second.pk} is played" in message.inner_text()
        text = page.inner_text("main")
        assert "secret" in page.inner_text(".facts")  # the seed's place says it is secret
        assert str(first.seed) not in text and page.locator("[data-replay-viewer]").count() == 0
        assert ("my secret reason" in text) == (who == "owner")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        assert accessibility_problems(page, f"a held rotation's page ({who})") == []
        screenshot(page, f"held-rotation-{who}-{size}")
        context.close()
