"""Who may do what with a bot: anonymous, owner, other user and staff × every route that
reads or changes one (pages and API). A bot's source is for its owner and staff only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.web.conftest import logged_in
from tests.web.factories import GOOD_BOT, BotFactory, VersionFactory
from web.accounts.models import ApiToken
from web.bots.models import Bot, VersionStatus

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "owner", "other", "staff")
SOURCE_MARK = "view.legal[0]"  # a line of GOOD_BOT


@dataclass(frozen=True)
class Route:
    name: str
    call: Callable[[Client, Bot], object]
    #: expected status per role
    expect: dict[str, int]
    #: whether the route changes the bot (for the owner only)
    changes: bool = False


def upload_file() -> SimpleUploadedFile:
    return SimpleUploadedFile("b.py", GOOD_BOT)


ROUTES = [
    Route(
        "bot page",
        lambda c, b: c.get(f"/bots/{b.pk}/"),
        {"anonymous": 200, "owner": 200, "other": 200, "staff": 200},
    ),
    Route(
        "source page",
        lambda c, b: c.get(f"/bots/{b.pk}/versions/1/source/"),
        {"anonymous": 302, "owner": 200, "other": 403, "staff": 200},
    ),
    Route(
        "upload page",
        lambda c, b: c.get(f"/bots/{b.pk}/upload/"),
        {"anonymous": 302, "owner": 200, "other": 403, "staff": 403},
    ),
    Route(
        "upload form",
        lambda c, b: c.post(f"/bots/{b.pk}/upload/", {"file": upload_file()}),
        {"anonymous": 302, "owner": 302, "other": 403, "staff": 403},
        changes=True,
    ),
    Route(
        "deactivate",
        lambda c, b: c.post(f"/bots/{b.pk}/active/", {"active": "0"}),
        {"anonymous": 302, "owner": 302, "other": 403, "staff": 403},
        changes=True,
    ),
    Route(
        "api bot",
        lambda c, b: c.get(f"/api/bots/{b.pk}/"),
        {"anonymous": 200, "owner": 200, "other": 200, "staff": 200},
    ),
    Route(
        "api versions",
        lambda c, b: c.get(f"/api/bots/{b.pk}/versions/"),
        {"anonymous": 200, "owner": 200, "other": 200, "staff": 200},
    ),
    Route(
        "api version",
        lambda c, b: c.get(f"/api/bots/{b.pk}/versions/1/"),
        {"anonymous": 200, "owner": 200, "other": 200, "staff": 200},
    ),
    Route(
        "api patch",
        lambda c, b: c.patch(
            f"/api/bots/{b.pk}/", {"active": False}, content_type="application/json"
        ),
        {"anonymous": 401, "owner": 200, "other": 403, "staff": 403},
        changes=True,
    ),
    Route(
        "api upload",
        lambda c, b: c.post(f"/api/bots/{b.pk}/versions/", {"file": upload_file()}),
        {"anonymous": 401, "owner": 201, "other": 403, "staff": 403},
        changes=True,
    ),
]


@pytest.fixture
def bot(user: User) -> Bot:
    bot = BotFactory(owner=user)
    VersionFactory(
        bot=bot,
        number=1,
        status=VersionStatus.REJECTED,
        rejection_kind="crash",
        rejection_detail="ValueError: private",
        stderr_tail="private output",
    )
    return bot


def client_for(role: str, owner: User) -> Client:
    if role == "anonymous":
        return Client()
    if role == "owner":
        return logged_in(owner)
    if role == "other":
        return logged_in(BotFactory().owner)
    staff = BotFactory().owner
    staff.is_staff = True
    staff.save()
    return logged_in(staff)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
def test_each_role_gets_what_its_permissions_allow_and_changes_nothing_else(
    route: Route, role: str, bot: Bot
) -> None:
    before = (bot.versions.count(), bot.active)
    response = route.call(client_for(role, bot.owner), bot)
    assert response.status_code == route.expect[role]  # type: ignore[attr-defined]
    bot.refresh_from_db()
    after = (bot.versions.count(), bot.active)
    if route.changes and role == "owner":
        assert after != before
    else:
        assert after == before, "a request changed a bot it may not change"


@pytest.mark.parametrize("role", ROLES)
def test_the_source_never_leaks_through_public_routes(role: str, bot: Bot) -> None:
    client = client_for(role, bot.owner)
    for path in (
        f"/bots/{bot.pk}/",
        f"/api/bots/{bot.pk}/",
        f"/api/bots/{bot.pk}/versions/",
        f"/api/bots/{bot.pk}/versions/1/",
        "/api/schema/",
    ):
        assert SOURCE_MARK not in client.get(path).content.decode(), path


@pytest.mark.parametrize(
    ("role", "sees"), [("anonymous", False), ("owner", True), ("other", False), ("staff", True)]
)
def test_rejection_details_are_for_owner_and_staff(role: str, sees: bool, bot: Bot) -> None:
    client = client_for(role, bot.owner)
    api = client.get(f"/api/bots/{bot.pk}/versions/1/").json()
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert (api["stderr_tail"] == "private output") is sees  # withheld: null
    assert ("private" in str(api)) is sees
    assert ("private output" in page) is sees
    assert ("ValueError: private" in page) is sees


def test_a_token_acts_only_for_its_user(bot: Bot, other_user: User) -> None:
    _, token = ApiToken.issue(other_user, "laptop")
    response = Client().post(
        f"/api/bots/{bot.pk}/versions/",
        {"file": upload_file()},
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert response.status_code == 403
    assert response.json()["detail"].startswith("this bot belongs to another user")
