"""Issue 30's smaller items that only a browser shows: the tournament page's select in the
page's own font, Swagger's page in a language with badges axe finds legible, and a seat
whose name already carries its version labelled with it once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cucumbers.cli import main as cucumbers
from cucumbers.replay import save_replay
from tests.e2e.axe import axe_violations
from tests.e2e.conftest import PHONE, log_in, screenshot
from tests.e2e.replays import five_cucumbers_game
from tests.web.factories import UserFactory
from tests.web.tournaments.helpers import HIGHEST, open_tournament, playing_bot


@pytest.mark.django_db(transaction=True)
def test_the_tournament_pages_select_is_in_the_pages_font_on_a_phone(
    page: Any, live_server: Any
) -> None:
    tournament = open_tournament(name="Font cup")
    owner = UserFactory(username="fay")
    playing_bot(owner, "lifter", HIGHEST)
    log_in(page, live_server, "fay")
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    select, body = page.eval_on_selector(
        "#entry-bot",
        "e => [getComputedStyle(e).fontSize, getComputedStyle(document.body).fontSize]",
    )
    assert select == body, f"the select's font is {select}, the page's {body}"
    assert float(select.removesuffix("px")) >= 15
    screenshot(page, "tournament-entry-select-phone")


@pytest.mark.django_db(transaction=True)
def test_swaggers_page_has_a_language_and_legible_badges(page: Any, live_server: Any) -> None:
    page.goto(f"{live_server.url}/api/docs/")
    page.locator(".swagger-ui .info .title small").first.wait_for()
    assert page.evaluate("document.documentElement.lang") == "en"
    # Every text of the page, its version and method badges first (Swagger UI's own
    # colours gave 67 serious contrast failures: GET on #61affe, "OAS 3.1" on #89bf04...).
    contrast = [v for v in axe_violations(page) if v["id"] == "color-contrast"]
    failing = [(n["target"], n["html"][:80]) for v in contrast for n in v["nodes"]]
    assert not failing, failing
    screenshot(page, "swagger-desktop")


def test_a_seat_whose_name_carries_its_version_is_labelled_with_it_once(
    page: Any, tmp_path: Path
) -> None:
    replay = five_cucumbers_game()
    # As the site once wrote a validation's seat: the version in the name and beside it.
    replay["players"][1] |= {"name": "alwayscrash v1", "version": 1}
    source = save_replay(replay, tmp_path / "game.json.gz")
    out = tmp_path / "game.html"
    assert cucumbers(["replay", str(source), "--html", str(out)]) == 0
    page.goto(out.as_uri())
    label = page.locator('.cv-seat[data-seat="1"] [data-name]')
    assert label.inner_text() == "alwayscrash v1"
    assert page.locator('.cv-seat[data-seat="0"] [data-name]').inner_text() == "alice/bot0 v1"
