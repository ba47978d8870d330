"""The replay viewer in a real browser: on the match page (live server, test PostgreSQL) and
on the offline page of ``cucumbers replay --html``. The games are known (tests/e2e/replays.py)
and every expectation is computed from their replays, never copied by hand."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

from arena.contract import MatchKind
from cucumbers.cli import main as cucumbers
from cucumbers.faults import Fault, FaultKind
from cucumbers.match import GameOutcome
from cucumbers.replay import save_replay
from tests.e2e.conftest import DESKTOP, PHONE, log_in, screenshot
from tests.e2e.replays import (
    FAULT_DETAIL,
    FAULT_ROUND,
    FAULT_SEAT,
    FAULT_TRICK,
    concombre_game,
    five_cucumbers_game,
    full_table_game,
)
from tests.web.factories import StaffFactory
from tests.web.recorded import Entrant, record_series
from web.matches.models import Match
from web.matches.privacy import WITHHELD
from web.matches.replays import StoredFiles

Replay = dict[str, Any]
GAME_1 = five_cucumbers_game()
GAME_2 = five_cucumbers_game(seed=12, fault=False)


def key(game: int, rnd: int, trick: int, played: int) -> str:
    """The viewer's position key; ``rnd`` and ``trick`` from 1, as in the URL."""
    return f"g{game}-r{rnd}-t{trick}-p{played}"


def trick_end(replay: Replay, rnd: int, trick: int, game: int = 1) -> str:
    plays = replay["rounds"][rnd - 1]["tricks"][trick - 1]["plays"]
    return key(game, rnd, trick, len(plays))


def round_end(replay: Replay, rnd: int, game: int = 1) -> str:
    return trick_end(replay, rnd, len(replay["rounds"][rnd - 1]["tricks"]), game)


def as_outcome(number: int, replay: Replay) -> GameOutcome:
    n = len(replay["players"])
    last = replay["rounds"][-1]
    return GameOutcome(
        number,
        replay["seed"],
        tuple(range(n)),
        tuple(replay["placement"]),
        tuple(last["scores"]),
        tuple(
            Fault(f["seat"], f["round"], f["trick"], FaultKind(f["kind"]), f["detail"])
            for f in replay["faults"]
        ),
        len(replay["rounds"]),
        replay["capped"],
        (1,) * n,
        (0.0,) * n,
        ("",) * n,
        replay,
    )


@pytest.fixture
def match(transactional_db: None) -> Match:
    """A finished match of two known games; the live server sees it (transactional_db)."""
    with StoredFiles() as files, transaction.atomic():
        return record_series(
            game="five-cucumbers",
            kind=MatchKind.LADDER,
            seed=11,
            sandbox="process",
            entrants=[Entrant(p["name"]) for p in GAME_1["players"]],
            outcomes=[as_outcome(1, GAME_1), as_outcome(2, GAME_2)],
            files=files,
        )


class Viewer:
    """Reads what one viewer on a page shows, through its data-* attributes."""

    def __init__(self, page: Any, game: int = 1) -> None:
        self.page = page
        self.root = page.locator(f'[data-viewer-game="{game}"]')

    def take_keys(self) -> None:
        """Give this viewer the keyboard, as a click on it (not on a control) does."""
        self.root.locator(".cv-title").click()

    def wait(self, position: str) -> None:
        self.page.wait_for_selector(f'[data-position-key="{position}"]')

    @property
    def key(self) -> str:
        return str(self.root.get_attribute("data-position-key"))

    def seat(self, seat: int) -> Any:
        return self.root.locator(f'.cv-seat[data-seat="{seat}"]')

    def scores(self) -> list[int]:
        values = self.root.locator(".cv-seat [data-score]").evaluate_all(
            "nodes => nodes.map(n => Number(n.dataset.score))"
        )
        return list(values)

    def seats_with(self, attribute: str) -> list[int]:
        found = self.root.locator(f".cv-seat[{attribute}]").evaluate_all(
            "nodes => nodes.map(n => Number(n.dataset.seat))"
        )
        return sorted(found)

    def click(self, action: str) -> None:
        self.root.locator(f'[data-action="{action}"]').click()


def open_match(page: Any, live_server: Any, match: Match, hash_: str = "") -> Viewer:
    page.goto(f"{live_server.url}{match.get_absolute_url()}{hash_}")
    viewer = Viewer(page, 1)
    page.wait_for_selector('[data-replay-viewer][data-game="1"][data-loaded]')
    return viewer


