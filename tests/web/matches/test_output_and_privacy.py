"""A bot's own words are its owner's: what it printed in each game of a ladder match (its
tail, and its lines of each move), and the details and whole tracebacks of its faults, reach
its owner and staff (page, API, replays), never anyone else, who see the kind of fault and
where it happened, with a link to that move in the viewer."""

from __future__ import annotations

import gzip
import html
import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.contract import MatchKind
from tests.web.conftest import logged_in
from tests.web.factories import UserFactory, VersionFactory, active_bot
from tests.web.matches.arena_helpers import queued_match
from web.bots.models import Bot, VersionStatus
from web.matches.models import Match
from web.matches.privacy import WITHHELD
from web.pipeline import running
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db

CHATTY = b"""import sys

def play(view):
    print("my secret plan", file=sys.stderr)
    return view.legal[0]
"""
CRASHER = b"""def explode(view):
    print("about to explode in trick", view.trick_number)
    raise RuntimeError('the secret of my crash')


def play(view):
    return explode(view)
"""


def with_source(bot: Bot, data: bytes) -> Bot:
    version = VersionFactory(bot=bot, number=2, data=data, status=VersionStatus.ACTIVE)
    bot.active_version = version
    bot.save(update_fields=["active_version"])
    return bot


@pytest.fixture
def played(user: User, settings: object) -> Match:
    """A played ladder match: alice's chatty bot, bob's crasher, a quiet third."""
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    chatty = with_source(active_bot(owner=user, name="chatty"), CHATTY)
    crasher = with_source(active_bot(owner=UserFactory(username="bob"), name="boom"), CRASHER)
    quiet = active_bot(name="quiet")
    match = queued_match([chatty, crasher, quiet])
    assert running.run_match(match.pk, SandboxKind.PROCESS).result is running.RunResult.FINISHED
    return match


def api_match(client: Client, match: Match) -> dict[str, object]:
    response = client.get(f"/api/matches/{match.pk}/")
    assert response.status_code == 200
    data: dict[str, object] = response.json()
    return data


def test_the_owner_sees_what_the_bot_printed_in_each_game_others_do_not(
    played: Match, user: User, other_user: User
) -> None:
    owner = logged_in(user)
    page = owner.get(played.get_absolute_url()).content.decode()
    assert page.count("my secret plan") >= 2  # one tail per game
    games = api_match(owner, played)["games"]
    assert isinstance(games, list) and len(games) == 2
    assert all("my secret plan" in game["outputs"]["0"] for game in games)
    for viewer in (logged_in(other_user), Client()):
        assert "my secret plan" not in viewer.get(played.get_absolute_url()).content.decode()
        assert "my secret plan" not in json.dumps(api_match(viewer, played))


def test_fault_details_are_the_owners_others_see_the_kind_and_where(
    played: Match, user: User, staff: User
) -> None:
    bob = logged_in(User.objects.get(username="bob"))
    replay_url = f"/api/matches/{played.pk}/games/1/replay/"
    assert "the secret of my crash" in bob.get(played.get_absolute_url()).content.decode()
    assert "the secret of my crash" in json.dumps(bob.get(replay_url).json())
    assert "the secret of my crash" in json.dumps(logged_in(staff).get(replay_url).json())
    for viewer in (logged_in(user), Client()):
        page = viewer.get(played.get_absolute_url()).content.decode()
        assert "the secret of my crash" not in page and html.escape(WITHHELD) in page
        api = json.dumps(api_match(viewer, played))
        assert "the secret of my crash" not in api and '"kind": "crash"' in api
        replay = viewer.get(replay_url).json()
        assert replay["faults"] and all(f["detail"] == WITHHELD for f in replay["faults"])
        download = viewer.get(f"/matches/{played.pk}/games/1/replay.json.gz")
        assert download.status_code == 200
        assert b"the secret of my crash" not in gzip.decompress(download.content)


