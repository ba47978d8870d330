"""Matches: standings, the atomic claim, pages and replay downloads."""

from __future__ import annotations

import gzip
import json
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from arena.contract import MatchKind
from cucumbers.faults import Fault, FaultKind
from cucumbers.match import GameOutcome
from tests.web.factories import MatchFactory, ParticipantFactory
from tests.web.recorded import Entrant, record_series
from web.matches.models import Match, MatchStatus
from web.matches.replays import StoredFiles, read_replay
from web.pipeline import transitions
from web.pipeline.recording import standings

REPLAY = {"format": "cucumbers-replay/1", "game": "five-cucumbers", "seed": 5, "players": []}


def outcome(
    number: int, bots: tuple[int, ...], placement: tuple[int, ...], faults: tuple[Fault, ...] = ()
) -> GameOutcome:
    n = len(bots)
    return GameOutcome(
        number,
        5,
        bots,
        placement,
        (0,) * n,
        faults,
        3,
        False,
        (1,) * n,
        (0.0,) * n,
        ("",) * n,
        dict(REPLAY, seed=number),
    )


def test_standings_rank_by_mean_place_with_shared_places() -> None:
    # Seats map to bots through `bots`; placement lists seats, best first.
    games = [outcome(1, (0, 1, 2), (0, 1, 2)), outcome(2, (2, 1, 0), (2, 1, 0))]
    result = standings(games, 3)
    assert [s.mean_place for s in result] == [1.0, 2.0, 3.0]
    tied = standings([outcome(1, (0, 1), (0, 1)), outcome(2, (0, 1), (1, 0))], 2)
    assert [s.placement for s in tied] == [1, 1]
    assert [s.wins for s in tied] == [1, 1]


def test_faults_are_counted_for_the_bot_in_that_seat() -> None:
    fault = Fault(seat=0, round=1, trick=1, kind=FaultKind.CRASH, detail="x")
    result = standings([outcome(1, (1, 0), (1, 0), (fault,))], 2)
    assert [s.faults for s in result] == [0, 1]


@pytest.mark.django_db
def test_only_one_caller_sends_a_queued_match_under_a_new_attempt() -> None:
    match = MatchFactory()
    first, second = uuid.uuid4(), uuid.uuid4()
    assert transitions.issue(match.pk, first)
    assert not transitions.issue(match.pk, second)
    match.refresh_from_db()
    assert (match.status, match.attempts, match.attempt) == (MatchStatus.QUEUED, 1, first)
    assert match.sent_at is not None


@pytest.mark.django_db
def test_only_failed_matches_are_requeued() -> None:
    failed = MatchFactory(status=MatchStatus.FAILED, failure_reason="docker down")
    finished = MatchFactory(status=MatchStatus.FINISHED)
    assert transitions.requeue([failed.pk, finished.pk]) == [failed.pk]
    failed.refresh_from_db()
    assert (failed.status, failed.failure_reason) == (MatchStatus.QUEUED, "")


@pytest.fixture
def recorded(db: None) -> Match:
    with StoredFiles() as files:
        return record_series(
            game="five-cucumbers",
            kind=MatchKind.LADDER,
            seed=9,
            sandbox="process",
            entrants=[Entrant("alpha"), Entrant("beta")],
            outcomes=[outcome(1, (0, 1), (1, 0)), outcome(2, (1, 0), (1, 0))],
            files=files,
        )


def test_a_recorded_match_keeps_its_replays_compressed(recorded: Match) -> None:
    games = list(recorded.games.all())
    assert [g.number for g in games] == [1, 2]
    assert read_replay(games[1])["seed"] == 2
    assert games[0].replay.name.endswith(".json.gz")


@pytest.mark.django_db
def test_replay_files_go_when_the_transaction_does_not_commit() -> None:
    with pytest.raises(RuntimeError), StoredFiles() as files:
        name, _ = files.save_replay(999, 1, REPLAY)
        assert files.names == [name]
        raise RuntimeError("rollback")
    from web.matches.models import replay_storage

    assert not replay_storage().exists(name)


def test_the_match_page_shows_participants_and_games(client: Client, recorded: Match) -> None:
    page = client.get(recorded.get_absolute_url()).content.decode()
    assert "alpha" in page and "beta" in page
    assert reverse("replay-download", args=[recorded.pk, 1]) in page


