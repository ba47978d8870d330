"""The REST API: every endpoint, its filters, its errors and its throttles."""

from __future__ import annotations

from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.pagination import PageNumberPagination
from rest_framework.throttling import AnonRateThrottle

from tests.web.conftest import logged_in
from tests.web.factories import (
    GOOD_BOT,
    BotFactory,
    MatchFactory,
    MatchGameFactory,
    ParticipantFactory,
    active_bot,
    variant,
)
from web.accounts.models import ApiToken
from web.bots.models import Bot, BotVersion, VersionStatus
from web.matches.models import MatchStatus
from web.matches.replays import StoredFiles

pytestmark = pytest.mark.django_db

#: The content type of every API body but an upload's.
JSON = "application/json"


@pytest.fixture
def token(user: User) -> str:
    return ApiToken.issue(user, "tests")[1]


@pytest.fixture
def api(token: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {token}")


def py(data: bytes = GOOD_BOT, name: str = "bot.py") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


# --- leaderboard ------------------------------------------------------------------------


def test_the_leaderboard_ranks_bots_of_one_game(client: Client) -> None:
    for rating in (1400, 1600, 1500):
        active_bot(rating=rating, games=4)
    active_bot(game="concombre")
    # DRF reads the page size once, at import: patch the class, not the setting.
    with mock.patch.object(PageNumberPagination, "page_size", 2):
        body = client.get("/api/leaderboard/?game=five-cucumbers&page=2").json()
    assert body["count"] == 3
    assert [(row["rank"], row["bot"]["rating"]) for row in body["results"]] == [(3, 1400.0)]


def test_the_leaderboard_refuses_an_unknown_game(client: Client) -> None:
    # A 400 that names the parameter, as the lists' filters answer (it was once a 404).
    response = client.get("/api/leaderboard/?game=chess")
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["game"]


# --- bots ---------------------------------------------------------------------------------


def test_bots_filter_by_game_and_owner(client: Client, user: User) -> None:
    mine = BotFactory(owner=user, game="concombre")
    BotFactory(game="concombre")
    BotFactory(owner=user)
    ids = [b["id"] for b in client.get("/api/bots/?game=concombre&owner=alice").json()["results"]]
    assert ids == [mine.pk]


def test_a_bot_row_says_how_far_its_next_game_moves_it(client: Client) -> None:
    rookie = active_bot(name="rookie", games=5, games_since_version=5)
    veteran = active_bot(name="veteran", games=80, games_since_version=80)
    rows = {
        row["name"]: (row["provisional"], row["k_factor"])
        for row in (client.get(f"/api/bots/{bot.pk}/").json() for bot in (rookie, veteran))
    }
    assert rows == {"rookie": (True, 48.0), "veteran": (False, 8.0)}


def test_a_bot_is_created_for_its_owner(api: Client, user: User) -> None:
    response = api.post("/api/bots/", {"name": "ducker", "game": "concombre"}, JSON)
    assert response.status_code == 201
    assert response.json()["owner"] == "alice"
    assert Bot.objects.get(name="ducker").owner == user


def test_a_duplicate_bot_name_is_409(api: Client, user: User) -> None:
    BotFactory(owner=user, name="ducker")
    response = api.post("/api/bots/", {"name": "Ducker", "game": "concombre"}, JSON)
    assert response.status_code == 409
    assert "already have a bot" in response.json()["detail"]


@pytest.mark.parametrize("name", ["../x", "alpha\n"])
def test_a_bad_bot_name_is_400(api: Client, name: str) -> None:
    response = api.post("/api/bots/", {"name": name, "game": "concombre"}, JSON)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid" and list(body["fields"]) == ["name"]
    assert body["detail"].startswith("name: ")


def test_the_owner_deactivates_a_bot(api: Client, user: User) -> None:
    bot = BotFactory(owner=user)
    response = api.patch(f"/api/bots/{bot.pk}/", {"active": False}, content_type="application/json")
    assert response.status_code == 200 and response.json()["active"] is False


def test_a_json_operation_refuses_a_form_body(api: Client, user: User) -> None:
    # One content type per operation: a form (or multipart) body is not read as JSON.
    for body, content_type in (
        ("name=ducker&game=concombre", "application/x-www-form-urlencoded"),
        ({"name": "ducker", "game": "concombre"}, None),  # the test client's multipart
    ):
        extra = {"content_type": content_type} if content_type else {}
        response = api.post("/api/bots/", body, **extra)
        assert response.status_code == 415, response.content
        assert response.json()["code"] == "unsupported_media_type"
        assert response.json()["detail"].endswith(" This operation takes application/json.")
    assert not Bot.objects.exists()


def test_an_upload_refuses_a_json_body(api: Client, user: User) -> None:
    bot = BotFactory(owner=user)
    response = api.post(f"/api/bots/{bot.pk}/versions/", {"file": "def play(v): ..."}, JSON)
    assert response.status_code == 415 and response.json() == {
        "detail": 'Unsupported media type "application/json" in request.'
        " This operation takes multipart/form-data.",
        "code": "unsupported_media_type",
    }


def test_no_one_deletes_a_bot_through_the_api(api: Client, user: User) -> None:
    bot = BotFactory(owner=user)
    assert api.delete(f"/api/bots/{bot.pk}/").status_code == 405


# --- versions and uploads --------------------------------------------------------------------


def test_a_version_is_uploaded_with_a_token(api: Client, user: User) -> None:
    bot = BotFactory(owner=user)
    response = api.post(f"/api/bots/{bot.pk}/versions/", {"file": py()})
    assert response.status_code == 201
    body = response.json()
    assert body["version"]["number"] == 1 and body["version"]["status"] == "queued"
    assert body["version"]["sha256"] == BotVersion.objects.get().sha256
    assert "source" not in body["version"]


@pytest.mark.parametrize(
    ("data", "name", "status", "code"),
    [
        (GOOD_BOT, "bot.js", 400, "wrong_extension"),
        (b"  ", "bot.py", 400, "empty"),
        (b"#" * (256 * 1024 + 5), "bot.py", 413, "too_large"),
        (b"\xc3\x28", "bot.py", 400, "not_utf8"),
        (b"def play(view)\n", "bot.py", 400, "syntax_error"),
        (b"import os\n", "bot.py", 400, "no_bot"),
    ],
)
def test_a_bad_upload_gets_its_status_and_code(
    api: Client, user: User, data: bytes, name: str, status: int, code: str
) -> None:
    bot = BotFactory(owner=user)
    response = api.post(f"/api/bots/{bot.pk}/versions/", {"file": py(data, name)})
    assert response.status_code == status, response.json()
    assert response.json()["code"] == code
    assert not BotVersion.objects.exists()


def test_an_empty_file_part_is_400(api: Client, user: User) -> None:
    bot = BotFactory(owner=user)
    response = api.post(f"/api/bots/{bot.pk}/versions/", {"file": py(b"")})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "file: The submitted file is empty.",
        "code": "invalid",
        "fields": {"file": ["The submitted file is empty."]},
    }