def test_the_whole_traceback_and_each_moves_lines_are_the_owners_with_a_link_for_all(
    played: Match, user: User, staff: User
) -> None:
    from web.matches.models import MatchGame
    from web.matches.replays import read_replay

    bob = logged_in(User.objects.get(username="bob"))
    replay_url = f"/api/matches/{played.pk}/games/1/replay/"
    (fault,) = MatchGame.objects.get(match=played, number=1).faults
    moment = fault["moment"]
    assert moment.startswith(f"g1-r{fault['round']}-t{fault['trick']}-p")
    assert not moment.endswith("-p0")  # the crasher's own play in that trick
    frames = ['File "bot.py", line 7, in play', "return explode(view)", "line 3, in explode"]
    for viewer in (bob, logged_in(staff)):
        page = viewer.get(played.get_absolute_url()).content.decode()
        assert all(html.escape(frame) in page for frame in frames), page
        assert f'href="#{moment}"' in page
        games = api_match(viewer, played)["games"]
        assert isinstance(games, list)
        api_fault = games[0]["faults"][0]
        assert api_fault["traceback"]["exception"] == "RuntimeError: the secret of my crash"
        assert api_fault["viewer"].endswith(f"/matches/{played.pk}/#{moment}")
        replay = viewer.get(replay_url).json()
        assert replay["faults"][0]["traceback"] == api_fault["traceback"]
        outputs = [
            p.get("output") for r in replay["rounds"] for t in r["tricks"] for p in t["plays"]
        ]
        assert ["about to explode in trick 1"] in outputs
        download = gzip.decompress(
            viewer.get(f"/matches/{played.pk}/games/1/replay.json.gz").content
        )
        assert b"return explode(view)" in download and b"about to explode" in download
    for viewer in (logged_in(user), Client()):  # alice: her chatty bot's lines, not bob's
        page = viewer.get(played.get_absolute_url()).content.decode()
        assert "explode" not in page and f'href="#{moment}"' in page
        api = api_match(viewer, played)
        assert "explode" not in json.dumps(api) and "traceback" not in json.dumps(api)
        assert "explode" not in json.dumps(viewer.get(replay_url).json())
    mine = logged_in(user).get(replay_url).json()
    printed = [p.get("output") for r in mine["rounds"] for t in r["tricks"] for p in t["plays"]]
    assert ["my secret plan"] in printed
    # The stored replay (what everyone else is served) holds no one's words.
    stored = read_replay(MatchGame.objects.get(match=played, number=1))
    assert stored["revision"] == 2 and "explode" not in json.dumps(stored)
    assert "my secret plan" not in json.dumps(stored)


def test_a_rotations_results_and_cards_are_held_until_its_whole_deal_set_is_played(
    user: User, staff: User, settings: object
) -> None:
    from web.matches.privacy import HELD_MESSAGE
    from web.pipeline.factory import create_deal_set

    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    chatty = with_source(active_bot(owner=user, name="chatty"), CHATTY)
    bob = UserFactory(username="bob")
    crasher = with_source(active_bot(owner=bob, name="boom"), CRASHER)
    first, second = create_deal_set(
        "five-cucumbers", MatchKind.LADDER, [chatty, crasher], rated=True, send=False
    )
    assert running.run_match(first.pk, SandboxKind.PROCESS).result is running.RunResult.HELD
    until = f"held until match #{second.pk} is played"
    # The first rotation is played: nothing of it is anyone's yet (no placement, seed,
    # replay or other bot's words, staff included), but each owner reads their own bot's.
    own_words = {None: set(), user: {"my secret plan"}, bob: {"the secret of my crash"}}
    own_words[staff] = set()
    for who, mine in own_words.items():
        client = Client() if who is None else logged_in(who)
        page = client.get(first.get_absolute_url())
        text = page.content.decode()
        assert page.status_code == 200 and until in text, text
        assert "data-replay-viewer" not in text and str(first.seed) not in text
        for words in ("my secret plan", "the secret of my crash"):
            assert (words in text) == (words in mine), (who, words)
        assert client.get(f"/matches/{first.pk}/games/1/replay.json.gz").status_code == 403
        api = client.get(f"/api/matches/{first.pk}/games/1/replay/")
        assert (api.status_code, api.json()["code"]) == (403, "replay_held")
        assert HELD_MESSAGE in api.json()["detail"]
        data = api_match(client, first)
        assert data["replays_held"] is True and data["rotation"] == 0
        assert data["status"] == "held" and data["seed"] is None
        assert all(p["placement"] is None for p in data["participants"])  # type: ignore[attr-defined]
        assert all(p["rating_change"] is None for p in data["participants"])  # type: ignore[attr-defined]
        games = data["games"]
        assert isinstance(games, list) and len(games) == 2
        assert all(g["replay"] is None and g["seed"] is None for g in games)
        assert all(g["placement"] == [] for g in games)
        said = json.dumps(games)
        for words in ("my secret plan", "the secret of my crash"):
            assert (words in said) == (words in mine), (who, words)
        # Only one's own bot's faults are listed at all.
        assert any(g["faults"] for g in games) == (who is bob)
    assert not Bot.objects.get(pk=chatty.pk).rating_changes.exists()
    # The last rotation is played: every rotation shows its replays, and the owner's output.
    assert running.run_match(second.pk, SandboxKind.PROCESS).result is running.RunResult.FINISHED
    assert Bot.objects.get(pk=chatty.pk).rating_changes.count() == 2 * 2  # both, at once
    for match in (first, second):
        owner = logged_in(user)
        text = owner.get(match.get_absolute_url()).content.decode()
        assert "data-replay-viewer" in text and "my secret plan" in text
        assert "held until" not in text
        match.refresh_from_db()
        assert match.deal_seed is not None and str(match.deal_seed) in text
        assert owner.get(f"/matches/{match.pk}/games/1/replay.json.gz").status_code == 200
        data = api_match(Client(), match)
        assert data["replays_held"] is False
        assert Client().get(f"/api/matches/{match.pk}/games/1/replay/").status_code == 200
