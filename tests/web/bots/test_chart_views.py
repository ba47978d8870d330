"""The charts on the bot page: with a known rated history, without one, and with ten thousand
rated games (a fixed number of queries; the time is benchmarks/pages.py's)."""

from __future__ import annotations

import itertools
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.web.bots.history import record_history
from tests.web.factories import active_bot
from web.bots.models import Bot
from web.pages.charts import HeadToHead, Placements, bot_stats

pytestmark = pytest.mark.django_db


@pytest.fixture
def trio() -> list[Bot]:
    """ace, bea and cid with two rated matches and an unrated challenge (not charted)."""
    bots = [active_bot(name=name) for name in ("ace", "bea", "cid")]
    record_history(bots, [([0, 1, 2], [[0, 1, 2], [1, 0, 2]]), ([0, 1], [[1, 0]])])
    record_history(bots, [([0, 2], [[0, 2]] * 3)], rated=False)
    return bots


def test_the_stats_of_a_known_history(trio: list[Bot]) -> None:
    ace, bea, cid = trio
    stats = bot_stats(ace)
    # +8 as first of three, 0 as second of three, −8 as second of two.
    assert [(p.index, p.rating) for p in stats.elo.points] == [
        (0, 1500),
        (1, 1508),
        (2, 1508),
        (3, 1500),
    ]
    assert stats.placements == [Placements(2, (0, 1)), Placements(3, (1, 1, 0))]
    assert [(h.opponent_name, h.games, h.above) for h in stats.head_to_head] == [
        (str(bea), 3, 1),
        (str(cid), 2, 2),
    ]
    assert stats.head_to_head[0] == HeadToHead(bea.pk, 3, 1, pytest.approx(-1 / 3))  # type: ignore[arg-type]
    assert stats.head_to_head[1].place_difference == 1.5  # (3 − 1 + 3 − 2) / 2


def test_the_bot_page_draws_the_charts(client: Client, trio: list[Bot]) -> None:
    ace, bea, cid = trio
    html = client.get(ace.get_absolute_url()).content.decode()
    assert "data-charts-empty" not in html
    assert html.count("<svg") == 3  # the Elo line and one bar chart per table size
    assert 'data-chart="elo"' in html and 'data-points="4"' in html
    assert "Elo over 3 rated games, 2025-03-01 to 2025-03-01" in html
    assert '<title id="elo-title">Elo of ace over its rated games</title>' in html
    assert "lowest 1500 after game 0, highest 1508 after game 1" in html
    assert re.search(r'data-table-size="3".*?data-place="1" data-count="1"', html, re.S)
    rows = re.findall(r'<tr data-opponent="(\d+)">(.*?)</tr>', html, re.S)
    assert [int(opponent) for opponent, _ in rows] == [bea.pk, cid.pk]
    assert "-0.33" in rows[0][1] and ">3<" in rows[0][1]
    assert "+1.50" in rows[1][1] and f'href="{cid.get_absolute_url()}"' in rows[1][1]


def test_a_bot_without_rated_games_shows_a_clear_empty_state(client: Client) -> None:
    bot = active_bot(name="newcomer")
    other = active_bot(name="sparring")
    record_history([bot, other], [([0, 1], [[0, 1]])], rated=False)  # a challenge only
    html = client.get(bot.get_absolute_url()).content.decode()
    assert "data-charts-empty" in html and "No rated game yet" in html
    assert "<svg" not in html and "data-head-to-head" not in html


@pytest.fixture
def veteran() -> Bot:
    """A bot with 10,000 rated games: 2,500 four-bot matches of four games each."""
    bots = [active_bot(name=f"vet{i}") for i in range(4)]
    orders = list(itertools.permutations(range(4)))
    matches = [
        ([0, 1, 2, 3], [orders[(m * 4 + g) % len(orders)] for g in range(4)]) for m in range(2500)
    ]
    record_history(bots, matches)
    # Statistics, as a real database has: planned as empty tables, the head-to-head's
    # semi-join becomes a nested loop over 40,000 seats squared (minutes on a busy machine).
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return bots[0]


def test_ten_thousand_rated_games_take_a_fixed_number_of_queries(
    client: Client, veteran: Bot
) -> None:
    with CaptureQueriesContext(connection) as queries:
        stats = bot_stats(veteran)
    assert len(queries) == 4, [q["sql"] for q in queries.captured_queries]
    assert stats.elo.games == 10_000 and stats.elo.downsampled
    assert len(stats.elo.points) <= 200
    assert stats.placements[0].games == 10_000
    assert [h.games for h in stats.head_to_head] == [10_000] * 3

    with CaptureQueriesContext(connection) as page_queries:
        response = client.get(veteran.get_absolute_url())
    assert response.status_code == 200
    assert len(page_queries) <= 12
    assert len(response.content) < 200_000  # the downsampled line, not 10,000 points
