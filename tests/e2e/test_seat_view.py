"""The viewer's seat view in Chromium: the game as one seat saw it, on the match page (live
server) and on the offline page, on a desktop and a 390x844 phone. Every expectation is
computed from the known replays (tests/e2e/replays.py)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from cucumbers.cli import main as cucumbers
from cucumbers.legal import legal_cards
from cucumbers.replay import save_replay
from tests.e2e.conftest import PHONE, screenshot
from tests.e2e.replays import concombre_game
from tests.e2e.test_viewer import GAME_1, Viewer, key, match, open_match
from web.matches.models import Match

__all__ = ["match"]  # the fixture, shared with test_viewer.py

Replay = dict[str, Any]


def first_decision(replay: Replay, seat: int, min_legal: int = 2) -> tuple[int, int, int]:
    """``(round, trick, played)`` from 1, 1, 0 of the first position at which ``seat`` is to
    play with at least ``min_legal`` legal cards; ``played`` cards of the trick are down."""
    for r, rnd in enumerate(replay["rounds"], 1):
        for t, trick in enumerate(rnd["tricks"], 1):
            for i, play in enumerate(trick["plays"]):
                if play["seat"] == seat and len(legal_here(replay, r, t, i, seat)) >= min_legal:
                    return r, t, i
    raise AssertionError("no such decision")


def hand_at(replay: Replay, seat: int, r: int, t: int, played: int) -> list[int]:
    """The seat's hand in round ``r`` with ``played`` cards of trick ``t`` down."""
    rnd = replay["rounds"][r - 1]
    hand = list(rnd["hands"][seat] or [])
    for number, trick in enumerate(rnd["tricks"], 1):
        shown = trick["plays"] if number < t else trick["plays"][:played] if number == t else []
        for play in shown:
            if play["seat"] == seat:
                hand.remove(play["card"])
    return sorted(hand)


def legal_here(replay: Replay, r: int, t: int, played: int, seat: int) -> tuple[int, ...]:
    plays = replay["rounds"][r - 1]["tricks"][t - 1]["plays"][:played]
    high = max((p["card"] for p in plays), default=None)
    return legal_cards(hand_at(replay, seat, r, t, played), high)


def shown_cards(viewer: Viewer, seat: int, attribute: str = "") -> list[int]:
    cards = viewer.seat(seat).locator(f"[data-hand] [data-card]{attribute}")
    return [int(c) for c in cards.evaluate_all("cs => cs.map((c) => c.dataset.card)")]


def check_seat_view(viewer: Viewer, replay: Replay, seat: int, at: tuple[int, int, int]) -> None:
    r, t, played = at
    for other in range(len(replay["players"])):
        if other == seat:
            assert shown_cards(viewer, seat) == hand_at(replay, seat, r, t, played)
            continue
        hidden = viewer.seat(other).locator("[data-hand]")
        # Face down: the count only, no card's rank anywhere in the seat.
        assert hidden.get_attribute("data-hidden-count") == str(
            len(hand_at(replay, other, r, t, played))
        )
        assert viewer.seat(other).locator("[data-card]").count() == 0
    chosen = replay["rounds"][r - 1]["tricks"][t - 1]["plays"][played]["card"]
    # Every copy of a legal rank is marked; one copy of the card played is.
    legal = sorted(set(shown_cards(viewer, seat, "[data-legal]")))
    assert legal == sorted(legal_here(replay, r, t, played, seat))
    assert shown_cards(viewer, seat, "[data-chosen]") == [chosen]
    decision = viewer.root.locator("[data-decision]")
    assert decision.get_attribute("data-chosen") == str(chosen)


def test_a_seat_sees_its_own_hand_its_legal_cards_and_the_others_face_down(
    page: Any, live_server: Any, match: Match
) -> None:
    seat = 1
    at = first_decision(GAME_1, seat)
    position = key(1, *at)
    viewer = open_match(page, live_server, match, "#" + position)
    viewer.wait(position)
    # The spectators' view first: every hand face up.
    assert viewer.root.get_attribute("data-view") == "all"
    assert shown_cards(viewer, 0) == hand_at(GAME_1, 0, *at)
    viewer.root.locator("[data-view]").select_option(str(seat))
    viewer.wait(f"{position}-s{seat}")
    check_seat_view(viewer, GAME_1, seat, at)
    assert page.url.endswith(f"#{position}-s{seat}"), "the seat view can be linked"
    # This replay has no per-move facts: no time, no output, and nothing breaks.
    assert viewer.root.locator("[data-move-ms], [data-move-output]").count() == 0
    screenshot(page, "viewer-seat-view-desktop")

    # Away from its moves (the first deal: seat 0 leads) the seat sees its own hand only.
    page.keyboard.press("Home")
    viewer.wait(f"{key(1, 1, 1, 0)}-s{seat}")
    assert viewer.root.locator("[data-decision]").count() == 0
    assert viewer.root.locator("[data-viewpoint-line]").count() == 1
    assert shown_cards(viewer, seat) == sorted(GAME_1["rounds"][0]["hands"][seat])
    assert viewer.seat(0).locator("[data-hand]").get_attribute("data-hidden-count") == "7"

    # Back to every hand.
    viewer.root.locator("[data-view]").select_option("all")
    page.wait_for_selector('[data-viewer-game="1"][data-view="all"]')
    assert viewer.seat(0).locator("[data-hand] [data-card]").count() > 0


