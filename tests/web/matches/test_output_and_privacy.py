"""A bot's own words are its owner's: what it printed in each game of a ladder match, and
the details of its faults, reach its owner and staff (page and API), never anyone else,
who see the kind of fault and where it happened."""

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
CRASHER = b"def play(view):\n    raise RuntimeError('the secret of my crash')\n"


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


def test_a_rotations_replays_and_output_are_held_until_its_whole_deal_set_is_played(
    user: User, staff: User, settings: object
) -> None:
    from web.matches.privacy import HELD_MESSAGE
    from web.pipeline.factory import create_deal_set

    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    chatty = with_source(active_bot(owner=user, name="chatty"), CHATTY)
    crasher = with_source(active_bot(owner=UserFactory(username="bob"), name="boom"), CRASHER)
    first, second = create_deal_set(
        "five-cucumbers", MatchKind.LADDER, [chatty, crasher], rated=True, send=False
    )
    assert running.run_match(first.pk, SandboxKind.PROCESS).result is running.RunResult.FINISHED
    # The first rotation is played: its results are public, its cards not yet, for anyone.
    for client in (Client(), logged_in(user), logged_in(staff)):
        page = client.get(first.get_absolute_url())
        text = page.content.decode()
        assert page.status_code == 200 and html.escape(HELD_MESSAGE) in text
        assert "data-replay-viewer" not in text and "my secret plan" not in text
        assert "the secret of my crash" not in text
        assert client.get(f"/matches/{first.pk}/games/1/replay.json.gz").status_code == 403
        api = client.get(f"/api/matches/{first.pk}/games/1/replay/")
        assert (api.status_code, api.json()["code"]) == (403, "replay_held")
        data = api_match(client, first)
        assert data["replays_held"] is True and data["rotation"] == 0
        games = data["games"]
        assert isinstance(games, list) and len(games) == 2
        assert all(g["replay"] is None and g["outputs"] == {} for g in games)
        assert any(g["faults"] for g in games)  # the crasher faulted
        assert all(f["detail"] == WITHHELD for g in games for f in g["faults"])
    # The last rotation is played: every rotation shows its replays, and the owner's output.
    assert running.run_match(second.pk, SandboxKind.PROCESS).result is running.RunResult.FINISHED
    for match in (first, second):
        owner = logged_in(user)
        text = owner.get(match.get_absolute_url()).content.decode()
        assert "data-replay-viewer" in text and "my secret plan" in text
        assert html.escape(HELD_MESSAGE) not in text
        assert owner.get(f"/matches/{match.pk}/games/1/replay.json.gz").status_code == 200
        data = api_match(Client(), match)
        assert data["replays_held"] is False
        assert Client().get(f"/api/matches/{match.pk}/games/1/replay/").status_code == 200
