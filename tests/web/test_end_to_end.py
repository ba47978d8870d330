"""End to end: sign up, upload through the form, the validation task runs in the sandbox
(Docker when the arena's runner is installed and an engine answers, which CI requires), the
version becomes active and the bot appears on the leaderboard."""

from __future__ import annotations

import os

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from tests.web.factories import GOOD_BOT
from web.bots.models import BotVersion, VersionStatus
from web.pipeline.running import run_match
from web.pipeline.transitions import RunResult
from web.sandbox import SandboxKind, docker_engine_answers

pytestmark = pytest.mark.django_db


def sandbox_for_this_machine() -> SandboxKind:
    if docker_engine_answers():
        return SandboxKind.DOCKER
    if os.environ.get("CI") == "true":
        pytest.fail("CI runs the end-to-end test in the Docker sandbox: no engine answers")
    return SandboxKind.PROCESS


@pytest.fixture(autouse=True)
def _registry_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    # The Docker runner registers itself process-wide: leave the SDK's registry as found.
    import cucumbers.runners
    import web.sandbox

    monkeypatch.setattr(cucumbers.runners, "RUNNERS", dict(cucumbers.runners.RUNNERS))
    monkeypatch.setattr(web.sandbox, "_prepared", set())


def test_sign_up_upload_validate_and_appear_on_the_leaderboard(
    settings: object, django_capture_on_commit_callbacks: object
) -> None:
    kind = sandbox_for_this_machine()
    settings.SANDBOX = kind.value  # type: ignore[attr-defined]
    client = Client()
    response = client.post(
        reverse("signup"),
        {
            "username": "eve",
            "password1": "a-long-pass-phrase",
            "password2": "a-long-pass-phrase",
        },
    )
    assert response.status_code == 302

    with django_capture_on_commit_callbacks() as queued:  # type: ignore[operator]
        response = client.post(
            reverse("bot-create"),
            {
                "name": "lowball",
                "game": "five-cucumbers",
                "file": SimpleUploadedFile("lowball.py", GOOD_BOT),
            },
        )
    assert response.status_code == 302
    assert len(queued) == 1  # the validation match's task, sent once the upload committed
    version = BotVersion.objects.get(bot__name="lowball")
    assert client.get("/").context["rows"] == []  # not on the leaderboard before it passes

    # What the platform and an arena worker do with it, in this process (the steps through
    # the broker are tests/web/matches/test_celery_pipeline.py's).
    assert version.validation_match is not None
    assert run_match(version.validation_match.pk, kind).result is RunResult.FINISHED
    version.refresh_from_db()
    assert version.status == VersionStatus.ACTIVE
    assert version.validation_match is not None
    assert version.validation_match.sandbox == kind.value

    rows = client.get("/").context["rows"]
    # On the leaderboard, unranked until its first rated game (unrated bots come last).
    assert [(rank, bot.name, bot.owner.username) for rank, bot in rows] == [
        (None, "lowball", "eve")
    ]
    my_bots = client.get(reverse("my-bots")).content.decode()
    assert "active" in my_bots
