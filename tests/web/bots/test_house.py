"""House bots and the ``bootstrap`` command of ``make run``."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from cucumbers.bots import BUILTINS
from web.bots.house import HOUSE_USERNAME, house_source
from web.bots.models import GAMES, Bot
from web.bots.source_check import check_source
from web.pipeline.running import validate_version
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db


def test_bootstrap_creates_house_bots_and_the_demo_account_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    call_command("bootstrap")
    call_command("bootstrap")
    out = capsys.readouterr().out
    assert "demo / cucumbers-demo" in out and "sandbox: process (NOT isolated" in out
    house = User.objects.get(username=HOUSE_USERNAME)
    assert not house.has_usable_password()
    assert Bot.objects.filter(owner=house).count() == len(BUILTINS) * len(GAMES)
    assert User.objects.get(username="demo").check_password("cucumbers-demo")


@pytest.mark.parametrize("builtin", sorted(BUILTINS))
def test_house_sources_pass_the_static_check(builtin: str) -> None:
    source = house_source(builtin).encode()
    assert check_source(f"{builtin}.py", source, 10_000).size == len(source)


def test_a_house_bot_validates_in_the_sandbox(settings: object) -> None:
    settings.VALIDATION_GAMES = 1  # type: ignore[attr-defined]
    call_command("bootstrap", "--no-demo")
    bot = Bot.objects.get(name="random-concombre")
    version = bot.versions.get()
    assert validate_version(version.pk, SandboxKind.PROCESS) == "active"