def test_it_steps_through_a_game_by_play_trick_and_round(
    page: Any, live_server: Any, match: Match
) -> None:
    viewer = open_match(page, live_server, match)
    first_round = GAME_1["rounds"][0]
    assert viewer.key == key(1, 1, 1, 0)
    # The deal: every seat's full hand is on the table, face up.
    for seat, hand in enumerate(first_round["hands"]):
        shown = viewer.seat(seat).locator("[data-hand] [data-card]").all_inner_texts()
        assert [int(c) for c in shown] == sorted(hand)

    viewer.click("trick-forward")
    viewer.wait(trick_end(GAME_1, 1, 1))
    winner = first_round["tricks"][0]["winner"]
    assert viewer.root.locator("[data-trick-winner-seat]").get_attribute(
        "data-trick-winner-seat"
    ) == str(winner)
    assert viewer.seats_with("data-trick-winner") == [winner]

    viewer.click("play-forward")
    viewer.wait(key(1, 1, 2, 1))
    assert viewer.seats_with("data-trick-winner") == []
    viewer.click("play-back")
    viewer.wait(trick_end(GAME_1, 1, 1))

    # The round's end: loser highlighted, penalty and new scores.
    viewer.click("round-forward")
    viewer.wait(key(1, 2, 1, 0))
    assert viewer.scores() == first_round["scores"]
    viewer.click("play-back")
    viewer.wait(round_end(GAME_1, 1))
    result = viewer.root.locator("[data-round-result]")
    assert result.get_attribute("data-loser-seat") == str(first_round["loser"])
    assert result.get_attribute("data-penalty") == str(first_round["penalty"])
    assert viewer.seats_with("data-loser") == [first_round["loser"]]
    viewer.click("round-back")
    viewer.wait(key(1, 1, 1, 0))
    assert viewer.scores() == [0] * len(GAME_1["players"])


def log_in_as_staff(page: Any, live_server: Any) -> None:
    """Staff read every bot's fault details (others see the kind and where)."""
    staff = StaffFactory(username="root")
    log_in(page, live_server, staff.username)


def test_a_fault_detail_is_withheld_from_those_who_do_not_own_the_bot(
    page: Any, live_server: Any, match: Match
) -> None:
    plays = GAME_1["rounds"][FAULT_ROUND - 1]["tricks"][FAULT_TRICK - 1]["plays"]
    at = 1 + [p["seat"] for p in plays].index(FAULT_SEAT)
    viewer = open_match(page, live_server, match, "#" + key(1, FAULT_ROUND, FAULT_TRICK, at))
    viewer.wait(key(1, FAULT_ROUND, FAULT_TRICK, at))
    now = viewer.root.locator("[data-fault-now]")
    assert now.get_attribute("data-fault") == "timeout"
    assert WITHHELD in now.inner_text() and FAULT_DETAIL not in page.content()


def test_a_fault_shows_at_its_moment_and_seats_go_out(
    page: Any, live_server: Any, match: Match
) -> None:
    log_in_as_staff(page, live_server)
    (fault,) = GAME_1["faults"]
    plays = GAME_1["rounds"][FAULT_ROUND - 1]["tricks"][FAULT_TRICK - 1]["plays"]
    at = 1 + [p["seat"] for p in plays].index(FAULT_SEAT)
    assert plays[at - 1].get("auto") is True
    viewer = open_match(page, live_server, match, "#" + key(1, FAULT_ROUND, FAULT_TRICK, at - 1))
    viewer.wait(key(1, FAULT_ROUND, FAULT_TRICK, at - 1))
    assert viewer.root.locator("[data-fault]").count() == 0
    page.keyboard.press("ArrowRight")
    viewer.wait(key(1, FAULT_ROUND, FAULT_TRICK, at))
    now = viewer.root.locator("[data-fault-now]")
    assert now.get_attribute("data-fault") == fault["kind"] == "timeout"
    # The detail is text, never markup: its "</script><b>" shows as typed.
    assert FAULT_DETAIL in now.inner_text()
    assert now.locator("b").count() == 1  # only the viewer's own heading
    assert viewer.seats_with("data-faulted") == [FAULT_SEAT]
    assert viewer.seats_with("data-out") == []
    screenshot(page, "viewer-fault-desktop")

    # At the end of that round the faulted seat is disqualified; eliminations by score too.
    page.keyboard.press("PageDown")
    viewer.wait(key(1, FAULT_ROUND + 1, 1, 0))
    page.keyboard.press("ArrowLeft")
    viewer.wait(round_end(GAME_1, FAULT_ROUND))
    rnd = GAME_1["rounds"][FAULT_ROUND - 1]
    assert rnd["eliminated"], "the known game eliminates a seat in the fault's round"
    assert viewer.seat(FAULT_SEAT).get_attribute("data-out") == "disqualified"
    for seat in rnd["eliminated"]:
        assert viewer.seat(seat).get_attribute("data-out") == "eliminated"
    assert viewer.scores() == rnd["scores"]
    screenshot(page, "viewer-round-end-desktop")


