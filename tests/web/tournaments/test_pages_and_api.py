"""The tournament pages and ``/api/tournaments/``: an open event takes entries from its page
and the API, a running one shows live standings, the schedule and head-to-head; refusals
are the same on both; nobody withdraws another's entry."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from tests.web.conftest import logged_in
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.tournaments.helpers import HIGHEST, LOWEST, open_tournament, playing_bot
from web.pipeline.kinds.tournament import start
from web.pipeline.running import run_match
from web.pipeline.transitions import RunResult
from web.sandbox import SandboxKind
from web.tournaments.entering import enter
from web.tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def played_tournament() -> Tournament:
    """Three bots at one table of three, one deal played once per seat rotation (three
    matches)."""
    tournament = open_tournament(name="Autumn open", deals_per_table=1)
    for name, source in [("ann", GOOD_BOT), ("bob", HIGHEST), ("cy", LOWEST)]:
        owner = UserFactory(username=name)
        enter(owner, tournament.pk, playing_bot(owner, f"{name}bot", source).pk)
    start(tournament.pk, send=False)
    for table in tournament.tables.order_by("rotation"):
        # Held until the set's last rotation, which finishes all three at once.
        result = run_match(table.match_id, SandboxKind.PROCESS).result
        assert result is (RunResult.FINISHED if table.rotation == 2 else RunResult.HELD)
    tournament.refresh_from_db()
    return tournament


def test_the_list_shows_open_running_and_finished_events(client: Client) -> None:
    open_tournament(name="Spring cup")
    ended = open_tournament(name="Last year", status="finished", finished_at=timezone.now())
    page = client.get("/tournaments/")
    assertContains(page, "Spring cup")
    assertContains(page, ended.get_absolute_url())
    assertContains(page, 'href="/tournaments/"')  # in the navigation


def test_an_owner_enters_from_the_page_and_sees_a_refusal_in_words(
    user: User, alice: Client
) -> None:
    tournament = open_tournament()
    bot = playing_bot(user, "ducker", GOOD_BOT)
    other = playing_bot(user, "second", GOOD_BOT)
    page = alice.get(tournament.get_absolute_url())
    assertContains(page, f'<option value="{bot.pk}">alice/ducker</option>', html=True)
    answer = alice.post(f"/tournaments/{tournament.pk}/enter/", {"bot": bot.pk}, follow=True)
    assertContains(answer, "alice/ducker is entered in Winter cup.")
    assert tournament.entries.get().bot == bot
    answer = alice.post(f"/tournaments/{tournament.pk}/enter/", {"bot": other.pk}, follow=True)
    assertContains(answer, "One bot per owner")
    assertContains(answer, "Withdraw")
    entry = tournament.entries.get()
    answer = alice.post(f"/tournaments/{tournament.pk}/entries/{entry.pk}/withdraw/", follow=True)
    assertContains(answer, "Your entry is withdrawn")
    assert not tournament.entries.exists()


def test_a_visitor_is_asked_to_log_in_and_cannot_post(client: Client) -> None:
    tournament = open_tournament()
    assertContains(client.get(tournament.get_absolute_url()), "Log in</a> to enter")
    answer = client.post(f"/tournaments/{tournament.pk}/enter/", {"bot": 1})
    assert answer.status_code == 302 and "/login/" in answer["Location"]


def test_nobody_withdraws_anothers_entry(user: User, other_user: User) -> None:
    tournament = open_tournament()
    entry = enter(user, tournament.pk, playing_bot(user, "mine", GOOD_BOT).pk)
    answer = logged_in(other_user).post(
        f"/tournaments/{tournament.pk}/entries/{entry.pk}/withdraw/", follow=True
    )
    assertContains(answer, "No such entry of yours.")
    api = logged_in(other_user).delete(f"/api/tournaments/{tournament.pk}/entries/{entry.pk}/")
    assert api.status_code == 404 and api.json()["code"] == "unknown_entry"
    assert tournament.entries.filter(pk=entry.pk).exists()


def test_a_played_event_shows_standings_head_to_head_and_its_matches(
    client: Client, django_assert_max_num_queries: object
) -> None:
    tournament = played_tournament()
    page = client.get(tournament.get_absolute_url())
    assertContains(page, "Final standings")
    assertContains(page, "3 of 3 matches played")  # one table, three rotations
    assertContains(page, "Head to head")
    for table in tournament.tables.all():
        assertContains(page, f'href="/matches/{table.match_id}/"')
    for name in ("ann/annbot", "bob/bobbot", "cy/cybot"):
        assertContains(page, name)
    assertNotContains(page, "data-live-match")  # finished: nothing to wait for
    assertNotContains(page, "Enter</button>")


def test_the_api_lists_events_and_gives_one_with_standings_and_schedule(client: Client) -> None:
    tournament = played_tournament()
    open_tournament(name="Next one", game="concombre")
    listed = client.get("/api/tournaments/", {"game": "five-cucumbers"}).json()
    assert [t["name"] for t in listed["results"]] == ["Autumn open"]
    assert listed["results"][0]["entrants"] == 3
    body = client.get(f"/api/tournaments/{tournament.pk}/").json()
    assert body["status"] == "finished" and body["progress"] == "finished:3"
    ranks = [row["rank"] for row in body["standings"]]
    assert len(ranks) == 3 and ranks[0] == 1 and ranks == sorted(ranks)
    row = body["standings"][0]
    assert set(row) >= {"score", "score_low", "score_high", "close_to_above", "games", "wins"}
    assert row["games"] == 3 and 0.0 <= row["score"] <= 1.0
    tables = body["tables"]  # one table, one match per seat rotation of its deal
    assert [(t["round"], t["table"], t["rotation"], t["status"]) for t in tables] == [
        (1, 1, rotation, "finished") for rotation in (0, 1, 2)
    ]
    for table in tables:
        assert sorted(table["entries"]) == sorted(e["id"] for e in body["entries"])
    assert all(e["version"] == 1 for e in body["entries"])
    pairs = {(h["entry"], h["opponent"]) for h in body["head_to_head"]}
    assert len(pairs) == 6  # three entrants, every ordered pair met
    for record in body["head_to_head"]:
        assert record["ahead"] + record["behind"] == 3


def test_entering_through_the_api_answers_201_then_the_refusals_codes(user: User) -> None:
    tournament = open_tournament()
    bot = playing_bot(user, "ducker", GOOD_BOT)
    api = logged_in(user)
    url = f"/api/tournaments/{tournament.pk}/entries/"
    created = api.post(url, {"bot": bot.pk}, content_type="application/json")
    assert created.status_code == 201 and created.json()["name"] == "alice/ducker"
    again = api.post(url, {"bot": bot.pk}, content_type="application/json")
    assert (again.status_code, again.json()["code"]) == (409, "already_entered")
    assert api.post(url, {"bot": "x"}, content_type="application/json").status_code == 400
    missing = api.post(
        "/api/tournaments/999999/entries/", {"bot": bot.pk}, content_type="application/json"
    )
    assert missing.status_code == 404
    assert Client().post(url, {"bot": bot.pk}, content_type="application/json").status_code in (
        401,
        403,
    )
    tournament.entry_deadline = timezone.now() - timedelta(seconds=1)
    tournament.save()
    closed = api.delete(f"{url}{created.json()['id']}/")
    assert (closed.status_code, closed.json()["code"]) == (409, "entries_closed")