def test_a_path_like_filename_never_reaches_storage(api: Client, user: User) -> None:
    bot = BotFactory(owner=user)
    response = api.post(f"/api/bots/{bot.pk}/versions/", {"file": py(name="../../evil.py")})
    # Django keeps only the last path part; what is stored is named by us.
    assert response.status_code == 201
    version = BotVersion.objects.get()
    assert version.filename == "evil.py" and ".." not in version.source.name


def test_an_upload_without_a_token_is_401(client: Client, user: User) -> None:
    bot = BotFactory(owner=user)
    response = client.post(f"/api/bots/{bot.pk}/versions/", {"file": py()})
    assert response.status_code == 401


def test_an_upload_with_a_revoked_token_is_401(user: User) -> None:
    row, token = ApiToken.issue(user, "old")
    row.revoke()
    bot = BotFactory(owner=user)
    response = Client(HTTP_AUTHORIZATION=f"Token {token}").post(
        f"/api/bots/{bot.pk}/versions/", {"file": py()}
    )
    assert response.status_code == 401
    assert "revoked" in response.json()["detail"]


def test_uploading_to_an_unknown_bot_is_404(api: Client) -> None:
    assert api.post("/api/bots/999999/versions/", {"file": py()}).status_code == 404


def test_too_many_uploads_are_429(api: Client, user: User, settings: object) -> None:
    settings.UPLOADS_PER_HOUR = 1  # type: ignore[attr-defined]
    bot = BotFactory(owner=user)
    assert api.post(f"/api/bots/{bot.pk}/versions/", {"file": py()}).status_code == 201
    response = api.post(f"/api/bots/{bot.pk}/versions/", {"file": py()})
    assert response.status_code == 429 and response.json()["code"] == "too_many_uploads"