def test_keyboard_shortcuts_and_play_pause(page: Any, live_server: Any, match: Match) -> None:
    viewer = open_match(page, live_server, match)
    viewer.take_keys()
    page.keyboard.press("Shift+ArrowRight")
    viewer.wait(trick_end(GAME_1, 1, 1))
    page.keyboard.press("Shift+ArrowRight")
    viewer.wait(trick_end(GAME_1, 1, 2))
    page.keyboard.press("Shift+ArrowLeft")
    viewer.wait(trick_end(GAME_1, 1, 1))
    page.keyboard.press("]")
    viewer.wait(key(1, 2, 1, 0))
    page.keyboard.press("[")
    viewer.wait(key(1, 1, 1, 0))
    page.keyboard.press("End")
    viewer.wait(round_end(GAME_1, len(GAME_1["rounds"])))
    placement = viewer.root.locator("[data-placement] li").evaluate_all(
        "nodes => nodes.map(n => Number(n.dataset.seat))"
    )
    assert placement == GAME_1["placement"]
    page.keyboard.press("Home")
    viewer.wait(key(1, 1, 1, 0))
    # The URL follows the position, so the moment can be linked.
    assert page.url.endswith("#" + key(1, 1, 1, 0))

    viewer.root.locator("[data-speed]").select_option("4")
    page.keyboard.press("Space")
    page.wait_for_selector('[data-viewer-game="1"][data-playing="true"]')
    page.wait_for_function(
        "() => Number(document.querySelector('[data-viewer-game=\"1\"]')"
        ".dataset.positionIndex) >= 3"
    )
    page.keyboard.press("Space")
    page.wait_for_selector('[data-viewer-game="1"][data-playing="false"]')
    stopped = viewer.key
    page.wait_for_timeout(600)
    assert viewer.key == stopped
    # The round list jumps to a round.
    viewer.root.locator(".cv-round-list summary").click()
    viewer.root.locator('[data-rounds] [data-round="3"]').click()
    viewer.wait(key(1, 3, 1, 0))
    assert page.url.endswith("#" + key(1, 3, 1, 0))


def test_a_linked_position_in_a_later_game_loads(page: Any, live_server: Any, match: Match) -> None:
    target = trick_end(GAME_2, 2, 4, game=2)
    page.goto(f"{live_server.url}{match.get_absolute_url()}#{target}")
    viewer = Viewer(page, 2)
    viewer.wait(target)
    winner = GAME_2["rounds"][1]["tricks"][3]["winner"]
    assert viewer.seats_with("data-trick-winner") == [winner]
    assert viewer.scores() == GAME_2["rounds"][0]["scores"]
    # The keyboard now drives the linked game's viewer.
    page.keyboard.press("ArrowRight")
    viewer.wait(key(2, 2, 5, 1))


def test_it_fits_a_phone_screen(browser: Any, live_server: Any, match: Match) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    target = round_end(GAME_1, FAULT_ROUND)
    page.goto(f"{live_server.url}{match.get_absolute_url()}#{target}")
    Viewer(page, 1).wait(target)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "the page scrolls sideways on a phone"
    screenshot(page, "viewer-round-end-phone")
    context.close()


def test_without_javascript_the_download_links_remain(
    browser: Any, live_server: Any, match: Match
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}{match.get_absolute_url()}")
    links = page.locator('[data-replay-viewer] a[href$="replay.json.gz"]')
    assert links.count() == 2
    context.close()


