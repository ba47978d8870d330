"""Rating sanity: bots of clearly different strength, uploaded as house bots and played on
the ladder exactly as the workers play it (the ``ladder`` command: matchmaking, sandbox,
storage, the rating transaction), end up on the leaderboard in their true order.

The true order comes from the SDK itself, in this process: a large four-player round robin
of the same bots through :func:`cucumbers.play.run_play` (the engine of ``cucumbers play``)
ranked by mean placement. Both sides are seeded, so the test is deterministic; the order is
checked strictly (every adjacent pair), so shuffled or flattened ratings fail it.

``builtin:search`` is left out: it is the slowest bot by far (its Monte Carlo runs dominate
a game) and the four others already span the whole range from worst to best.
"""

from __future__ import annotations

import io
import itertools
import time

import pytest
from django.core.management import call_command

from arena.contract import MatchKind
from cucumbers.games import GameName, rules_for
from cucumbers.play import PlayConfig, run_play
from cucumbers.runners.base import BotSpec
from web.bots.house import house_bot_name, house_source
from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus, RatingChange

pytestmark = pytest.mark.django_db

GAME = GameName.FIVE_CUCUMBERS
BUILTINS = ("random", "lowest", "highest", "heuristic")
#: Round robin of the true order: 1,000 four-player games take about a second in-process.
ROUND_ROBIN_GAMES = 1000
#: Ladder matches of 5 games: 60 matches are 300 rated games.
LADDER_MATCHES = 60
#: Mean placements closer than this are not "clearly different": the test would be a coin
#: toss, so it refuses to run rather than pass or fail by luck.
CLEAR_GAP = 0.2


def true_order() -> list[str]:
    """The built-ins from best to worst by mean placement (1 = best) over a seeded round
    robin of four-player games, seats reshuffled every game."""
    config = PlayConfig(
        rules=rules_for(GAME),
        bots=tuple(BotSpec(f"builtin:{name}", name) for name in BUILTINS),
        games=ROUND_ROBIN_GAMES,
        seed=2026,
        sandbox="none",
    )
    summaries = sorted(run_play(config).summaries, key=lambda summary: summary.mean_place)
    for better, worse in itertools.pairwise(summaries):
        assert worse.mean_place - better.mean_place >= CLEAR_GAP, (
            f"{better.bot} ({better.mean_place:.3f}) and {worse.bot} ({worse.mean_place:.3f})"
            " are too close to be ordered by a few hundred ladder games"
        )
    return [summary.bot for summary in summaries]


def house_bots() -> dict[str, Bot]:
    """The built-ins uploaded as files, as ``ensure_house_bots`` does, made active without
    their validation match (validation has tests of its own)."""
    from django.contrib.auth.models import User

    house = User.objects.create(username="house")
    bots = {}
    for name in BUILTINS:
        version = upload_version(
            house,
            f"{name}.py",
            house_source(name).encode(),
            new_bot_name=house_bot_name(name, GAME),
            game=GAME,
            enforce_rate=False,
        )
        BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACTIVE)
        Bot.objects.filter(pk=version.bot_id).update(active_version=version)
        bots[name] = Bot.objects.get(pk=version.bot_id)
    return bots


#: Adjacent bots of the true order must be at least this far apart in rating: with K 16 and
#: placements this different, a few hundred games open gaps of 100 points and more.
CLEAR_RATING_GAP = 20.0


def check_leaderboard(board: list[tuple[str, float]], expected: list[str]) -> None:
    """The leaderboard (name, rating; best first) is exactly ``expected``, every bot clearly
    above the next one."""
    assert [name for name, _ in board] == expected, board
    ratings = [rating for _, rating in board]
    assert all(a - b >= CLEAR_RATING_GAP for a, b in itertools.pairwise(ratings)), board


def test_the_check_refuses_a_shuffled_or_flat_leaderboard() -> None:
    expected = ["heuristic", "highest", "random", "lowest"]
    check_leaderboard(
        [("heuristic", 1800), ("highest", 1700), ("random", 1350), ("lowest", 1000)], expected
    )
    swapped = [("heuristic", 1800), ("random", 1700), ("highest", 1350), ("lowest", 1000)]
    flat = [("heuristic", 1510), ("highest", 1500), ("random", 1495), ("lowest", 1490)]
    for board in (swapped, flat, list(reversed(swapped))):
        with pytest.raises(AssertionError):
            check_leaderboard(board, expected)


def leaderboard(bots: dict[str, Bot]) -> list[tuple[str, float]]:
    """(built-in name, rating) from the top of the game's leaderboard down."""
    names = {bot.pk: name for name, bot in bots.items()}
    return [(names[bot.pk], bot.rating) for bot in Bot.objects.on_leaderboard(GAME)]


def test_after_a_few_hundred_ladder_games_the_leaderboard_is_the_true_order() -> None:
    expected = true_order()
    bots = house_bots()
    started = time.perf_counter()
    out = io.StringIO()
    call_command("ladder", matches=LADDER_MATCHES, game=GAME, sandbox="process", seed=5, stdout=out)
    elapsed = time.perf_counter() - started
    # Whole deal sets (each rated whole): at least LADDER_MATCHES matches, all finished.
    ladder = Match.objects.filter(kind=MatchKind.LADDER)
    played = ladder.count()
    assert played >= LADDER_MATCHES, out.getvalue()
    assert ladder.filter(status=MatchStatus.FINISHED).count() == played, out.getvalue()
    board = leaderboard(bots)
    games = {name: Bot.objects.get(pk=bot.pk).games for name, bot in bots.items()}
    detail = f"leaderboard {board}, games {games}, true order {expected}, {elapsed:.1f} s"
    print(detail)
    # Every bot played a fair share (matchmaking), and all of them left provisional K.
    assert min(games.values()) >= 100, detail
    # Not just the order: adjacent bots are clearly apart, as their placements are.
    check_leaderboard(board, expected)
    # Every rated game moved the ratings through the history (one row per bot per game).
    assert RatingChange.objects.count() == sum(games.values())
