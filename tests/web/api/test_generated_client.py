"""A client generated from the live schema by openapi-python-client, as a user of the API
would make one (docs/platform.md, "The API"): every module imports, and every operation is
called against a live server (real PostgreSQL) and answers what the schema promised, parsed
into the client's own models. An operation added to the API without a call here fails the
test; so does a schema the generator cannot turn into importable code (several request
content types did that once: ``NameError: name 'Unset' is not defined``)."""

from __future__ import annotations

import importlib
import io
import json
import pkgutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from http import HTTPStatus
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client as DjangoClient

from arena.contract import MatchKind
from tests.e2e.replays import five_cucumbers_game
from tests.e2e.test_viewer import as_outcome
from tests.web.factories import GOOD_BOT, UserFactory, active_bot, variant
from tests.web.recorded import Entrant, record_series
from tests.web.tournaments.helpers import HIGHEST, open_tournament, playing_bot
from web.accounts.models import ApiToken
from web.matches.models import Match
from web.matches.replays import StoredFiles

pytestmark = pytest.mark.django_db(transaction=True)

PACKAGE = "arena_client"
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
#: A CSRF secret of our choosing: the session's writes send it as cookie and header.
CSRF = "c" * 32


class Generated:
    """The generated package: its operations by operationId, its models and types."""

    def __init__(self, package: ModuleType, modules: dict[str, ModuleType]) -> None:
        self.package = package
        self.modules = modules
        self.models = modules[f"{PACKAGE}.models"]
        self.types = modules[f"{PACKAGE}.types"]
        self.operations = {
            name.rsplit(".", 1)[1]: module
            for name, module in modules.items()
            if name.startswith(f"{PACKAGE}.api.") and name.count(".") == 3
        }
        self.called: set[str] = set()

    def call(self, operation: str, **kwargs: Any) -> Any:
        """``sync_detailed`` of ``operation``: the answer, with its ``parsed`` model."""
        self.called.add(operation)
        return self.operations[operation].sync_detailed(**kwargs)