def test_the_offline_page_shows_the_same_viewer(page: Any, tmp_path: Path) -> None:
    replay = concombre_game()
    source = save_replay(replay, tmp_path / "game.json.gz")
    out = tmp_path / "game.html"
    assert cucumbers(["replay", str(source), "--html", str(out)]) == 0
    halves = [(n, r["half"][0]) for n, r in enumerate(replay["rounds"], 1) if r["half"]]
    assert halves, "the known Concombre game has a half-cucumber"
    rnd, seat = halves[0]
    target = round_end(replay, rnd)
    page.goto(out.as_uri() + "#" + target)
    viewer = Viewer(page, 1)
    viewer.wait(target)
    scores = replay["rounds"][rnd - 1]["scores"]
    assert viewer.scores() == scores
    assert viewer.seats_with("data-half") == [seat]
    # After the half-cucumber the seat keeps only its highest penalty card, worth its score.
    # By rank (data-card): the face shows the rules' name of the card (J, Q, K, A above 10).
    kept = viewer.seat(seat).locator("[data-penalty-cards] [data-card]")
    assert kept.evaluate_all("cards => cards.map((c) => c.dataset.card)") == [str(scores[seat])]
    assert re.search(r"\bpts\b", viewer.seat(seat).locator("[data-score]").inner_text())
    screenshot(page, "viewer-offline-concombre-desktop")
    page.keyboard.press("Shift+ArrowLeft")
    viewer.wait(trick_end(replay, rnd, len(replay["rounds"][rnd - 1]["tricks"]) - 1))
    assert viewer.seats_with("data-half") == []


@pytest.mark.parametrize("concombre", [True, False], ids=["concombre-7", "five-cucumbers-6"])
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_the_end_of_game_card_is_shown_whole_clear_of_the_seats(
    browser: Any, tmp_path: Path, concombre: bool, phone: bool
) -> None:
    """At the end of a game at the largest table, the middle holds the round's result and
    the whole standings: nothing scrolled away or cut off (issue 30: on a desktop the card
    stopped after four of six places), and no seat drawn over it."""
    replay = full_table_game(concombre)
    source = save_replay(replay, tmp_path / "game.json.gz")
    out = tmp_path / "game.html"
    assert cucumbers(["replay", str(source), "--html", str(out)]) == 0
    context = browser.new_context(viewport=PHONE if phone else DESKTOP)
    page = context.new_page()
    page.goto(out.as_uri() + "#" + round_end(replay, len(replay["rounds"])))
    viewer = Viewer(page, 1)
    viewer.wait(round_end(replay, len(replay["rounds"])))
    center = viewer.root.locator(".cv-center")
    places = viewer.root.locator("[data-placement] li")
    assert places.count() == len(replay["players"])
    scroll, shown = center.evaluate("e => [e.scrollHeight, e.clientHeight]")
    assert scroll <= shown + 1, f"the middle scrolls: {scroll} px in {shown}"
    middle = center.bounding_box()
    table = viewer.root.locator(".cv-table").bounding_box()
    for n in range(places.count()):
        box = places.nth(n).bounding_box()
        assert (
            middle["y"] <= box["y"] and box["y"] + box["height"] <= middle["y"] + middle["height"]
        )
    assert (
        middle["y"] >= table["y"] and middle["y"] + middle["height"] <= table["y"] + table["height"]
    )
    for seat in range(len(replay["players"])):
        other = viewer.seat(seat).bounding_box()
        apart = (
            other["x"] >= middle["x"] + middle["width"]
            or other["x"] + other["width"] <= middle["x"]
            or other["y"] >= middle["y"] + middle["height"]
            or other["y"] + other["height"] <= middle["y"]
        )
        assert apart, f"seat {seat} covers the end-of-game card"
    name = "concombre-7" if concombre else "five-cucumbers-6"
    screenshot(page, f"viewer-game-end-{name}-{'phone' if phone else 'desktop'}")
    context.close()


def test_the_keys_belong_to_the_viewer_that_has_the_focus_not_to_the_page(
    page: Any, live_server: Any, match: Match
) -> None:
    first = open_match(page, live_server, match)
    start = first.key
    # Not focused: the page keeps its keys (the arrows and PgDn scroll, Space pages down).
    page.locator("h1").click()
    for key_name in ("ArrowRight", "PageDown", "End", "Space"):
        page.keyboard.press(key_name)
    assert first.key == start and first.root.get_attribute("data-playing") != "true"
    # With game 2 open and focused, the arrows move game 2, never game 1.
    page.locator('[data-replay-viewer][data-game="2"] summary').click()
    page.wait_for_selector('[data-replay-viewer][data-game="2"][data-loaded]')
    second = Viewer(page, 2)
    second.take_keys()
    before = second.key
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "k => document.querySelector('[data-viewer-game=\"2\"]').dataset.positionKey !== k",
        arg=before,
    )
    assert first.key == start
    first.take_keys()
    page.keyboard.press("ArrowRight")
    first.wait(key(1, 1, 1, 1))