def test_a_second_upload_of_the_same_file_is_a_409_with_an_absolute_link(
    api: Client, user: User
) -> None:
    bot = BotFactory(owner=user, name="twice")
    assert api.post(f"/api/bots/{bot.pk}/versions/", {"file": py()}).status_code == 201
    again = api.post("/api/uploads/", {"bot": "twice", "file": py()})
    assert again.status_code == 409
    assert again.json() == {
        "detail": "this file is already v1 of twice (queued for validation): nothing new to upload;"
        f" see http://testserver/bots/{bot.pk}/",
        "code": "duplicate_version",
    }


def test_an_upload_refuses_a_field_it_does_not_take(api: Client, user: User) -> None:
    response = api.post(
        "/api/uploads/", {"bot": "x", "game": "concombre", "gmae": "x", "file": py()}
    )
    assert response.status_code == 400
    assert response.json()["fields"] == {
        "gmae": ["Unknown field: an upload takes file, bot, game."]
    }
    assert not Bot.objects.exists()


def test_upload_by_name_creates_the_bot_when_given_its_game(api: Client, user: User) -> None:
    response = api.post("/api/uploads/", {"bot": "newbie", "game": "concombre", "file": py()})
    assert response.status_code == 201
    assert response.json()["bot"]["game"] == "concombre"
    again = api.post("/api/uploads/", {"bot": "NEWBIE", "file": py(variant(1))})
    assert again.status_code == 201 and again.json()["version"]["number"] == 2


def test_upload_by_name_without_a_game_explains_itself(api: Client) -> None:
    response = api.post("/api/uploads/", {"bot": "nobody", "file": py()})
    assert response.status_code == 404
    assert "give its game" in response.json()["detail"]


def test_upload_by_name_refuses_another_game(api: Client, user: User) -> None:
    BotFactory(owner=user, name="fc", game="five-cucumbers")
    response = api.post("/api/uploads/", {"bot": "fc", "game": "concombre", "file": py()})
    assert response.status_code == 409


def test_upload_by_name_never_touches_another_users_bot(api: Client, other_user: User) -> None:
    BotFactory(owner=other_user, name="shared-name", game="concombre")
    response = api.post("/api/uploads/", {"bot": "shared-name", "game": "concombre", "file": py()})
    assert response.status_code == 201
    assert response.json()["bot"]["owner"] == "alice"


# --- matches and replays ---------------------------------------------------------------------


@pytest.fixture
def match(user: User) -> object:
    bot = active_bot(owner=user)
    match = MatchFactory(status=MatchStatus.FINISHED)
    ParticipantFactory(match=match, index=0, bot=bot, version=bot.active_version, name="a")
    ParticipantFactory(match=match, index=1, name="builtin:random")
    with StoredFiles() as files:
        name, size = files.save_replay(match.pk, 1, {"format": "cucumbers-replay/1", "seed": 3})
    MatchGameFactory(match=match, number=1, replay=name, replay_size=size)
    return match


def test_matches_filter_by_bot_owner_and_game(client: Client, match: object) -> None:
    MatchFactory(status=MatchStatus.FINISHED, game="concombre")
    bot_id = match.participants.get(index=0).bot_id  # type: ignore[attr-defined]
    for query in (f"bot={bot_id}", "owner=alice", "game=five-cucumbers"):
        ids = [m["id"] for m in client.get(f"/api/matches/?{query}").json()["results"]]
        assert ids == [match.pk], query  # type: ignore[attr-defined]


def test_a_match_lists_participants_and_replay_links(client: Client, match: object) -> None:
    body = client.get(f"/api/matches/{match.pk}/").json()  # type: ignore[attr-defined]
    assert [p["name"] for p in body["participants"]] == ["a", "builtin:random"]
    replay_url = body["games"][0]["replay"]
    assert replay_url.endswith(f"/api/matches/{match.pk}/games/1/replay/")  # type: ignore[attr-defined]
    assert client.get(replay_url).json() == {"format": "cucumbers-replay/1", "seed": 3}


def test_a_missing_replay_is_404(client: Client, match: object) -> None:
    assert client.get(f"/api/matches/{match.pk}/games/7/replay/").status_code == 404  # type: ignore[attr-defined]


# --- tokens ----------------------------------------------------------------------------------


def test_tokens_are_created_listed_and_revoked(api: Client, user: User) -> None:
    # Created from a signed-in session only (a token cannot mint tokens: test_hardening.py);
    # listed and revoked with a token too.
    created = logged_in(user).post("/api/tokens/", {"name": "ci"}, JSON)
    assert created.status_code == 201 and created.json()["token"].startswith("cuc_")
    assert api.post("/api/tokens/", {"name": "minted"}, JSON).status_code == 403
    listed = api.get("/api/tokens/").json()["results"]
    assert {t["name"] for t in listed} == {"tests", "ci"}
    assert all("token" not in t for t in listed)
    assert api.delete(f"/api/tokens/{created.json()['id']}/").status_code == 204
    assert ApiToken.objects.get(pk=created.json()["id"]).is_revoked