def test_the_replay_download_is_the_gzip_file(client: Client, recorded: Match) -> None:
    response = client.get(reverse("replay-download", args=[recorded.pk, 2]))
    assert response.status_code == 200
    assert response["Content-Disposition"].endswith('game-002.json.gz"')
    assert json.loads(gzip.decompress(response.content))["seed"] == 2


def test_the_match_list_filters_by_game(client: Client, recorded: Match) -> None:
    assert f"#{recorded.pk}" in client.get("/matches/?game=five-cucumbers").content.decode()
    assert f"#{recorded.pk}" not in client.get("/matches/?game=concombre").content.decode()


def test_unknown_matches_and_games_are_404(client: Client, recorded: Match) -> None:
    assert client.get("/matches/999999/").status_code == 404
    assert client.get(reverse("replay-download", args=[recorded.pk, 9])).status_code == 404


@pytest.mark.django_db
def test_the_match_page_shows_rating_changes(client: Client) -> None:
    match = MatchFactory(status=MatchStatus.FINISHED, kind=MatchKind.LADDER, rated=True)
    ParticipantFactory(
        match=match, index=0, name="gainer", placement=1, rating_before=1500, rating_after=1512.5
    )
    page = client.get(match.get_absolute_url()).content.decode()
    assert "12.5" in page
    # The change explains itself and links the page that says more.
    explained = page[page.index('id="elo-explained"') :].split("</p>")[0]
    assert "provisional" in explained and "need not add up to zero" in explained
    assert 'href="/ratings/#why-a-bot-can-win-a-match-and-lose-points"' in explained


@pytest.mark.django_db
def test_a_match_with_fewer_games_than_planned_says_so(client: Client) -> None:
    match = MatchFactory(status=MatchStatus.FINISHED, kind=MatchKind.LADDER, games_planned=3)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Games<b>0 of 3</b>" in page and "the others were not played" in page


def test_a_validation_stopped_at_its_first_fault_says_so_to_its_owner(
    validation_match: Match,
) -> None:
    # Issue 30: a validation card read "Games 2" with one game listed.
    from tests.web.conftest import logged_in

    # Planned as VALIDATION_GAMES (2) games, one played: the runner stops at a fault.
    Match.objects.filter(pk=validation_match.pk).update(games_planned=2)
    assert validation_match.games.count() == 1
    owner = validation_match.participants.get(index=0).bot.owner  # type: ignore[union-attr]
    page = logged_in(owner).get(validation_match.get_absolute_url()).content.decode()
    assert "Games<b>1 of 2</b>" in page and "stopped at the first fault" in page


@pytest.fixture
def validation_match(db: None) -> Match:
    from tests.web.factories import BotFactory, UserFactory

    owner = UserFactory(username="owner")
    with StoredFiles() as files:
        return record_series(
            game="five-cucumbers",
            kind=MatchKind.VALIDATION,
            seed=9,
            sandbox="process",
            entrants=[Entrant("owner/bot v1", BotFactory(owner=owner)), Entrant("builtin:random")],
            outcomes=[outcome(1, (0, 1), (1, 0))],
            files=files,
        )


@pytest.mark.parametrize(
    ("role", "status"), [("anonymous", 404), ("owner", 200), ("other", 404), ("staff", 200)]
)
def test_a_validation_match_is_for_the_owner_and_staff(
    validation_match: Match, role: str, status: int
) -> None:
    from tests.web.conftest import logged_in
    from tests.web.factories import StaffFactory, UserFactory

    users = {
        "owner": lambda: UserFactory(username="owner"),
        "other": UserFactory,
        "staff": StaffFactory,
    }
    client = Client() if role == "anonymous" else logged_in(users[role]())
    pk = validation_match.pk
    for path in (
        f"/matches/{pk}/",
        f"/matches/{pk}/games/1/replay.json.gz",
        f"/api/matches/{pk}/",
        f"/api/matches/{pk}/games/1/replay/",
    ):
        assert client.get(path).status_code == status, path
    listed = [m["id"] for m in client.get("/api/matches/").json()["results"]]
    assert (pk in listed) is (status == 200)
