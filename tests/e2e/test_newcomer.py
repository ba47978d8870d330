"""A newcomer's first hour, in a real browser and a real shell: sign up, follow the
getting-started page's commands as the site prints them (the SDK installed from the site
into a fresh virtual environment, ``cucumbers new``, then ``cucumbers upload --wait``
pasted from the token page, whose terminal gives the verdict), and see the bot validated and
rated, without reading the repository. And
the pages a newcomer reads, on a desktop and a phone."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.conf import settings
from django.core.management import call_command

from tests.e2e.conftest import PHONE, log_in, screenshot
from tests.web.factories import active_bot
from web.bots.models import Bot, VersionStatus
from web.matches.models import Match
from web.pipeline.kinds.ladder import queue_ladder_matches
from web.pipeline.running import run_match
from web.pipeline.transitions import RunResult
from web.sandbox import SandboxKind

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def site_sdk(tmp_path: Path) -> Path:
    """The site's SDK wheel, built as at deploy time."""
    before = settings.SDK_DIR
    settings.SDK_DIR = tmp_path / "sdk"
    call_command("build_sdk")
    yield settings.SDK_DIR
    settings.SDK_DIR = before


def shell(command: str, cwd: Path, venv: Path) -> str:
    """Run one printed command as the newcomer would, in their virtual environment."""
    args = shlex.split(command)
    if args[0] in ("pip", "cucumbers"):
        args[0] = str(venv / "bin" / args[0])
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (command, done.stdout, done.stderr)
    return done.stdout


@contextmanager
def in_a_terminal(command: str, cwd: Path, venv: Path) -> Iterator[subprocess.Popen[str]]:
    """One printed command that keeps the terminal (``upload --wait``), running meanwhile;
    stopped if the test ends before it does."""
    args = shlex.split(command)
    args[0] = str(venv / "bin" / args[0])
    process = subprocess.Popen(
        args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


T = TypeVar("T")


def wait_for(find: Callable[[], T | None], seconds: float = 60) -> T:
    """What ``find`` finds once it finds it (the upload, made by the command meanwhile)."""
    deadline = time.monotonic() + seconds
    while (found := find()) is None:
        assert time.monotonic() < deadline, "the pasted command made no upload"
        time.sleep(0.2)
    return found


def test_a_newcomer_installs_writes_uploads_and_sees_the_bot_rated(
    page: Any, live_server: Any, site_sdk: Path, tmp_path: Path
) -> None:
    base = live_server.url
    page.goto(f"{base}/")
    page.click("text=Sign up")
    page.fill("#id_username", "newbie")
    page.fill("#id_password1", "a-long-pass-phrase")
    page.fill("#id_password2", "a-long-pass-phrase")
    page.click("main form button")
    page.wait_for_url(re.compile(r"/bots/new/$"))

    page.goto(f"{base}/getting-started/")
    install = page.locator('[data-command="install"]').inner_text().splitlines()
    assert install[1].startswith(f"pip install {base}/sdk/cucumbers-")
    new = page.locator('[data-command="new"]').inner_text()
    assert new == "cucumbers new mybot"

    home = tmp_path / "newbie"
    home.mkdir()
    venv = home / "cucumbers-env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    shell(install[1], home, venv)
    shell(new, home, venv)
    assert (home / "mybot.py").is_file()

    page.goto(f"{base}/accounts/tokens/")
    page.fill("#id_name", "laptop")
    page.click("main form button")
    upload = page.locator("#upload-command").inner_text()
    assert f" --wait --server {base} " in upload
    # Pasted as it is: --wait keeps the terminal until the verdict.
    with in_a_terminal(upload, home, venv) as terminal:
        bot = wait_for(lambda: Bot.objects.filter(owner__username="newbie", name="mybot").first())
        version = wait_for(lambda: bot.versions.first())
        assert version.validation_match is not None
        # What the workers do, here in this process (the broker's path is
        # test_celery_pipeline): the live server sent the job to the test's in-memory broker,
        # where no worker listens, so the match is taken back as the reaper takes back a job
        # lost with its broker.
        Match.objects.filter(pk=version.validation_match.pk).update(sent_at=None)
        played = run_match(version.validation_match.pk, SandboxKind.PROCESS)
        assert played.result is RunResult.FINISHED
        version.refresh_from_db()
        assert version.status == VersionStatus.ACTIVE
        printed, _ = terminal.communicate(timeout=120)
    assert terminal.returncode == 0, printed
    assert printed.startswith("uploaded mybot.py as mybot v1; waiting for the verdict\n")
    assert printed.endswith(f"mybot v1 passed validation and is active: {base}/bots/{bot.pk}/\n")
    for name in ("rival-1", "rival-2"):
        active_bot(name=name)
    table = queue_ladder_matches("five-cucumbers", 3, send=False)
    for match in table:  # a deal set: held until its last rotation, then rated whole
        assert run_match(match.pk, SandboxKind.PROCESS).result in (
            RunResult.HELD,
            RunResult.FINISHED,
        )
    assert {m.status for m in Match.objects.filter(pk__in=[m.pk for m in table])} == {"finished"}
    bot.refresh_from_db()
    assert bot.games > 0

    page.goto(f"{base}/my/bots/")
    page.click("text=mybot")
    stats = page.locator("main").inner_text()
    assert "Elo" in stats and f"{bot.rating:.0f}" in stats
    screenshot(page, "newcomer-bot-rated-desktop")


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/", "landing"),
        ("/rules/", "rules"),
        ("/getting-started/", "getting-started"),
        ("/ratings/", "ratings"),
    ],
)
def test_the_newcomers_pages_fit_a_desktop_and_a_phone(
    browser: Any, live_server: Any, site_sdk: Path, path: str, name: str
) -> None:
    for label, viewport in (("desktop", {"width": 1200, "height": 950}), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport)
        tab = context.new_page()
        errors: list[str] = []
        tab.on("console", lambda m, seen=errors: m.type == "error" and seen.append(m.text))
        assert tab.goto(f"{live_server.url}{path}").status == 200
        assert tab.locator("h1").first.is_visible()
        # Nothing wider than the screen but what scrolls inside its own box (tables, code).
        assert tab.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        if name == "landing" and label == "phone":
            # What this is and how to start: on the first screen of a phone.
            steps = tab.locator(".landing .steps").bounding_box()
            assert steps["y"] + steps["height"] <= PHONE["height"]
        screenshot(tab, f"newcomer-{name}-{label}")
        context.close()
        assert not errors, errors


def test_the_copy_button_copies_the_upload_command(browser: Any, live_server: Any) -> None:
    from tests.web.factories import UserFactory

    UserFactory(username="copier")
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    tab = context.new_page()
    log_in(tab, live_server, "copier")
    tab.goto(f"{live_server.url}/accounts/tokens/")
    tab.fill("#id_name", "laptop")
    tab.click("main form button")
    # The label says "Copied" for two seconds only: record every label the button shows,
    # so that a busy machine that polls late still sees it.
    tab.evaluate(
        """() => {
            const button = document.querySelector('[data-copy="upload-command"]');
            window.shownLabels = [];
            new MutationObserver(() => window.shownLabels.push(button.textContent))
                .observe(button, {childList: true, characterData: true, subtree: true});
        }"""
    )
    tab.click("text=Copy the command")
    tab.wait_for_function("() => window.shownLabels.includes('Copied')")
    copied = tab.evaluate("navigator.clipboard.readText()")
    assert copied == tab.locator("#upload-command").inner_text()
    context.close()
