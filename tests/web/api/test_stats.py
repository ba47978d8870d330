"""``GET /api/bots/<id>/stats/``: the bot page's chart data as JSON, public, in the schema."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.web.bots.history import record_history
from tests.web.factories import active_bot
from web.bots.models import Bot

pytestmark = pytest.mark.django_db


@pytest.fixture
def trio() -> list[Bot]:
    bots = [active_bot(name=name) for name in ("ace", "bea", "cid")]
    record_history(bots, [([0, 1, 2], [[0, 1, 2], [1, 0, 2]]), ([0, 1], [[1, 0]])])
    return bots


def test_anyone_reads_a_bots_stats(client: Client, trio: list[Bot]) -> None:
    ace, bea, cid = trio
    body = client.get(f"/api/bots/{ace.pk}/stats/").json()
    assert body["bot"] == ace.pk
    elo = body["elo"]
    assert (elo["games"], elo["downsampled"]) == (3, False)
    assert [(p["index"], p["rating"]) for p in elo["points"]] == [
        (0, 1500),
        (1, 1508),
        (2, 1508),
        (3, 1500),
    ]
    assert elo["highest"]["index"] == 1 and elo["points"][0]["match"] > 0
    assert body["placements"] == [
        {"table_size": 2, "games": 1, "counts": [0, 1], "shares": [0.0, 1.0]},
        {"table_size": 3, "games": 2, "counts": [1, 1, 0], "shares": [0.5, 0.5, 0.0]},
    ]
    rivals = body["head_to_head"]
    assert [(r["opponent"], r["name"], r["games"], r["above"]) for r in rivals] == [
        (bea.pk, str(bea), 3, 1),
        (cid.pk, str(cid), 2, 2),
    ]
    assert rivals[0]["place_difference"] == pytest.approx(-1 / 3)


def test_the_parameters_are_bounded(client: Client, trio: list[Bot]) -> None:
    ace = trio[0]
    one = client.get(f"/api/bots/{ace.pk}/stats/?opponents=1&points=4").json()
    assert len(one["head_to_head"]) == 1 and len(one["elo"]["points"]) == 4
    # Out of bounds or junk is refused (it was once clamped, or quietly the default).
    refused = client.get(f"/api/bots/{ace.pk}/stats/?opponents=0&points=junk")
    assert refused.status_code == 400
    body = refused.json()
    assert body["code"] == "invalid" and set(body["fields"]) == {"opponents", "points"}
    assert "opponents: Ensure this value is greater than or equal to 1." in body["detail"]
    too_many = client.get(f"/api/bots/{ace.pk}/stats/?points=2001")
    assert too_many.status_code == 400 and set(too_many.json()["fields"]) == {"points"}


def test_a_new_bot_has_empty_stats_and_an_unknown_one_is_404(
    client: Client, alice: Client, user: User
) -> None:
    bot = active_bot(owner=user)
    body = client.get(f"/api/bots/{bot.pk}/stats/").json()
    assert body["elo"] == {
        "games": 0,
        "downsampled": False,
        "lowest": None,
        "highest": None,
        "points": [],
    }
    assert body["placements"] == [] and body["head_to_head"] == []
    assert client.get("/api/bots/999999/stats/").status_code == 404
    # Read-only, even for the owner.
    assert alice.post(f"/api/bots/{bot.pk}/stats/").status_code == 405


def test_the_stats_are_in_the_openapi_schema(client: Client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/bots/{bot_pk}/stats/"]
    assert set(operation) == {"get", "parameters"} or set(operation) == {"get"}
    names = {p["name"] for p in operation["get"]["parameters"]}
    assert {"bot_pk", "points", "opponents"} <= names
    stats = schema["components"]["schemas"]["BotStats"]
    assert set(stats["properties"]) == {"bot", "elo", "placements", "head_to_head"}
    assert "place_difference" in schema["components"]["schemas"]["HeadToHead"]["properties"]