@pytest.fixture
def generated(live_server: Any, tmp_path: Path) -> Iterator[Generated]:
    with urllib.request.urlopen(f"{live_server.url}/api/schema/?format=json", timeout=30) as got:
        schema = json.loads(got.read())
    # No post hooks: the generator would run ruff over the code, which changes nothing here.
    (tmp_path / "config.yaml").write_text("post_hooks: []\n")
    # As docs/platform.md says (the schema's YAML, by URL).
    done = subprocess.run(
        [str(GENERATOR), "generate", "--url", f"{live_server.url}/api/schema/", "--meta", "none",
         "--output-path", f"src/{PACKAGE}", "--config", "config.yaml", "--fail-on-warning"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(tmp_path / "src"))
    try:
        package = importlib.import_module(PACKAGE)
        modules = {PACKAGE: package}
        for found in pkgutil.walk_packages(package.__path__, f"{PACKAGE}."):
            modules[found.name] = importlib.import_module(found.name)  # each one imports
        generated = Generated(package, modules)
        ids = {op["operationId"] for ops in schema["paths"].values() for op in ops.values()}
        assert set(generated.operations) == ids
        yield generated
    finally:
        sys.path.remove(str(tmp_path / "src"))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def played_match(owner: User) -> Match:
    """A finished ladder match of ``owner``'s bot ``ducker``, with its replay stored."""
    game = five_cucumbers_game()
    bot = active_bot(owner=owner, name="ducker", games=5)
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


def test_a_generated_client_calls_every_operation(
    live_server: Any, generated: Generated, request: pytest.FixtureRequest
) -> None:
    models, types = generated.models, generated.types
    client_module = generated.modules[f"{PACKAGE}.client"]
    base = live_server.url
    alice = UserFactory(username="alice")
    match = played_match(alice)
    ducker = match.participants.get(index=0).bot
    assert ducker is not None
    rival = active_bot(name="rival", games=3)
    tournament = open_tournament(name="Winter cup")
    entrant = playing_bot(alice, "entrant", HIGHEST)
    token = ApiToken.issue(alice, "generated")[1]

    anyone = client_module.Client(base_url=base, raise_on_unexpected_status=True)
    # As the generated README says: its default "Bearer" prefix (the API takes it too).
    api = client_module.AuthenticatedClient(
        base_url=base, token=token, raise_on_unexpected_status=True
    )
    session = DjangoClient()
    session.force_login(alice)
    signed_in = client_module.Client(
        base_url=base,
        cookies={
            settings.SESSION_COOKIE_NAME: session.cookies[settings.SESSION_COOKIE_NAME].value,
            settings.CSRF_COOKIE_NAME: CSRF,
        },
        headers={"X-CSRFToken": CSRF},
        raise_on_unexpected_status=True,
    )
    for client in (anyone, api, signed_in):
        # Their keep-alive connections would keep the server's threads, and so their
        # database sessions, alive past the test.
        request.addfinalizer(client.get_httpx_client().close)
    call = generated.call

    # --- reads -------------------------------------------------------------------------
    board = call(
        "leaderboard_list", client=anyone, game=models.LeaderboardListGame("five-cucumbers")
    )
    assert board.status_code == HTTPStatus.OK
    # Rated bots ranked from 1; a bot with no rated game yet after them, with no rank.
    assert [e.rank for e in board.parsed.results] == [1, 2, None]
    assert all(isinstance(e.tied_with_above, bool) for e in board.parsed.results)
    assert {e.bot.name for e in board.parsed.results} == {"ducker", "rival", "entrant"}

    arena = call("arena_retrieve", client=anyone).parsed
    # The bots here were made active directly: they wait for a first rated game only.
    assert arena.upload_to_first_rated_game.waiting >= 1 and arena.window_hours == 24

    bots = call("bots_list", client=anyone, owner="alice", active=True, page=1, page_size=10)
    assert sorted(b.name for b in bots.parsed.results) == ["ducker", "entrant"]
    one = call("bots_retrieve", client=anyone, id=ducker.pk).parsed
    assert (one.name, one.owner, one.url) == ("ducker", "alice", f"{base}/bots/{ducker.pk}/")
    stats = call("bots_stats_retrieve", client=anyone, bot_pk=ducker.pk, points=4, opponents=3)
    # Recorded without rating history: the stats are there, and empty.
    assert (stats.parsed.bot, stats.parsed.elo.games, stats.parsed.placements) == (ducker.pk, 0, [])
    versions = call("bots_versions_list", client=anyone, bot_pk=ducker.pk).parsed
    assert [v.number for v in versions.results] == [1]
    version = call("bots_versions_retrieve", client=anyone, bot_pk=ducker.pk, number=1).parsed
    assert (version.bot, version.status.value) == (ducker.pk, "active")

    matches = call(
        "matches_list", client=anyone, bot=ducker.pk, status=models.MatchesListStatus("finished")
    )
    assert [m.id for m in matches.parsed.results] == [match.pk]
    detail = call("matches_retrieve", client=anyone, id=match.pk).parsed
    seats = {p.index: (p.name, p.bot) for p in detail.participants}
    assert seats[0] == ("alice/ducker", ducker.pk) and len(seats) == len(detail.participants)
    assert detail.games[0].replay == f"{base}/api/matches/{match.pk}/games/1/replay/"
    replay = call("matches_games_replay_retrieve", client=anyone, id=match.pk, number=1)
    assert replay.parsed["format"] == "cucumbers-replay/1"

    listed = call("tournaments_list", client=anyone, status=models.TournamentsListStatus("open"))
    assert [t.name for t in listed.parsed.results] == ["Winter cup"]
    shown = call("tournaments_retrieve", client=anyone, id=tournament.pk).parsed
    assert (shown.name, shown.status.value, shown.entries) == ("Winter cup", "open", [])

    # A refusal parses into the one error shape.
    missing = call("bots_retrieve", client=anyone, id=987654)
    assert missing.status_code == HTTPStatus.NOT_FOUND and missing.parsed.code == "not_found"
    junk = call("bots_stats_retrieve", client=anyone, bot_pk=ducker.pk, points=1)
    assert junk.status_code == HTTPStatus.BAD_REQUEST
    assert (junk.parsed.code, list(junk.parsed.fields.additional_properties)) == (
        "invalid",
        ["points"],
    )

    # --- tokens: made from a signed-in session, never with a token -------------------------
    made = call("tokens_create", client=signed_in, body=models.TokenRequest(name="laptop"))
    assert made.status_code == HTTPStatus.CREATED and made.parsed.token.startswith("cuc_")
    minted = call("tokens_create", client=api, body=models.TokenRequest(name="minted"))
    assert minted.status_code == HTTPStatus.FORBIDDEN
    assert minted.parsed.code == "permission_denied"
    mine = call("tokens_list", client=api).parsed
    assert sorted(t.name for t in mine.results) == ["generated", "laptop"]
    revoked = call("tokens_destroy", client=api, id=made.parsed.id)
    assert revoked.status_code == HTTPStatus.NO_CONTENT
    assert ApiToken.objects.get(pk=made.parsed.id).is_revoked

    # --- bots and uploads ----------------------------------------------------------------
    fresh = call(
        "bots_create",
        client=api,
        body=models.BotRequest(name="fresh", game=models.GameEnum("concombre")),
    )
    assert fresh.status_code == HTTPStatus.CREATED
    assert (fresh.parsed.name, fresh.parsed.owner, fresh.parsed.game.value) == (
        "fresh",
        "alice",
        "concombre",
    )
    again = call(
        "bots_create",
        client=api,
        body=models.BotRequest(name="Fresh", game=models.GameEnum("concombre")),
    )
    assert (again.status_code, again.parsed.code) == (HTTPStatus.CONFLICT, "duplicate_name")
    off = call(
        "bots_partial_update",
        client=api,
        id=fresh.parsed.id,
        body=models.PatchedBotUpdateRequest(active=False),
    )
    assert off.status_code == HTTPStatus.OK and off.parsed.active is False

    def bot_file(data: bytes = GOOD_BOT) -> Any:
        return types.File(payload=io.BytesIO(data), file_name="bot.py", mime_type="text/x-python")

    uploaded = call(
        "bots_versions_create",
        client=api,
        bot_pk=fresh.parsed.id,
        body=models.UploadRequest(file=bot_file()),
    )
    assert uploaded.status_code == HTTPStatus.CREATED
    assert (uploaded.parsed.version.number, uploaded.parsed.version.status.value) == (1, "queued")
    newbie = models.NamedUploadRequest(
        file=bot_file(variant(1)), bot="newbie", game=models.GameEnum("five-cucumbers")
    )
    named = call("uploads_create", client=api, body=newbie)
    assert named.status_code == HTTPStatus.CREATED
    assert (named.parsed.bot.name, named.parsed.version.number) == ("newbie", 1)
    repeated = call(
        "uploads_create", client=api, body=models.NamedUploadRequest(file=bot_file(), bot="fresh")
    )
    assert repeated.status_code == HTTPStatus.CONFLICT
    assert repeated.parsed.code == "duplicate_version"
    assert repeated.parsed.detail.endswith(f"; see {base}/bots/{fresh.parsed.id}/")

    # --- a challenge (the body a curl sends, and nothing else) ------------------------------
    challenged = call("challenges_create", client=api, body=models.NewChallengeRequest(
        bot=ducker.pk, opponents=[rival.pk], games=2))  # fmt: skip
    assert challenged.status_code == HTTPStatus.CREATED, challenged.content
    created = Match.objects.get(pk=challenged.parsed.id)
    assert (created.kind, created.games_planned, challenged.parsed.status) == (
        "challenge",
        2,
        "queued",
    )
    assert challenged.parsed.url == f"{base}{created.get_absolute_url()}"
    assert [p.bot_id for p in created.participants.order_by("index")] == [ducker.pk, rival.pk]

    # --- a tournament entry and its withdrawal ----------------------------------------------
    entered = call(
        "tournaments_entries_create",
        client=api,
        tournament_pk=tournament.pk,
        body=models.NewEntryRequest(bot=entrant.pk),
    )
    assert entered.status_code == HTTPStatus.CREATED, entered.content
    assert (entered.parsed.bot, entered.parsed.name) == (entrant.pk, "alice/entrant")
    entries = call("tournaments_retrieve", client=anyone, id=tournament.pk).parsed.entries
    assert [e.id for e in entries] == [entered.parsed.id]
    withdrawn = call(
        "tournaments_entries_destroy",
        client=api,
        tournament_pk=tournament.pk,
        entry_pk=entered.parsed.id,
    )
    assert withdrawn.status_code == HTTPStatus.NO_CONTENT
    assert call("tournaments_retrieve", client=anyone, id=tournament.pk).parsed.entries == []

    # --- a move review of your bot's decisions (computed by an arena worker, not here) ------
    asked = call(
        "matches_reviews_create",
        client=api,
        match_pk=match.pk,
        body=models.NewReviewRequest(participant=0),
    )
    assert asked.status_code == HTTPStatus.ACCEPTED, asked.content
    assert (asked.parsed.participant, asked.parsed.status.value) == (0, "queued")
    assert asked.parsed.decisions is None and asked.parsed.result is None
    again = call(
        "matches_reviews_create",
        client=api,
        match_pk=match.pk,
        body=models.NewReviewRequest(participant=0),
    )
    assert (again.status_code, again.parsed.id) == (HTTPStatus.OK, asked.parsed.id)
    foreign = call(
        "matches_reviews_create",
        client=api,
        match_pk=match.pk,
        body=models.NewReviewRequest(participant=1),
    )
    assert (foreign.status_code, foreign.parsed.code) == (HTTPStatus.FORBIDDEN, "foreign_bot")
    review = call("matches_reviews_retrieve", client=api, match_pk=match.pk, participant=0)
    assert review.status_code == HTTPStatus.OK and review.parsed.url == asked.parsed.url
    hidden = call("matches_reviews_retrieve", client=anyone, match_pk=match.pk, participant=0)
    assert hidden.status_code == HTTPStatus.NOT_FOUND

    # Every operation of the schema was called.
    assert set(generated.operations) - generated.called == set()
