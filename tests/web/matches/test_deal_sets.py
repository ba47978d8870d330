"""A deal set is one unit, in play and in rating, and its deals are nobody's until it is
played (issue 39): its rotations' results appear all at once; a version changed mid-set
leaves it rated whole; a failed rotation voids it whole; a requeue, a re-seat and a retry
deal afresh; the stored seed alone deals nothing; staff and the admin see no held card,
seed or fault detail. Played in this process through the pipeline's own steps."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from arena.contract import MatchJob, MatchKind
from tests.web.conftest import logged_in
from tests.web.factories import UserFactory, VersionFactory, active_bot
from tests.web.matches.arena_helpers import ladder_bots, started_attempt
from web.bots.models import Bot, VersionStatus
from web.matches.deals import keyed_seed
from web.matches.models import Match, MatchGame, MatchStatus, RatingChange
from web.pipeline import transitions
from web.pipeline.dispatch import issue_job
from web.pipeline.factory import create_deal_set
from web.pipeline.kinds.validation import promote
from web.pipeline.running import run_match
from web.pipeline.transitions import RunResult
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db

PROCESS = SandboxKind.PROCESS
#: A bot that writes the cards it holds into its exception, at its first move.
TELLER = b"""def play(view):
    raise RuntimeError(f"my hand was {list(view.hand)}")
