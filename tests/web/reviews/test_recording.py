"""The platform's side of a review's result, from the attacker's side: results written to
the ``reports`` queue by someone holding the broker or an arena host's key, delivered to the
platform's own task (``review_result_task``) as its worker would run it, against
PostgreSQL. Each forgery is refused (logged ``event=review.refused``) and nothing is
recorded; then the genuine arena host's result is recorded once, and shown to the owner.
The same through real workers on Redis: ``test_review_pipeline.py``."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from arena.review_contract import ReviewResult, dump, load_review_result
from arena.reviewing import failed, review_job
from arena.signing import Purpose, Signer, generate_key
from tests.web.factories import UserFactory
from tests.web.reviews.helpers import finished_match
from web.arena_hosts.hosts import add_host, revoke_host
from web.reviews.asking import ask_review
from web.reviews.models import Review, ReviewStatus
from web.reviews.sending import job_for, send_review
from web.reviews.tasks import review_result_task

pytestmark = pytest.mark.django_db

Raw = dict[str, Any]


@pytest.fixture(autouse=True)
def _short(settings: object) -> None:
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    settings.REVIEW_DEALS = 12  # type: ignore[attr-defined]


class Hosts:
    def __init__(self) -> None:
        self.genuine = Signer("arena-a", generate_key())
        self.revoked = Signer("arena-r", generate_key())
        self.stranger = Signer("arena-x", generate_key())
        for host in (self.genuine, self.revoked):
            add_host(host.name, host.public)
        revoke_host(self.revoked.name)


@pytest.fixture
def owner() -> User:
    return UserFactory(username="olga")


@pytest.fixture
def sent(owner: User) -> Review:
    """A review asked for by the owner and sent under an attempt."""
    review, created = ask_review(owner, finished_match(owner), 0)
    assert created and send_review(review.pk)
    review.refresh_from_db()
    return review


def genuine_result(review: Review) -> ReviewResult:
    assert review.attempt is not None
    return review_job(job_for(review, review.attempt), "arena-w")


def edited(result: ReviewResult, edit: Callable[[Raw], object]) -> ReviewResult:
    raw = json.loads(dump(result))
    edit(raw)
    return load_review_result(json.dumps(raw))


def other_seat(raw: Raw) -> None:
    raw["games"][0]["seat"] = (raw["games"][0]["seat"] + 1) % 3
    raw["games"][0]["review"]["seat"] = raw["games"][0]["seat"]


def fewer_deals(raw: Raw) -> None:
    for game in raw["games"]:
        game["review"]["deals"] = 2


def a_game_left_out(raw: Raw) -> None:
    raw["games"] = raw["games"][:1]


def regrets_as_text(raw: Raw) -> None:
    for game in raw["games"]:
        for decision in game["review"]["decisions"]:
            decision["regret"] = "none"


def another_attempt(raw: Raw) -> None:
    raw["attempt"] = "00000000-0000-4000-8000-000000000000"


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "event=review.refused" in r.getMessage()]


@pytest.mark.parametrize(
    ("forge", "answer", "reason"),
    [
        (lambda h, r: dump(r), "refused", "not a signed envelope"),
        (
            lambda h, r: h.stranger.seal(Purpose.REVIEW_RESULT, dump(r)),
            "refused",
            "unknown arena host 'arena-x'",
        ),
        (
            lambda h, r: h.revoked.seal(Purpose.REVIEW_RESULT, dump(r)),
            "refused",
            "arena host 'arena-r' was revoked",
        ),
        (
            lambda h, r: Signer("arena-a", generate_key()).seal(Purpose.REVIEW_RESULT, dump(r)),
            "refused",
            "bad signature for signer 'arena-a'",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REPORT, dump(r)),
            "refused",
            "a 'report' message where a 'review-result' is due",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REVIEW_RESULT, dump(edited(r, other_seat))),
            "refused",
            "where the job's are",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REVIEW_RESULT, dump(edited(r, a_game_left_out))),
            "refused",
            "where the job's are",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REVIEW_RESULT, dump(edited(r, fewer_deals))),
            "refused",
            "deals is 2, not 12",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REVIEW_RESULT, dump(edited(r, regrets_as_text))),
            "refused",
            "a decision that is not one",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REVIEW_RESULT, dump(edited(r, another_attempt))),
            "discarded",
            "",
        ),
    ],
    ids=[
        "unsigned",
        "an-unregistered-key",
        "a-revoked-host",
        "a-key-posing-as-the-genuine-host",
        "a-match-reports-signature",
        "another-seat",
        "a-game-left-out",
        "fewer-deals-than-asked",
        "regrets-that-are-not-numbers",
        "an-earlier-attempts-result",
    ],
)
def test_a_forged_result_is_refused_then_the_genuine_one_is_recorded_once(
    sent: Review,
    caplog: pytest.LogCaptureFixture,
    forge: Callable[[Hosts, ReviewResult], str],
    answer: str,
    reason: str,
) -> None:
    hosts = Hosts()
    genuine = genuine_result(sent)
    with caplog.at_level(logging.INFO, logger="web.reviews"):
        assert review_result_task(forge(hosts, genuine)) == answer
    if reason:
        assert any(reason in line for line in refusals(caplog)), refusals(caplog)
    sent.refresh_from_db()
    assert (sent.status, sent.result, sent.arena_host) == (ReviewStatus.QUEUED, None, "")
    text = hosts.genuine.seal(Purpose.REVIEW_RESULT, dump(genuine))
    assert review_result_task(text) == "recorded"
    assert review_result_task(text) == "discarded"  # delivered twice: recorded once
    sent.refresh_from_db()
    assert (sent.status, sent.arena_host, sent.worker) == (ReviewStatus.DONE, "arena-a", "arena-w")
    assert sent.result == {
        "games": [{"number": g.number, "seat": g.seat, "review": g.review} for g in genuine.games]
    }


def test_the_owner_reads_the_done_review_biggest_mistakes_first_linked_to_their_moves(
    owner: User, sent: Review
) -> None:
    host = Signer("arena-a", generate_key())
    add_host(host.name, host.public)
    genuine = genuine_result(sent)
    assert review_result_task(host.seal(Purpose.REVIEW_RESULT, dump(genuine))) == "recorded"
    client = Client()
    client.force_login(owner)
    html = client.get(reverse("review-detail", args=[sent.match_id, 0])).content.decode()
    assert 'data-review-status="done"' in html and 'http-equiv="refresh"' not in html
    assert "<b>estimate</b>" in html and "/docs/bots/#reviewing-a-game-cucumbers-review" in html
    decisions = [d for g in genuine.games for d in g.review["decisions"]]
    total = sum(g.review["summary"]["regret"] for g in genuine.games)
    mean = re.search(r"data-mean-regret>([0-9.]+)<", html)
    assert mean is not None and float(mean.group(1)) == pytest.approx(
        total / len(decisions), abs=1e-3
    )
    regrets = [float(r) for r in re.findall(r'<td class="num">([0-9.]+)</td><td>\[', html)]
    assert regrets == sorted(regrets, reverse=True) and len(regrets) == min(30, len(decisions))
    assert regrets[0] == pytest.approx(max(d["regret"] for d in decisions), abs=0.01)
    seats = {g.number: g.seat for g in genuine.games}
    links = re.findall(r'href="/matches/\d+/#(g(\d+)-r\d+-t\d+-p\d+-s(\d+))"', html)
    assert links and all(int(seat) == seats[int(game)] for _, game, seat in links)
    # The costliest decision's link: its trick with the cards before the seat's down.
    worst_game, worst = min(
        ((g, d) for g in genuine.games for d in g.review["decisions"]),
        key=lambda pair: (-pair[1]["regret"], pair[0].number, pair[1]["round"], pair[1]["trick"]),
    )
    down = len(worst["trick_cards"])
    assert down == worst["move"] - 1
    first = f"g{worst_game.number}-r{worst['round']}-t{worst['trick']}-p{down}-s{worst_game.seat}"
    assert links[0][0] == first
    api = client.get(f"/api/matches/{sent.match_id}/reviews/0/").json()
    assert api["status"] == "done" and api["decisions"] == len(decisions)
    assert api["result"]["games"][0]["review"]["format"] == "cucumbers-review/1"


def test_a_failed_review_says_why_and_can_be_asked_for_again(owner: User, sent: Review) -> None:
    host = Signer("arena-a", generate_key())
    add_host(host.name, host.public)
    assert sent.attempt is not None
    result = failed(
        job_for(sent, sent.attempt), "arena-w", "the review took longer than its time limit"
    )
    assert review_result_task(host.seal(Purpose.REVIEW_RESULT, dump(result))) == "failed"
    sent.refresh_from_db()
    assert (sent.status, sent.error) == (
        ReviewStatus.FAILED,
        "the review took longer than its time limit",
    )
    client = Client()
    client.force_login(owner)
    html = client.get(reverse("review-detail", args=[sent.match_id, 0])).content.decode()
    assert "took longer than its time limit" in html
    again, queued = ask_review(owner, sent.match, 0)
    assert queued and again.pk == sent.pk and again.status == ReviewStatus.QUEUED
