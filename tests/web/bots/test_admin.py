"""The admin: users, bots, versions and matches, with their actions."""

from __future__ import annotations

from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.web.conftest import logged_in
from tests.web.factories import BotFactory, MatchFactory, UserFactory, VersionFactory
from web.bots.models import VersionStatus
from web.matches.models import MatchStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(db: None) -> Client:
    return logged_in(UserFactory(username="boss", is_staff=True, is_superuser=True))


@pytest.mark.parametrize(
    "path",
    [
        "/admin/auth/user/",
        "/admin/bots/bot/",
        "/admin/bots/botversion/",
        "/admin/matches/match/",
        "/admin/accounts/apitoken/",
    ],
)
def test_every_admin_list_renders(admin_client: Client, path: str) -> None:
    BotFactory()
    assert admin_client.get(path).status_code == 200


def test_the_disable_action_stops_bots(admin_client: Client) -> None:
    bots = [BotFactory(), BotFactory()]
    admin_client.post(
        "/admin/bots/bot/", {"action": "disable", "_selected_action": [b.pk for b in bots]}
    )
    assert all(not b.__class__.objects.get(pk=b.pk).active for b in bots)


def test_requeue_sends_rejected_versions_back_to_validation(
    admin_client: Client, django_capture_on_commit_callbacks: object
) -> None:
    rejected = VersionFactory(
        status=VersionStatus.REJECTED, rejection_kind="crash", rejection_detail="boom"
    )
    active = VersionFactory(status=VersionStatus.ACTIVE)
    send_patch = mock.patch("web.pipeline.dispatch.send_match")
    capture = django_capture_on_commit_callbacks(execute=True)  # type: ignore[operator]
    old_match = rejected.validation_match_id
    with send_patch as send, capture:
        admin_client.post(
            "/admin/bots/botversion/",
            {
                "action": "requeue_validation",
                "_selected_action": [rejected.pk, active.pk],
            },
        )
    rejected.refresh_from_db()
    active.refresh_from_db()
    assert (rejected.status, rejected.rejection_detail) == (VersionStatus.QUEUED, "")
    assert active.status == VersionStatus.ACTIVE
    # A new validation match, sent once the action committed.
    assert rejected.validation_match_id not in (None, old_match)
    assert [call.args for call in send.call_args_list] == [(rejected.validation_match_id,)]


def test_staff_requeue_failed_matches_from_the_admin(admin_client: Client) -> None:
    failed = MatchFactory(status=MatchStatus.FAILED)
    admin_client.post(
        "/admin/matches/match/", {"action": "requeue_failed", "_selected_action": [failed.pk]}
    )
    failed.refresh_from_db()
    assert failed.status == MatchStatus.QUEUED


def test_a_version_cannot_be_edited_in_the_admin(admin_client: Client) -> None:
    version = VersionFactory()
    page = admin_client.get(f"/admin/bots/botversion/{version.pk}/change/").content.decode()
    assert 'name="sha256"' not in page


def test_the_admin_is_for_staff_only(client: Client, user: User) -> None:
    assert logged_in(user).get("/admin/bots/bot/").status_code == 302
