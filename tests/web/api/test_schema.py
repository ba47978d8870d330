"""The API's OpenAPI schema (what /api/docs/ shows and clients are generated from) against
the API's real answers: every endpoint, successes and refusals, validated with openapi-core.
A field the schema promises and the answer lacks (or the other way round), a wrong type, an
undocumented status: each fails here."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.http import HttpResponse
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from openapi_core import OpenAPI
from openapi_core.contrib.django import DjangoOpenAPIRequest, DjangoOpenAPIResponse

from arena.contract import MatchKind
from tests.e2e.replays import five_cucumbers_game
from tests.e2e.test_viewer import as_outcome
from tests.web.conftest import logged_in
from tests.web.factories import GOOD_BOT, active_bot, variant
from tests.web.recorded import Entrant, record_series
from web.accounts.models import ApiToken
from web.matches.models import Match
from web.matches.replays import StoredFiles

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def openapi() -> OpenAPI:
    return OpenAPI.from_dict(SchemaGenerator().get_schema(request=None, public=True))


class AnsweredRequest(DjangoOpenAPIRequest):
    """The request of an answer: the view has read its body (an answer is checked, not the
    request), which Django then no longer gives."""

    @property
    def body(self) -> bytes:
        return b""


def checked(openapi: OpenAPI, response: HttpResponse) -> HttpResponse:
    """``response`` after checking it against the schema of its request's operation."""
    request = response.wsgi_request  # type: ignore[attr-defined]
    openapi.validate_response(AnsweredRequest(request), DjangoOpenAPIResponse(response))
    return response


@pytest.fixture
def played(user: User) -> Match:
    game = five_cucumbers_game()
    bot = active_bot(owner=user, name="ducker")
    entrants = [Entrant(p["name"]) for p in game["players"]]
    entrants[0] = Entrant("alice/ducker", bot, bot.active_version)
    with StoredFiles() as files, transaction.atomic():
        return record_series(
            game="five-cucumbers",
            kind=MatchKind.LADDER,
            seed=11,
            sandbox="process",
            entrants=entrants,
            outcomes=[as_outcome(1, game)],
            files=files,
        )


def py(name: str = "bot.py", data: bytes = GOOD_BOT) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/x-python")


def test_public_reads_answer_as_the_schema_says(
    openapi: OpenAPI, played: Match, user: User
) -> None:
    bot = played.participants.get(index=0).bot
    assert bot is not None
    anyone = Client()
    for path in (
        "/api/leaderboard/?game=five-cucumbers",
        "/api/arena/",
        "/api/bots/",
        f"/api/bots/?owner={user.username}&game=five-cucumbers",
        f"/api/bots/{bot.pk}/",
        f"/api/bots/{bot.pk}/stats/",
        f"/api/bots/{bot.pk}/versions/",
        f"/api/bots/{bot.pk}/versions/1/",
        "/api/matches/",
        f"/api/matches/?bot={bot.pk}",
        f"/api/matches/{played.pk}/",
        f"/api/matches/{played.pk}/games/1/replay/",
    ):
        response = checked(openapi, anyone.get(path))
        assert response.status_code == 200, path


def test_an_owners_writes_answer_as_the_schema_says(openapi: OpenAPI, user: User) -> None:
    session = logged_in(user)
    made = checked(openapi, session.post("/api/tokens/", {"name": "ci"}, "application/json"))
    assert made.status_code == 201
    api = Client(HTTP_AUTHORIZATION=f"Token {made.json()['token']}")
    assert checked(openapi, api.get("/api/tokens/")).status_code == 200
    bot = checked(
        openapi,
        api.post("/api/bots/", {"name": "fresh", "game": "concombre"}, "application/json"),
    )
    assert bot.status_code == 201
    bot_id = bot.json()["id"]
    uploaded = checked(openapi, api.post(f"/api/bots/{bot_id}/versions/", {"file": py()}))
    assert uploaded.status_code == 201
    named = checked(
        openapi, api.post("/api/uploads/", {"bot": "fresh", "file": py(data=variant(1))})
    )
    assert named.status_code == 201
    patched = checked(
        openapi, api.patch(f"/api/bots/{bot_id}/", {"active": False}, "application/json")
    )
    assert patched.status_code == 200 and patched.json()["active"] is False
    revoked = ApiToken.objects.get(user=user, name="ci").pk
    assert checked(openapi, session.delete(f"/api/tokens/{revoked}/")).status_code == 204


def test_a_challenge_answers_as_the_schema_says(openapi: OpenAPI, user: User) -> None:
    mine = active_bot(owner=user, name="mine")
    rival = active_bot(name="rival")
    response = checked(
        openapi,
        logged_in(user).post(
            "/api/challenges/", {"bot": mine.pk, "opponents": [rival.pk]}, "application/json"
        ),
    )
    assert response.status_code == 201, response.content
    match = Match.objects.get()
    assert response.json() == {
        "id": match.pk,
        "status": "queued",
        "url": f"http://testserver{match.get_absolute_url()}",
    }


