"""One notice through a real SMTP server started by the test (aiosmtpd), as production
sends them (``EMAIL_BACKEND=smtp``): the message that arrives is the owner's, with its
unsubscribe headers."""

from __future__ import annotations

import email
import socket
from collections.abc import Iterator

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message
from django.contrib.auth.models import User

from tests.web.bots.test_validation import CRASHER
from web.bots.uploads import upload_version
from web.notifications.models import NoticeKind
from web.notifications.tasks import version_notice_task
from web.pipeline.running import validate_version
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db


class Inbox(Message):  # type: ignore[misc]  # aiosmtpd ships no types
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[email.message.Message] = []

    def handle_message(self, message: email.message.Message) -> None:
        self.messages.append(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def smtp_server(settings: object) -> Iterator[Inbox]:
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"  # type: ignore[attr-defined]
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", controller.port  # type: ignore[attr-defined]
    settings.EMAIL_USE_TLS, settings.EMAIL_USE_SSL = False, False  # type: ignore[attr-defined]
    yield inbox
    controller.stop()


def test_a_rejection_notice_arrives_at_a_real_smtp_server(
    user: User, smtp_server: Inbox, settings: object
) -> None:
    settings.VALIDATION_GAMES = 1  # type: ignore[attr-defined]
    version = upload_version(user, "b.py", CRASHER, new_bot_name="cand", game="five-cucumbers")
    validate_version(version.pk, SandboxKind.PROCESS)
    # What the platform's worker runs once the verdict commits.
    assert version_notice_task(NoticeKind.REJECTED.value, version.pk) is True
    [message] = smtp_server.messages
    assert message["To"] == "alice@example.org"
    assert message["From"] == settings.DEFAULT_FROM_EMAIL  # type: ignore[attr-defined]
    assert message["Subject"] == "alice/cand v1 was rejected: crash"
    assert (
        message["List-Unsubscribe"]
        .strip()
        .startswith("<https://arena.example/notices/unsubscribe/")
    )
    body = message.get_payload(decode=True).decode()
    assert "did not pass its validation" in body and "ValueError: boom" in body
