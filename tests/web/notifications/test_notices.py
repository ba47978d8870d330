"""Notices to a bot's owner: one mail per event (a rejection, a first rating, a tournament's
end; the retirement's is in tests/web/matches/test_retirement.py), each with a signed
unsubscribe link that works without logging in, each kind turned off on the account page,
and a mail server that is down never failing what caused the notice."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client

from tests.web.bots.test_validation import CRASHER
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.matches.arena_helpers import make_active, queued_match
from web.bots.models import Bot, VersionStatus
from web.bots.uploads import upload_version
from web.notifications.mail import read_unsubscribe_token, unsubscribe_token
from web.notifications.models import NoticeKind, OptOut
from web.pipeline.running import run_match, validate_version
from web.pipeline.transitions import RunResult
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db

PROCESS = SandboxKind.PROCESS
Commits = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]


@pytest.fixture(autouse=True)
def _one_game(settings: object) -> None:
    settings.VALIDATION_GAMES = 1  # type: ignore[attr-defined]


def ticked(page: str) -> set[str]:
    return set(re.findall(r'name="kinds" value="([a-z_]+)"[^>]*checked', page))


def rejected_upload(user: User, commits: Commits) -> str:
    version = upload_version(user, "b.py", CRASHER, new_bot_name="cand", game="five-cucumbers")
    with commits(execute=True):
        status = validate_version(version.pk, PROCESS)
    return status


def test_a_rejected_version_mails_its_owner_with_a_one_click_unsubscribe(
    user: User, django_capture_on_commit_callbacks: Commits
) -> None:
    assert rejected_upload(user, django_capture_on_commit_callbacks) == VersionStatus.REJECTED
    [message] = mail.outbox
    assert message.to == [user.email]
    assert message.subject == "alice/cand v1 was rejected: crash"
    assert "ValueError: boom" in message.body  # the fault's detail, to its owner
    bot = Bot.objects.get(name="cand")
    assert f"https://arena.example/bots/{bot.pk}/" in message.body
    # The token is signed with the time it was made (it never expires): read it back.
    found = re.search(r"https://arena\.example/notices/unsubscribe/([^/\s]+)/", message.body)
    assert found, message.body
    link = found.group(0)
    assert read_unsubscribe_token(found.group(1)) == (user.pk, NoticeKind.REJECTED)
    assert message.extra_headers["List-Unsubscribe"] == f"<{link}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_a_new_versions_first_rated_game_mails_its_owner_once(
    django_capture_on_commit_callbacks: Commits,
) -> None:
    first, second = make_active("ann"), make_active("bob")
    bots = [Bot.objects.get(pk=first.bot_id), Bot.objects.get(pk=second.bot_id)]
    with django_capture_on_commit_callbacks(execute=True):
        assert run_match(queued_match(bots).pk, PROCESS).result is RunResult.FINISHED
    assert sorted((m.to[0], m.subject.split(":")[0]) for m in mail.outbox) == [
        ("ann@example.org", "ann/ann v1 has its first rating"),
        ("bob@example.org", "bob/bob v1 has its first rating"),
    ]
    bots[0].refresh_from_db()
    assert f"Elo {bots[0].rating:.0f}" in next(m.subject for m in mail.outbox if "ann" in m.to[0])
    with django_capture_on_commit_callbacks(execute=True):
        assert run_match(queued_match(bots, seed=2).pk, PROCESS).result is RunResult.FINISHED
    assert len(mail.outbox) == 2  # its second rated match tells nobody


def test_a_kind_turned_off_on_the_account_page_is_not_sent_and_the_others_are(
    user: User, alice: Client, django_capture_on_commit_callbacks: Commits
) -> None:
    page = alice.get("/accounts/").content.decode()
    assert "E-mail notices" in page and ticked(page) == set(NoticeKind.values)
    kept = [k for k in NoticeKind.values if k != NoticeKind.REJECTED]
    assert alice.post("/accounts/notices/", {"kinds": kept}).status_code == 302
    assert list(OptOut.objects.values_list("kind", flat=True)) == [NoticeKind.REJECTED]
    assert ticked(alice.get("/accounts/").content.decode()) == set(kept)
    assert rejected_upload(user, django_capture_on_commit_callbacks) == VersionStatus.REJECTED
    assert mail.outbox == []
    assert alice.post("/accounts/notices/", {"kinds": NoticeKind.values}).status_code == 302
    assert not OptOut.objects.exists()  # on again


def test_the_unsubscribe_link_works_without_logging_in_and_only_for_its_kind(
    user: User, client: Client
) -> None:
    url = f"/notices/unsubscribe/{unsubscribe_token(user.pk, NoticeKind.FIRST_RATING)}/"
    page = client.get(url)
    assert page.status_code == 200 and "Stop e-mailing" in page.content.decode()
    assert not OptOut.objects.exists()  # a GET (a link scanner) changes nothing
    done = client.post(url)  # a mail client's one-click POST: no session, no CSRF token
    assert done.status_code == 200 and "Done" in done.content.decode()
    assert list(OptOut.objects.values_list("user_id", "kind")) == [
        (user.pk, NoticeKind.FIRST_RATING)
    ]
    assert client.post(url).status_code == 200  # twice is fine
    token = unsubscribe_token(user.pk, NoticeKind.RETIRED)
    altered = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
    assert client.post(f"/notices/unsubscribe/{altered}/").status_code == 400
    assert client.post("/notices/unsubscribe/not-a-token/").status_code == 400


def test_nothing_is_sent_to_an_account_without_an_address(
    django_capture_on_commit_callbacks: Commits,
) -> None:
    quiet = UserFactory(username="quiet", email="")
    assert rejected_upload(quiet, django_capture_on_commit_callbacks) == VersionStatus.REJECTED
    assert mail.outbox == []


def test_a_mail_server_that_is_down_is_retried_logged_and_never_fails_the_verdict(
    user: User,
    settings: object,
    django_capture_on_commit_callbacks: Commits,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"  # type: ignore[attr-defined]
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", 9  # type: ignore[attr-defined]
    settings.EMAIL_USE_TLS, settings.EMAIL_TIMEOUT = False, 2  # type: ignore[attr-defined]
    from web.notifications.tasks import version_notice_task

    with caplog.at_level(logging.INFO):
        assert rejected_upload(user, django_capture_on_commit_callbacks) == VersionStatus.REJECTED
    failed = [r for r in caplog.records if "event=notice.failed" in r.getMessage()]
    assert len(failed) == 1 + version_notice_task.max_retries  # tried, then retried
    assert "ConnectionRefusedError" in failed[0].getMessage()
    retries = [r for r in caplog.records if "retry: Retry in" in r.getMessage()]
    assert len(retries) == version_notice_task.max_retries
    assert mail.outbox == []
    assert Bot.objects.get(name="cand").versions.get().status == VersionStatus.REJECTED


# Its end sends the entrants' task by name, which eager mode cannot run: the test runs it.
@pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored")
def test_a_finished_tournament_mails_each_owner_their_bots_places(
    django_capture_on_commit_callbacks: Commits,
) -> None:
    from tests.web.tournaments.helpers import HIGHEST, LOWEST, open_tournament, playing_bot
    from web.pipeline.kinds.tournament import start
    from web.tournaments.entering import enter
    from web.tournaments.models import TournamentStatus
    from web.tournaments.tasks import tell_entrants_task

    tournament = open_tournament(deals_per_table=1)
    owners = [UserFactory(username=name) for name in ("tess", "uma", "vic")]
    for owner, (name, source) in zip(
        owners, [("tall", HIGHEST), ("tiny", LOWEST), ("plain", GOOD_BOT)], strict=True
    ):
        enter(owner, tournament.pk, playing_bot(owner, name, source).pk)
    start(tournament.pk, send=False)
    with django_capture_on_commit_callbacks(execute=True):
        for table in tournament.tables.order_by("rotation"):
            # The table's deal set is held until its last rotation, then finished whole.
            last = table.rotation == 2
            assert run_match(table.match_id, PROCESS).result is (
                RunResult.FINISHED if last else RunResult.HELD
            )
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.FINISHED
    # Its end sent the task by name to the broker (in memory here, no worker behind it):
    with django_capture_on_commit_callbacks(execute=True):
        assert tell_entrants_task(tournament.pk) == 3  # what the platform's worker then runs
    by_owner = {m.to[0]: m for m in mail.outbox}
    assert sorted(by_owner) == ["tess@example.org", "uma@example.org", "vic@example.org"]
    tess = by_owner["tess@example.org"]
    assert tess.subject == "Winter cup has ended"
    assert "tess/tall: place 1 of 3" in tess.body  # the highest card beats the lowest
    assert (
        "uma/tiny" not in tess.body and "uma/tiny: place 3 of 3" in by_owner["uma@example.org"].body
    )
    assert f"https://arena.example/tournaments/{tournament.pk}/" in tess.body