def test_someone_elses_token_is_404(api: Client, other_user: User) -> None:
    row, _ = ApiToken.issue(other_user, "theirs")
    assert api.delete(f"/api/tokens/{row.pk}/").status_code == 404
    assert not ApiToken.objects.get(pk=row.pk).is_revoked


def test_the_token_list_refuses_an_anonymous_caller(client: Client) -> None:
    assert client.get("/api/tokens/").status_code == 401


# --- query parameters -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("/api/matches/?bot=x", "bot"),
        ("/api/matches/?bot=1.5", "bot"),
        ("/api/matches/?bot=0", "bot"),
        (f"/api/matches/?bot={2**63}", "bot"),
        ("/api/matches/?status=lost", "status"),
        ("/api/matches/?kind=friendly", "kind"),
        ("/api/matches/?game=chess", "game"),
        ("/api/matches/?owner=" + "a" * 151, "owner"),
        ("/api/bots/?active=maybe", "active"),
        ("/api/bots/?page=abc", "page"),
        ("/api/bots/?page=0", "page"),
        ("/api/bots/?page=-2", "page"),
        ("/api/bots/?page_size=-1", "page_size"),
        ("/api/bots/?page_size=0", "page_size"),
        ("/api/bots/?page_size=201", "page_size"),
        ("/api/bots/?page_size=ten", "page_size"),
        ("/api/tournaments/?status=someday", "status"),
        ("/api/leaderboard/?page=last", "page"),
        ("/api/tokens/?page_size=1e3", "page_size"),
    ],
)
def test_a_junk_query_value_is_a_400_that_names_it(api: Client, query: str, parameter: str) -> None:
    response = api.get(query)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid" and list(body["fields"]) == [parameter]
    assert body["detail"].startswith(f"{parameter}: ")


@pytest.mark.parametrize(
    "query",
    ["/api/bots/?game=", "/api/matches/?owner=", "/api/tournaments/?status=",
     "/api/leaderboard/?game=", "/api/bots/{bot}/stats/?points=", "/api/bots/?active="],
)  # fmt: skip
def test_an_empty_query_value_is_refused_not_read_as_absent(
    api: Client, user: User, query: str
) -> None:
    response = api.get(query.format(bot=BotFactory(owner=user).pk))
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid"
    assert list(response.json()["fields"]) == [query.split("?")[1].rstrip("=")]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"bot": "1", "opponents": [2]}, "bot"),
        ({"bot": True, "opponents": [2]}, "bot"),
        ({"bot": 1, "opponents": ["2"]}, "opponents.0"),
        ({"bot": 1, "opponents": [2], "games": 2.5}, "games"),
    ],
)
def test_a_body_value_of_the_wrong_json_type_is_refused(
    api: Client, body: dict[str, object], field: str
) -> None:
    response = api.post("/api/challenges/", body, JSON)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid" and list(response.json()["fields"]) == [field]


def test_booleans_and_names_take_their_json_type(api: Client, user: User) -> None:
    bot = BotFactory(owner=user)
    for wrong in (0, "false", None):
        response = api.patch(f"/api/bots/{bot.pk}/", {"active": wrong}, JSON)
        assert response.status_code == 400 and list(response.json()["fields"]) == ["active"]
    assert api.post("/api/bots/", {"name": 5, "game": "concombre"}, JSON).status_code == 400
    # A new bot is active whatever the body says: it is deactivated with PATCH.
    created = api.post("/api/bots/", {"name": "on", "game": "concombre", "active": False}, JSON)
    assert created.status_code == 201 and created.json()["active"] is True


def test_an_integral_float_is_an_integer_as_json_schema_says(api: Client, user: User) -> None:
    mine, rival = active_bot(owner=user), active_bot()
    body = {"bot": float(mine.pk), "opponents": [float(rival.pk)], "games": 2.0}
    response = api.post("/api/challenges/", body, JSON)
    assert response.status_code == 201, response.content