def test_v_cycles_the_views_and_a_linked_seat_view_opens_as_that_seat(
    page: Any, live_server: Any, match: Match
) -> None:
    seat = 2
    at = first_decision(GAME_1, seat)
    viewer = open_match(page, live_server, match, f"#{key(1, *at)}-s{seat}")
    viewer.wait(f"{key(1, *at)}-s{seat}")
    check_seat_view(viewer, GAME_1, seat, at)
    viewer.take_keys()
    for expected in ("3", "all", "0"):
        page.keyboard.press("v")
        page.wait_for_selector(f'[data-viewer-game="1"][data-view="{expected}"]')
    # The arrows still step while a seat view is on, and the view stays.
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "k => document.querySelector('[data-viewer-game=\"1\"]').dataset.positionKey !== k",
        arg=f"{key(1, *at)}-s0",
    )
    assert viewer.key.endswith("-s0")


def decisions_of(replay: Replay, seat: int) -> list[str]:
    """The viewer's keys of ``seat``'s decisions in order: the position just before each of
    its plays (for a trick it leads after the first, the previous trick complete)."""
    keys = []
    for r, rnd in enumerate(replay["rounds"], 1):
        for t, trick in enumerate(rnd["tricks"], 1):
            for i, play in enumerate(trick["plays"]):
                if play["seat"] == seat and not play.get("auto"):
                    if i == 0 and t > 1:
                        keys.append(key(1, r, t - 1, len(rnd["tricks"][t - 2]["plays"])))
                    else:
                        keys.append(key(1, r, t, i))
    return keys


def test_n_and_p_step_through_one_seats_moves(page: Any, live_server: Any, match: Match) -> None:
    seat = 1
    viewer = open_match(page, live_server, match)
    assert not viewer.root.locator('[data-action="decision-forward"]').is_visible()
    viewer.root.locator("[data-view]").select_option(str(seat))
    viewer.take_keys()
    expected = decisions_of(GAME_1, seat)
    for position in expected[:6]:
        page.keyboard.press("n")
        viewer.wait(f"{position}-s{seat}")
        assert viewer.root.locator("[data-decision]").count() == 1
    page.keyboard.press("p")
    viewer.wait(f"{expected[4]}-s{seat}")
    viewer.root.locator('[data-action="decision-forward"]').click()
    viewer.wait(f"{expected[5]}-s{seat}")


def with_move_facts(replay: Replay, seat: int) -> Replay:
    """The replay with per-move facts on ``seat``'s plays: a time, and output lines that
    hold markup (which must show as text)."""
    copied = copy.deepcopy(replay)
    for rnd in copied["rounds"]:
        for trick in rnd["tricks"]:
            for play in trick["plays"]:
                if play["seat"] == seat:
                    play["ms"] = 37
                    play["output"] = [f"hand {play['card']}", "<b>not html</b>"]
    return copied


def test_the_offline_page_shows_a_moves_time_and_output_in_the_seat_view(
    page: Any, tmp_path: Path
) -> None:
    seat = 0
    replay = with_move_facts(concombre_game(), seat)
    source = save_replay(replay, tmp_path / "game.json")
    out = tmp_path / "game.html"
    assert cucumbers(["replay", str(source), "--html", str(out)]) == 0
    at = first_decision(replay, seat)
    position = f"{key(1, *at)}-s{seat}"
    page.goto(out.as_uri() + "#" + position)
    viewer = Viewer(page, 1)
    viewer.wait(position)
    check_seat_view(viewer, replay, seat, at)
    assert viewer.root.locator("[data-move-ms]").get_attribute("data-move-ms") == "37"
    output = viewer.root.locator("[data-move-output] pre")
    chosen = replay["rounds"][at[0] - 1]["tricks"][at[1] - 1]["plays"][at[2]]["card"]
    assert output.inner_text() == f"hand {chosen}\n<b>not html</b>"
    assert output.locator("b").count() == 0
    screenshot(page, "viewer-seat-view-offline-desktop")


def test_the_seat_view_on_a_phone_by_touch(browser: Any, live_server: Any, match: Match) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    seat = 3
    at = first_decision(GAME_1, seat)
    page.goto(f"{live_server.url}{match.get_absolute_url()}#{key(1, *at)}")
    viewer = Viewer(page, 1)
    viewer.wait(key(1, *at))
    viewer.root.locator("[data-view]").select_option(str(seat))
    viewer.wait(f"{key(1, *at)}-s{seat}")
    check_seat_view(viewer, GAME_1, seat, at)
    # A tap steps to the seat's next move, and back; the seat view stays on.
    moves = decisions_of(GAME_1, seat)
    here = moves.index(key(1, *at))
    viewer.root.locator('[data-action="decision-forward"]').tap()
    viewer.wait(f"{moves[here + 1]}-s{seat}")
    viewer.root.locator('[data-action="decision-back"]').tap()
    viewer.wait(f"{key(1, *at)}-s{seat}")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "the page scrolls sideways on a phone"
    screenshot(page, "viewer-seat-view-phone")
    context.close()
