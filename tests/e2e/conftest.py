"""Browser fixtures: Playwright for Python driving Debian's Chromium by its path (never a
downloaded browser). Without Chromium or Playwright the browser tests are skipped, except
under CI (``CI=true``), where a missing browser must fail the run."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.factories import PASSWORD

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DESKTOP = {"width": 1200, "height": 950}
PHONE = {"width": 390, "height": 844}

# Playwright's sync API keeps an event loop in this thread, which makes Django refuse ORM
# calls ("async context"); the test data and the test database's teardown are plain sync code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests need {reason} under CI (deploy/ensure-chromium.sh)")
    pytest.skip(f"browser tests need {reason} (deploy/ensure-chromium.sh)")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package (pip install -e '.[dev]')")
    if not CHROMIUM.is_file():
        _unavailable(f"Chromium at {CHROMIUM}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _csp_violation(message: Any) -> str | None:
    """Chromium reports what the Content-Security-Policy refused as a console error."""
    text = str(message.text)
    return text if message.type == "error" and "Content Security Policy" in text else None


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh desktop-sized page that fails the test on any script error and on anything
    the site's Content-Security-Policy refuses (a script, style or image the site needs)."""
    context = browser.new_context(viewport=DESKTOP)
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda message: (v := _csp_violation(message)) and errors.append(v))
    tab.set_default_timeout(10_000)
    yield tab
    context.close()
    assert not errors, f"script errors or policy violations on the page: {errors}"


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/ (git-ignored) for a human to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def log_in(page: Any, live_server: Any, username: str) -> None:
    """Sign ``username`` in (the factories' password) through the log-in form."""
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill('input[name="username"]', username)
    page.fill('input[name="password"]', PASSWORD)
    page.click("main form button")
    page.wait_for_url(re.compile(r"^(?!.*/accounts/login/).*$"))