"""


@pytest.fixture(autouse=True)
def _short(settings: object) -> None:
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]


def rotations(bots: list[Bot]) -> list[Match]:
    return create_deal_set("five-cucumbers", MatchKind.LADDER, bots, rated=True, send=False)


def public_view(match: Match) -> tuple[str, dict[str, object]]:
    """The match page and API as an anonymous visitor reads them."""
    client = Client()
    page = client.get(match.get_absolute_url()).content.decode()
    data: dict[str, object] = client.get(f"/api/matches/{match.pk}/").json()
    return page, data


def test_a_stored_seed_alone_deals_nothing(settings: object) -> None:
    first, second = rotations(ladder_bots(2))
    job = issue_job(first.pk)
    assert isinstance(job, MatchJob)
    first.refresh_from_db()
    assert job.seed == keyed_seed(first.seed) != first.seed
    # Under another key, the same stored seed deals something else entirely.
    settings.DEAL_KEY = "another platform's key"  # type: ignore[attr-defined]
    assert keyed_seed(first.seed) != job.seed
    # The rotations of a set share their seed, and so their deals.
    assert Match.objects.get(pk=second.pk).seed == first.seed


def test_a_sets_results_ratings_and_seed_appear_all_at_once() -> None:
    bots = ladder_bots(3)
    first, second, third = rotations(bots)
    for match in (first, second):
        assert run_match(match.pk, PROCESS).result is RunResult.HELD
    # Two rotations played, one to go: nothing of them shows anywhere.
    assert not RatingChange.objects.exists()
    assert {Bot.objects.get(pk=b.pk).rating for b in bots} == {1500.0}
    assert {Bot.objects.get(pk=b.pk).games for b in bots} == {0}
    leaderboard = Client().get("/api/leaderboard/?game=five-cucumbers").json()
    assert all(row["rank"] is None for row in leaderboard["results"])
    for match in (first, second):
        match.refresh_from_db()
        assert match.status == MatchStatus.HELD and match.deal_seed is None
        page, data = public_view(match)
        assert f"held until match #{third.pk} is played" in page
        assert str(keyed_seed(match.seed)) not in page and str(match.seed) not in page
        assert data["seed"] is None and data["status"] == "held"
        assert all(p["placement"] is None for p in data["participants"])  # type: ignore[attr-defined]
        for game in match.games.all():
            assert str(game.seed) not in page and str(game.seed) not in str(data)
    # The bot's page lists its seat as held (no place, no Elo change), the match list not.
    history = Client().get(f"/bots/{bots[0].pk}/").content.decode()
    row = history[history.index(f'href="/matches/{first.pk}/"') :].split("</tr>")[0]
    assert "Played, results held" in row and row.count("–") == 2 and "0</td>" in row
    listed = Client().get("/matches/").content.decode()
    assert f"/matches/{first.pk}/" not in listed
    # The last rotation: the whole set finishes, rated in rotation order, its seed published.
    assert run_match(third.pk, PROCESS).result is RunResult.FINISHED
    played = list(Match.objects.filter(pk__in=[first.pk, second.pk, third.pk]).order_by("pk"))
    assert {m.status for m in played} == {MatchStatus.FINISHED}
    assert {m.deal_seed for m in played} == {keyed_seed(first.seed)}
    changes = list(RatingChange.objects.order_by("id"))
    assert len(changes) == 3 * 2 * 3  # three rotations, two games, three bots
    assert [c.match_id for c in changes[::6]] == [first.pk, second.pk, third.pk]
    assert all(b.games == 3 * 2 for b in Bot.objects.filter(pk__in=[b.pk for b in bots]))
    page, data = public_view(played[0])
    assert str(played[0].deal_seed) in page and data["seed"] == played[0].deal_seed
    assert "held until" not in page


def test_a_version_promoted_mid_set_leaves_the_set_rated_whole() -> None:
    bots = ladder_bots(2)
    first, second = rotations(bots)
    assert run_match(first.pk, PROCESS).result is RunResult.HELD
    mine = Bot.objects.get(pk=bots[0].pk)
    old = mine.active_version
    assert old is not None
    promote(mine, VersionFactory(bot=mine, number=2))
    # Frozen: the last rotation plays with the version the set began with, and the set
    # is rated whole (never the lucky first rotation alone).
    assert run_match(second.pk, PROCESS).result is RunResult.FINISHED
    assert Match.objects.get(pk=second.pk).participants.get(bot=mine).version_id == old.pk
    assert {m.status for m in Match.objects.filter(pk__in=[first.pk, second.pk])} == {
        MatchStatus.FINISHED
    }
    assert set(RatingChange.objects.values_list("match_id", flat=True)) == {first.pk, second.pk}
    assert RatingChange.objects.filter(bot=mine).count() == 2 * 2


def test_a_rotation_that_fails_voids_its_whole_set_and_a_requeue_deals_it_afresh(
    admin_client: Client,
) -> None:
    bots = ladder_bots(2)
    first, second = rotations(bots)
    assert run_match(first.pk, PROCESS).result is RunResult.HELD
    stored = Match.objects.get(pk=first.pk).seed
    assert transitions.fail(second.pk, "infrastructure error, 3 attempts: the engine is gone")
    voided = Match.objects.get(pk=first.pk)
    assert voided.status == MatchStatus.FAILED
    assert f"its deal set is void: match #{second.pk} failed" in voided.failure_reason
    assert not RatingChange.objects.exists()  # void: unrated, never in part
    # Its seed will never be played again: the void rotation's games are released.
    assert voided.results_public and voided.deal_seed == keyed_seed(stored)
    _, data = public_view(voided)
    assert data["seed"] == voided.deal_seed and all(g["replay"] for g in data["games"])  # type: ignore[attr-defined]
    # Staff requeue one rotation: the whole set goes back, dealt afresh, its void games gone.
    response = admin_client.post(
        "/admin/matches/match/", {"action": "requeue_failed", "_selected_action": [second.pk]}
    )
    assert response.status_code == 302
    again = list(Match.objects.filter(pk__in=[first.pk, second.pk]))
    assert {m.status for m in again} == {MatchStatus.QUEUED}
    assert len({m.seed for m in again}) == 1 and again[0].seed != stored
    assert {m.deal_seed for m in again} == {None}
    assert not MatchGame.objects.filter(match__in=again).exists()
    for match in again:
        assert run_match(match.pk, PROCESS).result in (RunResult.HELD, RunResult.FINISHED)
    assert {m.status for m in Match.objects.filter(pk__in=[first.pk, second.pk])} == {
        MatchStatus.FINISHED
    }
    assert RatingChange.objects.count() == 2 * 2 * 2


def test_a_retry_deals_a_set_afresh_until_one_of_its_rotations_has_begun() -> None:
    bots = ladder_bots(2)
    first, second = rotations(bots)
    seed = Match.objects.get(pk=first.pk).seed
    job = started_attempt(first.pk)
    assert transitions.release(first.pk, job.attempt)  # an infrastructure error: retried
    renewed = {m.seed for m in Match.objects.filter(pk__in=[first.pk, second.pk])}
    assert len(renewed) == 1 and seed not in renewed
    # Once a rotation has been played, the set keeps its seed (a set is one deal).
    assert run_match(first.pk, PROCESS).result is RunResult.HELD
    kept = Match.objects.get(pk=second.pk).seed
    job = started_attempt(second.pk)
    assert transitions.release(second.pk, job.attempt)
    assert Match.objects.get(pk=second.pk).seed == kept == Match.objects.get(pk=first.pk).seed


def test_staff_and_the_admin_see_no_held_card_seed_or_fault_detail(admin_client: Client) -> None:
    owner = UserFactory(username="teller")
    teller = active_bot(owner=owner, name="teller")
    version = VersionFactory(bot=teller, number=2, data=TELLER, status=VersionStatus.ACTIVE)
    teller.active_version = version
    teller.save(update_fields=["active_version"])
    first, second = rotations([teller, active_bot(name="quiet")])
    assert run_match(first.pk, PROCESS).result is RunResult.HELD
    game = MatchGame.objects.filter(match=first).first()
    assert game is not None and "my hand was" in str(game.faults)  # stored, for later
    admin = admin_client
    for path in (
        f"/admin/matches/match/{first.pk}/change/",
        first.get_absolute_url(),
        f"/api/matches/{first.pk}/",
    ):
        text = html.unescape(admin.get(path).content.decode())
        assert "my hand was" not in text, path
        assert str(game.seed) not in text and str(keyed_seed(first.seed)) not in text, path
    # Its owner reads what their own bot said at once.
    mine = logged_in(owner).get(first.get_absolute_url()).content.decode()
    assert "my hand was" in html.unescape(mine)
    # Requeued or not, nothing held is shown once it is over: then to staff in full.
    assert run_match(second.pk, PROCESS).result is RunResult.FINISHED
    text = html.unescape(admin.get(f"/admin/matches/match/{first.pk}/change/").content.decode())
    assert "my hand was" in text and str(game.seed) in text
