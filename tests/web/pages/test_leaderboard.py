"""The leaderboards: order, ranks across pages, markers, the sandbox banner, and speed with
10,000 bots."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from cucumbers.games import GameName
from tests.web.factories import BotFactory, active_bot, make_bots
from web.bots.models import Bot
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db


def test_bots_are_ranked_by_rating(client: Client) -> None:
    active_bot(name="middle", rating=1500)
    active_bot(name="top", rating=1600)
    active_bot(name="bottom", rating=1400)
    page = client.get("/").content.decode()
    assert page.index("top") < page.index("middle") < page.index("bottom")


def test_every_page_carries_the_logo_and_the_favicon_from_static_files(client: Client) -> None:
    # An image, not an emoji: machines without an emoji font showed an empty box.
    page = client.get("/").content.decode()
    assert '<link rel="icon" type="image/svg+xml" href="/static/web/cucumber.svg">' in page
    assert 'class="brand" href="/"><img src="/static/web/cucumber.svg"' in page
    assert "\N{CUCUMBER}" not in page
    svg = finders.find("web/cucumber.svg")
    assert svg is not None and Path(svg).read_text().startswith("<svg ")


def test_only_listed_bots_of_that_game_appear(client: Client) -> None:
    active_bot(name="fc-bot")
    active_bot(name="cc-bot", game=GameName.CONCOMBRE)
    active_bot(name="resting", active=False)
    BotFactory(name="unvalidated")
    page = client.get("/").content.decode()
    assert "fc-bot" in page
    assert not any(name in page for name in ("cc-bot", "resting", "unvalidated"))
    assert "cc-bot" in client.get(reverse("leaderboard-game", args=["concombre"])).content.decode()


def test_an_unknown_game_is_404(client: Client) -> None:
    assert client.get("/leaderboard/poker/").status_code == 404


def test_ranks_continue_across_pages(client: Client, settings: object) -> None:
    settings.LEADERBOARD_PAGE_SIZE = 2  # type: ignore[attr-defined]
    for rating in (1400, 1500, 1600):
        active_bot(name=f"r{rating}", rating=rating)
    response = client.get("/?page=2")
    assert [rank for rank, _ in response.context["rows"]] == [3]
    assert response.context["rows"][0][1].name == "r1400"
    assert "page 2 of 2" in response.content.decode()


def test_win_rate_and_provisional_marker(client: Client) -> None:
    active_bot(name="veteran", games=40, wins=10, games_since_version=40)
    active_bot(name="rookie", games=4, wins=1, games_since_version=4)
    page = client.get("/").content.decode()
    veteran_row = page[page.index("veteran") :].split("</tr>")[0]
    rookie_row = page[page.index("rookie") :].split("</tr>")[0]
    assert "25%" in veteran_row and "provisional" not in veteran_row
    assert "provisional" in rookie_row


def test_the_rank_on_the_bot_page_agrees_with_the_leaderboard(client: Client) -> None:
    bots = [active_bot(rating=1500) for _ in range(3)]  # a tie: the older bot ranks first
    assert [bot.rank() for bot in bots] == [1, 2, 3]


def test_pages_show_a_banner_when_uploads_are_not_isolated(client: Client) -> None:
    with mock.patch("web.context_processors.current_sandbox", return_value=SandboxKind.PROCESS):
        assert "not isolated" in client.get("/").content.decode()
    with mock.patch("web.context_processors.current_sandbox", return_value=SandboxKind.DOCKER):
        assert "not isolated" not in client.get("/").content.decode()


def test_the_leaderboard_needs_no_javascript(client: Client) -> None:
    assert "<script" not in client.get("/").content.decode()


def test_the_leaderboard_of_10000_bots_takes_a_few_queries(
    client: Client, django_assert_max_num_queries: object
) -> None:
    # Its time is a benchmark's (benchmarks/pages.py); a test bounds its queries.
    make_bots(10_000)
    with django_assert_max_num_queries(6):  # type: ignore[operator]
        response = client.get("/?page=150")
    rows = response.context["rows"]
    assert rows[0][0] == 149 * 50 + 1
    ratings = [bot.rating for _, bot in rows]
    assert ratings == sorted(ratings, reverse=True)
    plan = Bot.objects.on_leaderboard(GameName.FIVE_CUCUMBERS)[7450:7500].explain()
    assert "bot_leaderboard" in plan, plan


def test_the_profile_is_linked_from_the_leaderboard(client: Client, user: User) -> None:
    active_bot(owner=user)
    assert reverse("profile", args=["alice"]) in client.get("/").content.decode()


def test_each_elo_has_its_interval_and_bots_the_ladder_cannot_tell_apart_are_not_ranked(
    client: Client,
) -> None:
    sure_top = active_bot(name="sure-top", rating=1900, games=400, skill_sigma=0.8)
    close = active_bot(name="close", rating=1880, games=400, skill_sigma=0.8)
    far = active_bot(name="far", rating=1500, games=400, skill_sigma=0.8)
    page = client.get("/").content.decode()
    assert page.count("±") >= 3 and f"±{close.rating_margin:.0f}" in page
    assert close.rating_high >= sure_top.rating_low  # overlapping intervals
    row = page[page.index(">close<") - 400 : page.index(">close<")]
    assert "≈" in row  # not ranked below sure-top as if the ladder knew
    far_row = page[page.index(">far<") - 400 : page.index(">far<")]
    assert "≈" not in far_row and ">3<" in far_row
    api = client.get("/api/leaderboard/").json()["results"]
    lows = {e["bot"]["name"]: (e["bot"]["rating_low"], e["bot"]["rating_high"]) for e in api}
    assert lows["far"] == pytest.approx((far.rating_low, far.rating_high))