def test_refusals_answer_as_the_schema_says(openapi: OpenAPI, user: User, other_user: User) -> None:
    theirs = active_bot(owner=other_user, name="theirs")
    rival = active_bot(name="rival")
    api = Client(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(user, 't')[1]}")
    cases: list[tuple[Client, str, str, Any, int]] = [
        (Client(), "get", "/api/bots/999999/", None, 404),
        (Client(), "post", "/api/bots/", {"name": "x", "game": "concombre"}, 401),
        (api, "post", "/api/bots/", {"name": "bad name!", "game": "concombre"}, 400),
        (api, "patch", f"/api/bots/{theirs.pk}/", {"active": False}, 403),
        (api, "post", f"/api/bots/{theirs.pk}/versions/", {"file": py()}, 403),
        (api, "post", "/api/uploads/", {"bot": "nobody", "file": py()}, 404),
        (api, "post", "/api/uploads/", {"bot": "x", "game": "concombre", "file": py("x.txt")}, 400),
        (api, "post", "/api/tokens/", {"name": "minted"}, 403),
        (api, "delete", "/api/tokens/999999/", None, 404),
        (api, "get", "/api/matches/999999/games/1/replay/", None, 404),
        (api, "get", "/api/leaderboard/?game=chess", None, 400),
        (api, "get", "/api/bots/?page=abc", None, 400),
        (api, "get", "/api/bots/?active=maybe&page_size=-1", None, 400),
        (api, "get", f"/api/bots/{theirs.pk}/stats/?points=1", None, 400),
        (api, "get", "/api/bots/abc/versions/", None, 404),
        (api, "post", "/api/bots/", "name=x&game=concombre", 415),
        (api, "get", "/api/matches/?bot=x", None, 400),
        (api, "get", "/api/bots/?page=99", None, 404),
        (Client(HTTP_AUTHORIZATION="Token cuc_nope"), "get", "/api/bots/", None, 401),
        (api, "post", "/api/challenges/", {"bot": theirs.pk, "opponents": [rival.pk]}, 403),
    ]
    for client, method, path, data, status in cases:
        call = getattr(client, method)
        if data is None:
            response = call(path)
        elif isinstance(data, str):  # a form body, where JSON is expected
            response = call(path, data, "application/x-www-form-urlencoded")
        elif method == "post" and "file" in data:
            response = call(path, data)
        else:
            response = call(path, data, "application/json")
        assert response.status_code == status, (method, path, response.content)
        checked(openapi, response)


def test_tournaments_answer_as_the_schema_says(
    openapi: OpenAPI, user: User, other_user: User, django_capture_on_commit_callbacks: Any
) -> None:
    from tests.web.tournaments.helpers import open_tournament, playing_bot
    from tests.web.tournaments.test_pages_and_api import played_tournament

    with django_capture_on_commit_callbacks(execute=True):
        played = played_tournament()
    upcoming = open_tournament(name="Upcoming")
    anyone = Client()
    for path in ("/api/tournaments/", f"/api/tournaments/{played.pk}/",
                 f"/api/tournaments/{upcoming.pk}/", "/api/tournaments/?status=open"):  # fmt: skip
        assert checked(openapi, anyone.get(path)).status_code == 200, path
    api = logged_in(user)
    url = f"/api/tournaments/{upcoming.pk}/entries/"
    bot = playing_bot(user, "entrant", b"def play(view):\n    return view.legal[0]\n")
    created = checked(openapi, api.post(url, {"bot": bot.pk}, "application/json"))
    assert created.status_code == 201, created.content
    refusals = [
        (api.post(url, {"bot": bot.pk}, "application/json"), 409),
        (api.post(url, {"bot": "x"}, "application/json"), 400),
        (logged_in(other_user).delete(f"{url}{created.json()['id']}/"), 404),
        (anyone.post(url, {"bot": bot.pk}, "application/json"), 401),
        (anyone.get("/api/tournaments/999999/"), 404),
    ]
    for response, status in refusals:
        assert response.status_code == status, response.content
        checked(openapi, response)
    assert checked(openapi, api.delete(f"{url}{created.json()['id']}/")).status_code == 204


def test_each_operation_takes_one_content_type_and_only_uploads_take_multipart() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    taken = {
        (method.upper(), path): list(operation["requestBody"]["content"])
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
        if "requestBody" in operation
    }
    uploads = {("POST", "/api/bots/{bot_pk}/versions/"), ("POST", "/api/uploads/")}
    assert {key for key, types in taken.items() if types == ["multipart/form-data"]} == uploads
    assert {key: types for key, types in taken.items() if key not in uploads} == {
        key: ["application/json"] for key in taken if key not in uploads
    }
    assert ("POST", "/api/challenges/") in taken and ("PATCH", "/api/bots/{id}/") in taken