def test_good_query_values_filter_and_page(api: Client, user: User) -> None:
    BotFactory(owner=user, name="on")
    BotFactory(owner=user, name="off", active=False)
    for value, names in (("true", ["on"]), ("0", ["off"]), ("False", ["off"])):
        listed = api.get(f"/api/bots/?active={value}").json()["results"]
        assert [b["name"] for b in listed] == names, value
    first = api.get("/api/bots/?page_size=1").json()
    assert (first["count"], len(first["results"])) == (2, 1) and "page=2" in first["next"]
    second = api.get("/api/bots/?page_size=1&page=2").json()
    assert second["next"] is None and second["results"][0]["id"] != first["results"][0]["id"]
    assert api.get("/api/bots/?page=3&page_size=1").status_code == 404  # past the last page


# --- errors: one shape everywhere under /api/ --------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/bots/abc/",  # a malformed id
        "/api/bots/abc/versions/",
        "/api/bots/-1/stats/",
        "/api/matches/1/games/x/replay/",
        "/api/tournaments/1.5/entries/",
        "/api/nothing-here/",  # an unknown path
        "/api/bots/1/versions/1/nope/",
    ],
)
def test_an_address_the_api_lacks_is_a_json_404(client: Client, path: str) -> None:
    for method in ("get", "post", "delete"):
        response = getattr(client, method)(path)
        assert response.status_code == 404, (method, path)
        assert response["Content-Type"] == "application/json"
        assert response.json() == {
            "detail": f"{path} is no address of the API (see http://testserver/api/docs/)",
            "code": "not_found",
        }


def test_a_crash_under_the_api_is_a_json_500(
    user: User, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from web.api.views import BotViewSet

    def crash(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(BotViewSet, "list", crash)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {token}")
    response = client.get("/api/bots/")
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert response.json() == {
        "detail": "server error: the failure is logged",
        "code": "server_error",
    }


def test_the_sites_own_404_page_stays_html(client: Client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


def test_a_missing_object_and_a_wrong_method_answer_in_the_one_shape(api: Client) -> None:
    assert api.get("/api/bots/999999/").json() == {"detail": "No Bot matches the given query.",
                                                    "code": "not_found"}  # fmt: skip
    wrong = api.put("/api/bots/999999/", {}, JSON)
    assert wrong.status_code == 405 and wrong.json()["code"] == "method_not_allowed"
    malformed = api.post("/api/bots/", "{not json", JSON)
    assert malformed.status_code == 400 and malformed.json()["code"] == "parse_error"
    assert set(malformed.json()) == {"detail", "code"}


def test_a_body_that_does_not_validate_names_each_field(api: Client, user: User) -> None:
    mine = BotFactory(owner=user)
    response = api.post("/api/challenges/", {"bot": mine.pk, "opponents": [1, "x"]}, JSON)
    assert response.status_code == 400
    assert response.json() == {
        "detail": "opponents.1: A valid integer is required.",
        "code": "invalid",
        "fields": {"opponents.1": ["A valid integer is required."]},
    }
    missing = api.post("/api/challenges/", {}, JSON).json()
    assert missing["code"] == "invalid" and set(missing["fields"]) == {"bot", "opponents"}
    assert missing["detail"] == "bot: This field is required.; opponents: This field is required."


# --- schema, docs, throttling -----------------------------------------------------------------


def test_the_openapi_schema_and_docs_are_served(client: Client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert {"/api/leaderboard/", "/api/uploads/", "/api/bots/{bot_pk}/versions/"} <= set(paths)
    assert client.get("/api/docs/").status_code == 200


def test_anonymous_traffic_is_throttled(client: Client) -> None:
    with mock.patch.object(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"}):
        statuses = [client.get("/api/bots/").status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]


def test_an_upload_response_never_includes_private_fields_for_others(
    client: Client, user: User
) -> None:
    bot = BotFactory(owner=user)
    BotVersion.objects.create(
        bot=bot,
        number=1,
        source="x.py",
        filename="x.py",
        sha256="0" * 64,
        size=1,
        status=VersionStatus.REJECTED,
        stderr_tail="secret",
    )
    body = client.get(f"/api/bots/{bot.pk}/versions/").json()
    assert "secret" not in str(body)


def test_the_api_answers_while_the_rate_limits_cache_is_down(
    client: Client, api: Client, user: User, settings: object, caplog: pytest.LogCaptureFixture
) -> None:
    # A Redis cache where nothing listens: Redis is down.
    settings.CACHES = {  # type: ignore[attr-defined]
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    assert client.get("/api/bots/").status_code == 200
    bot = BotFactory(owner=user)
    assert api.post(f"/api/bots/{bot.pk}/versions/", {"file": py()}).status_code == 201
    assert "rate limits not applied: the cache cannot be reached" in caplog.text
