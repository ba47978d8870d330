"""Asking for a move review, on the match page (a POST form with its CSRF token) and in the
API: only a bot's owner (or staff) asks for its decisions, once per participant, at most
``REVIEWS_PER_DAY`` a day (then a 429 saying so, nothing queued); a review is read by its
owner and staff only. Nothing is computed here: the job is checked as it is sent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from arena.review_contract import load_review_job
from arena.signing import PLATFORM_SIGNER, Purpose, open_envelope, parse_public_key
from tests.web.factories import StaffFactory, UserFactory
from tests.web.matches.celery_worker import platform_public_key
from tests.web.reviews.helpers import finished_match
from web.matches.models import Match, MatchStatus
from web.matches.replays import read_replay
from web.reviews.models import Review, ReviewStatus
from web.reviews.sending import job_for, send_review

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _short(settings: object) -> None:
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    settings.REVIEW_DEALS = 10  # type: ignore[attr-defined]


@pytest.fixture
def owner() -> User:
    return UserFactory(username="olga")


@pytest.fixture
def match(owner: User) -> Match:
    return finished_match(owner)


def signed_in(user: User, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def api_ask(client: Client, match_id: int, participant: object) -> tuple[int, dict[str, object]]:
    response = client.post(
        f"/api/matches/{match_id}/reviews/",
        json.dumps({"participant": participant}),
        content_type="application/json",
    )
    return response.status_code, response.json()


def test_the_owner_sees_a_review_button_and_asks_through_the_form_with_its_csrf_token(
    owner: User, match: Match, django_capture_on_commit_callbacks: Any
) -> None:
    client = signed_in(owner, csrf=True)
    page = client.get(match.get_absolute_url())
    html = page.content.decode()
    assert "Review olga/olga-bot's decisions" in html
    assert "r1's decisions" not in html  # not the owner's bot: no button
    token = page.cookies["csrftoken"].value
    refused = client.post(reverse("review-ask", args=[match.pk]), {"participant": 0})
    assert refused.status_code == 403 and not Review.objects.exists()  # no CSRF token
    with django_capture_on_commit_callbacks(execute=True):
        asked = client.post(
            reverse("review-ask", args=[match.pk]),
            {"participant": 0, "csrfmiddlewaretoken": token},
        )
    review = Review.objects.get()
    assert asked.status_code == 302
    assert asked["Location"] == reverse("review-detail", args=[match.pk, 0])
    assert (review.status, review.requested_by, review.participant) == (
        ReviewStatus.QUEUED,
        owner,
        0,
    )
    assert review.attempt is not None and review.sent_at is not None  # sent on commit
    shown = client.get(asked["Location"]).content.decode()
    assert 'data-review-status="queued"' in shown
    # It follows the review's status from a static script, never reloading on a timer.
    api = reverse("api-match-review", args=[match.pk, 0])
    assert f'data-live-match="{api}" data-status="queued"' in shown
    assert "web/match_live.js" in shown and 'http-equiv="refresh"' not in shown
    assert "estimate" in shown and "/docs/bots/#reviewing-a-game-cucumbers-review" in shown


def test_others_see_no_button_and_cannot_ask_or_read(owner: User, match: Match) -> None:
    stranger = signed_in(UserFactory(username="sam"))
    assert b"data-review-form" not in stranger.get(match.get_absolute_url()).content
    assert b"data-review-form" not in Client().get(match.get_absolute_url()).content
    refused = stranger.post(reverse("review-ask", args=[match.pk]), {"participant": 0})
    assert refused.status_code == 403 and b"your own bots" in refused.content
    status, body = api_ask(stranger, match.pk, 0)
    assert (status, body["code"]) == (403, "foreign_bot")
    assert not Review.objects.exists()
    signed_in(owner).post(reverse("review-ask", args=[match.pk]), {"participant": 0})
    assert Review.objects.count() == 1
    # The review exists: still a 404 for anyone else, on the page and in the API.
    for client in (stranger, Client()):
        assert client.get(reverse("review-detail", args=[match.pk, 0])).status_code == 404
        assert client.get(f"/api/matches/{match.pk}/reviews/0/").status_code == 404
    anonymous = Client().post(reverse("review-ask", args=[match.pk]), {"participant": 0})
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]
    assert api_ask(Client(), match.pk, 0)[0] in (401, 403)


def test_staff_may_ask_for_any_participant(match: Match) -> None:
    staff = signed_in(StaffFactory(username="root"))
    status, body = api_ask(staff, match.pk, 2)
    assert (status, body["participant"], body["status"]) == (202, 2, "queued")


def test_the_api_queues_once_and_a_second_ask_returns_the_same_review(
    owner: User, match: Match
) -> None:
    client = signed_in(owner)
    status, body = api_ask(client, match.pk, 0)
    assert status == 202
    assert (body["match"], body["participant"], body["status"], body["result"]) == (
        match.pk,
        0,
        "queued",
        None,
    )
    assert body["url"] == f"http://testserver/matches/{match.pk}/reviews/0/"
    assert body["method"].endswith("/docs/bots/#reviewing-a-game-cucumbers-review")
    again_status, again = api_ask(client, match.pk, 0)
    assert (again_status, again["id"]) == (200, body["id"])
    assert Review.objects.count() == 1
    read = client.get(f"/api/matches/{match.pk}/reviews/0/")
    assert read.status_code == 200 and read.json()["id"] == body["id"]


def test_beyond_the_quota_the_ask_is_refused_with_429_and_nothing_is_queued(
    owner: User, settings: object
) -> None:
    settings.REVIEWS_PER_DAY = 2  # type: ignore[attr-defined]
    first, second, third = (finished_match(owner, seed=seed) for seed in (1, 2, 3))
    client = signed_in(owner)
    assert api_ask(client, first.pk, 0)[0] == 202
    assert (
        client.post(reverse("review-ask", args=[second.pk]), {"participant": 0}).status_code == 302
    )
    # Asking again for one already queued is no new review: not refused, not counted.
    assert api_ask(client, first.pk, 0)[0] == 200
    status, body = api_ask(client, third.pk, 0)
    assert (status, body["code"]) == (429, "too_many_reviews")
    assert "2 reviews a day" in str(body["detail"])
    page = client.post(reverse("review-ask", args=[third.pk]), {"participant": 0})
    assert page.status_code == 429 and b"2 reviews a day" in page.content
    assert not Review.objects.filter(match=third).exists()
    # A failed review asked again counts again.
    Review.objects.filter(match=first).update(status=ReviewStatus.FAILED, error="lost")
    assert api_ask(client, first.pk, 0)[0] == 429


@pytest.mark.parametrize(
    ("participant", "status", "code"),
    [(7, 404, "unknown_participant"), ("0", 400, "invalid"), (-1, 400, "invalid")],
)
def test_a_participant_the_match_does_not_have_is_refused(
    owner: User, match: Match, participant: object, status: int, code: str
) -> None:
    got, body = api_ask(signed_in(owner), match.pk, participant)
    assert (got, body["code"]) == (status, code)
    assert not Review.objects.exists()


def test_a_match_not_finished_or_not_visible_cannot_be_reviewed(owner: User, match: Match) -> None:
    client = signed_in(owner)
    Match.objects.filter(pk=match.pk).update(status=MatchStatus.RUNNING)
    status, body = api_ask(client, match.pk, 0)
    assert (status, body["code"]) == (409, "not_reviewable")
    assert api_ask(client, 987654, 0)[0] == 404
    assert not Review.objects.exists()


def test_the_job_is_signed_by_the_platform_and_carries_each_games_replay_and_seat(
    match: Match,
) -> None:
    import uuid

    from arena.review_contract import dump
    from web.arena_hosts.keys import platform_signer

    staff = signed_in(StaffFactory(username="root"))
    assert staff.post(reverse("review-ask", args=[match.pk]), {"participant": 1}).status_code == 302
    review = Review.objects.get()
    job = job_for(review, uuid.uuid4())
    text = platform_signer().seal(Purpose.REVIEW_JOB, dump(job))
    key = parse_public_key(platform_public_key())
    _, body = open_envelope(text, Purpose.REVIEW_JOB, {PLATFORM_SIGNER: key})
    opened = load_review_job(body)
    games = list(match.games.order_by("number"))
    assert [g.number for g in opened.games] == [g.number for g in games]
    for sent, game in zip(opened.games, games, strict=True):
        # The seat of participant 1 in each game: the replay's player there is its bot.
        player = sent.replay["players"][sent.seat]
        assert player.get("bot") == match.participants.get(index=1).bot_id
        assert sent.replay == read_replay(game)  # the public replay: no bot's own words
    assert (opened.deals, opened.seed, opened.participant) == (10, 0, 1)
    assert send_review(review.pk)  # what the ask's on-commit hook does
    review.refresh_from_db()
    assert review.plan == [[g.number, g.seat] for g in opened.games]
    assert review.attempt is not None and review.sent_at is not None
