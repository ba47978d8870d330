"""The ladder around the task: top-up of the queue, challenges (form, API, quota), the
staff status page and the ``ladder`` command."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from arena.contract import MatchKind
from cucumbers.games import GameName
from tests.web.conftest import logged_in
from tests.web.factories import active_bot
from tests.web.matches.arena_helpers import ladder_bots
from web.bots.models import Bot
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline.kinds import ladder

pytestmark = pytest.mark.django_db


def test_the_top_up_keeps_the_target_queued_with_legal_distinct_tables(settings: object) -> None:
    settings.LADDER_MAX_PLAYERS = 4  # type: ignore[attr-defined]
    ladder_bots(6, GameName.FIVE_CUCUMBERS)
    ladder_bots(1, GameName.CONCOMBRE)  # alone on its ladder: no table
    queued = ladder.top_up(target=3)
    # Whole deal sets (one match per seat rotation) until at least the target is queued.
    assert 3 <= queued["five-cucumbers"] <= 3 + 3 and queued["concombre"] == 0
    assert ladder.top_up(target=3) == {"five-cucumbers": 0, "concombre": 0}
    for match in Match.objects.all():
        bots = list(match.participants.values_list("bot", flat=True))
        assert 2 <= len(bots) <= 4
        assert len(set(bots)) == len(bots)
        assert (match.kind, match.rated, match.status) == (MatchKind.LADDER, True, "queued")
    # Each table is built around its seed (seat index 0), a bot with the fewest games planned
    # before it. (Opponents are chosen by Elo with noise, so whether all six bots get a seat in
    # one planning run is chance; the long-run rate is tested in tests/arena/test_matchmaking.py.)
    five = Bot.objects.filter(game=GameName.FIVE_CUCUMBERS)
    planned = dict.fromkeys(five.values_list("pk", flat=True), 0)
    for match in Match.objects.filter(rotation=0).order_by("pk"):  # one per table
        seats = list(match.participants.order_by("index").values_list("bot", flat=True))
        assert planned[seats[0]] == min(planned.values()), f"match {match.pk}: seed was busy"
        for bot_id in seats:
            planned[bot_id] += 1


def test_table_sizes_are_clipped_to_the_games_range(settings: object) -> None:
    settings.LADDER_MAX_PLAYERS = 9  # type: ignore[attr-defined]
    assert ladder.table_sizes("five-cucumbers").max_players == 6
    assert ladder.table_sizes("concombre").max_players == 7


def test_inactive_bots_and_bots_without_a_version_are_not_candidates() -> None:
    playing = ladder_bots(2)
    Bot.objects.filter(pk=playing[1].pk).update(active=False)
    active_bot(name="other-game", game=GameName.CONCOMBRE)
    assert [c.bot_id for c in ladder.candidates("five-cucumbers")] == [playing[0].pk]


def test_candidates_carry_their_recent_ladder_matches_by_table_size() -> None:
    a, b, c = ladder_bots(3)
    ladder.create_match("five-cucumbers", MatchKind.LADDER, [a, b, c], rated=True, send=False)
    ladder.create_match("five-cucumbers", MatchKind.LADDER, [a, b], rated=True, send=False)
    ladder.create_match("five-cucumbers", MatchKind.CHALLENGE, [a, c], rated=False, send=False)
    sizes = {cand.bot_id: cand.table_sizes for cand in ladder.candidates("five-cucumbers")}
    assert sizes == {a.pk: ((2, 1), (3, 1)), b.pk: ((2, 1), (3, 1)), c.pk: ((3, 1),)}


def challenge_setup(user: User, other_user: User) -> tuple[Bot, Bot, Bot]:
    mine = active_bot(owner=user, name="mine")
    theirs = active_bot(owner=other_user, name="theirs")
    third = active_bot(owner=other_user, name="third")
    return mine, theirs, third


def test_a_user_challenges_through_the_form_and_the_result_shows_on_both_bots(
    user: User, other_user: User, alice: Client
) -> None:
    mine, theirs, _ = challenge_setup(user, other_user)
    response = alice.post(
        reverse("bot-challenge", args=[mine.pk]),
        {"bot": mine.pk, "opponents": [theirs.pk], "games": 3},
    )
    assert response.status_code == 302
    match = Match.objects.get(kind=MatchKind.CHALLENGE)
    assert (match.rated, match.requested_by, match.status) == (False, user, MatchStatus.QUEUED)
    assert match.games_planned == 3
    assert response["Location"] == match.get_absolute_url()
    from web.pipeline.running import run_match
    from web.sandbox import SandboxKind

    assert run_match(match.pk, SandboxKind.PROCESS).result == "finished"
    assert not RatingChange.objects.exists()
    for bot in (mine, theirs):
        page = Client().get(bot.get_absolute_url())
        assert match in [p.match for p, _ in page.context["recent"]]


def test_only_the_owner_challenges_with_a_bot(user: User, other_user: User, alice: Client) -> None:
    mine, theirs, third = challenge_setup(user, other_user)
    response = alice.post(
        reverse("bot-challenge", args=[theirs.pk]),
        {"bot": theirs.pk, "opponents": [third.pk], "games": 3},
    )
    assert response.status_code == 400 and "Select a valid choice" in response.content.decode()
    api = alice.post(
        "/api/challenges/",
        {"bot": theirs.pk, "opponents": [mine.pk]},
        content_type="application/json",
    )
    assert (api.status_code, api.json()["code"]) == (403, "foreign_bot")
    assert not Match.objects.exists()


def test_the_api_queues_a_challenge_and_refuses_beyond_the_hourly_quota(
    user: User, other_user: User, alice: Client, settings: object
) -> None:
    settings.CHALLENGES_PER_HOUR = 2  # type: ignore[attr-defined]
    mine, theirs, third = challenge_setup(user, other_user)
    body = json.dumps({"bot": mine.pk, "opponents": [theirs.pk, third.pk]})
    for _ in range(2):
        response = alice.post("/api/challenges/", body, content_type="application/json")
        assert response.status_code == 201, response.content
    refused = alice.post("/api/challenges/", body, content_type="application/json")
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_challenges"
    assert "2 challenges per hour" in refused.json()["detail"]
    assert Match.objects.filter(kind=MatchKind.CHALLENGE).count() == 2


@pytest.mark.parametrize(
    ("opponents", "code", "status"),
    [
        ("self", "duplicate_bot", 400),
        ("other-game", "game_mismatch", 409),
        ("missing", "unknown_bot", 404),
        ("too-many", "table_size", 400),
    ],
)
def test_the_api_refuses_bad_tables(
    user: User, other_user: User, alice: Client, opponents: str, code: str, status: int
) -> None:
    mine, theirs, _ = challenge_setup(user, other_user)
    picks = {
        "self": [mine.pk],
        "other-game": [active_bot(owner=other_user, game=GameName.CONCOMBRE).pk],
        "missing": [987654],
        "too-many": [theirs.pk] + [active_bot(owner=other_user).pk for _ in range(5)],
    }[opponents]
    response = alice.post(
        "/api/challenges/", {"bot": mine.pk, "opponents": picks}, content_type="application/json"
    )
    assert (response.status_code, response.json()["code"]) == (status, code)


def test_the_status_page_is_for_staff_only(user: User, staff: User) -> None:
    ladder_bots(2)
    ladder.top_up(target=1)
    assert logged_in(user).get(reverse("arena-status")).status_code == 302  # to the admin login
    page = logged_in(staff).get(reverse("arena-status"))
    assert page.status_code == 200
    assert page.context["status"].queued == {"ladder": 2}  # a deal set: one match a rotation
    # Staff find it in the navigation; nobody else is shown the link.
    link = f'<a href="{reverse("arena-status")}">Arena status</a>'
    assert link in logged_in(staff).get("/").content.decode()
    assert link not in logged_in(user).get("/").content.decode()
    assert link not in Client().get("/").content.decode()


def test_the_ladder_command_plays_matches_in_the_foreground(settings: object) -> None:
    settings.MATCH_GAMES = 1  # type: ignore[attr-defined]
    settings.SANDBOX = "process"  # type: ignore[attr-defined]
    bots = ladder_bots(3)
    out = io.StringIO()
    call_command("ladder", "--matches", "3", "--game", "five-cucumbers", "--seed", "1", stdout=out)
    text = out.getvalue()
    # Whole deal sets (a set is rated whole): at least 3 matches, every one finished.
    played = Match.objects.count()
    assert played >= 3 and "[3/3]" in text
    assert f"{played} matches in" in text and f"{played} finished" in text
    assert Match.objects.filter(status=MatchStatus.FINISHED).count() == played
    assert any(Bot.objects.get(pk=b.pk).rating != 1500 for b in bots)


def test_a_visitor_challenges_someone_elses_bot_with_their_own_from_its_page(
    user: User, other_user: User, alice: Client
) -> None:
    mine, theirs, third = challenge_setup(user, other_user)
    page = Client().get(theirs.get_absolute_url()).content.decode()
    assert "Challenge this bot with yours" not in page  # signed out
    page = alice.get(theirs.get_absolute_url()).content.decode()
    assert "Challenge this bot with yours" in page
    form = alice.get(reverse("bot-challenge", args=[theirs.pk]) + "?q=thi").content.decode()
    assert "third" in form and 'name="opponents"' in form and "Against" in form
    response = alice.post(
        reverse("bot-challenge", args=[theirs.pk]),
        {"bot": mine.pk, "opponents": [third.pk], "games": 7},
    )
    assert response.status_code == 302
    match = Match.objects.get(kind=MatchKind.CHALLENGE)
    seats = list(match.participants.order_by("index").values_list("bot_id", flat=True))
    assert seats == [mine.pk, theirs.pk, third.pk] and match.games_planned == 7


def test_a_challenge_refuses_a_number_of_games_out_of_range(
    user: User, other_user: User, alice: Client, settings: object
) -> None:
    mine, theirs, _ = challenge_setup(user, other_user)
    settings.CHALLENGE_MAX_GAMES = 9  # type: ignore[attr-defined]
    page = alice.post(
        reverse("bot-challenge", args=[mine.pk]),
        {"bot": mine.pk, "opponents": [theirs.pk], "games": 10},
    )
    assert page.status_code == 400 and "less than or equal to 9" in page.content.decode()
    api = alice.post(
        "/api/challenges/",
        {"bot": mine.pk, "opponents": [theirs.pk], "games": 10},
        content_type="application/json",
    )
    assert (api.status_code, api.json()["code"]) == (400, "bad_games")
    assert not Match.objects.exists()


@pytest.mark.parametrize("seats", [2, 3, 4, 7])
def test_a_deal_set_is_one_match_per_seat_rotation_with_one_seed_and_seating(
    db: None, seats: int, settings: object
) -> None:
    from web.pipeline.factory import create_deal_set

    settings.MATCH_GAMES = 6  # type: ignore[attr-defined]  (the setting is each match's length)

    bots = [active_bot(name=f"d{seats}-{n}", game=GameName.CONCOMBRE) for n in range(seats)]
    matches = create_deal_set(GameName.CONCOMBRE, MatchKind.LADDER, bots, rated=True, send=False)
    assert [m.rotation for m in matches] == list(range(seats))
    assert {(m.duplicate, m.games_planned, m.seed, m.deal_set) for m in matches} == {
        (True, 6, matches[0].seed, matches[0].deal_set)  # MATCH_GAMES deals in each
    }
    for match in matches:
        seated = list(match.participants.order_by("index").values_list("bot_id", flat=True))
        assert seated == [bot.pk for bot in bots]


def test_the_ladder_queues_deal_sets_and_each_job_plays_its_rotation(
    db: None, settings: object
) -> None:
    from web.pipeline.dispatch import issue_job

    settings.LADDER_MIN_PLAYERS = settings.LADDER_MAX_PLAYERS = 4  # type: ignore[attr-defined]
    ladder_bots(4, GameName.FIVE_CUCUMBERS)
    matches = ladder.queue_ladder_matches(GameName.FIVE_CUCUMBERS, 1, send=False)
    assert [m.rotation for m in matches] == [0, 1, 2, 3]  # one table: the whole set
    for match in matches:
        job = issue_job(match.pk)
        assert (job.duplicate, job.rotation, job.games) == (  # type: ignore[union-attr]
            True,
            match.rotation,
            match.games_planned,
        )
    # Matchmaking counts a deal set once, as one table.
    assert {c.recent_games for c in ladder.candidates(GameName.FIVE_CUCUMBERS)} == {1}


def test_a_challenge_that_does_not_ask_plays_the_ladders_length_within_its_bound(
    user: User, other_user: User, alice: Client, settings: object
) -> None:
    mine, theirs, _ = challenge_setup(user, other_user)
    settings.MATCH_GAMES = 40  # type: ignore[attr-defined]
    settings.CHALLENGE_MAX_GAMES = 20  # type: ignore[attr-defined]
    form = alice.get(reverse("bot-challenge", args=[mine.pk])).content.decode()
    assert 'name="games" value="20"' in form
    body = json.dumps({"bot": mine.pk, "opponents": [theirs.pk]})
    response = alice.post("/api/challenges/", body, content_type="application/json")
    assert response.status_code == 201, response.content
    assert Match.objects.get(kind=MatchKind.CHALLENGE).games_planned == 20
    settings.MATCH_GAMES = 8  # type: ignore[attr-defined]
    alice.post("/api/challenges/", body, content_type="application/json")
    assert sorted(Match.objects.values_list("games_planned", flat=True)) == [8, 20]
