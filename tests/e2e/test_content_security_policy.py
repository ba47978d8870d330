"""The site's pages work under its Content-Security-Policy (scripts and styles from the site
only, nothing inline) in a real browser: the ``page`` fixture fails a test on any violation
Chromium reports, so each page here is checked for what it needs (the match page and its
viewer are checked by test_viewer.py). And the policy does refuse an inline script."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import log_in
from tests.web.factories import StaffFactory, VersionFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    "path", ["/", "/accounts/signup/", "/accounts/login/", "/accounts/password/reset/"]
)
def test_public_pages_need_nothing_the_policy_refuses(
    page: Any, live_server: Any, path: str
) -> None:
    response = page.goto(f"{live_server.url}{path}")
    assert response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert page.locator("main").is_visible()


def test_the_api_docs_render_under_the_policy(page: Any, live_server: Any) -> None:
    page.goto(f"{live_server.url}/api/docs/")
    # Swagger UI's own script drew the operations from the schema.
    page.locator(".swagger-ui .opblock").first.wait_for()
    assert page.locator(".swagger-ui .opblock").count() > 10


def test_my_bots_refreshes_a_pending_version_under_the_policy(page: Any, live_server: Any) -> None:
    version = VersionFactory(bot__name="pending-bot")
    log_in(page, live_server, version.bot.owner.username)
    with page.expect_response(lambda r: "/status" in r.url, timeout=15_000) as polled:
        page.goto(f"{live_server.url}/my/bots/")
    assert polled.value.status == 200  # the status script (a file of the site) ran


def test_the_admin_works_under_the_policy(page: Any, live_server: Any) -> None:
    staff = StaffFactory(username="root", is_superuser=True)
    log_in(page, live_server, staff.username)
    for path in ("/admin/", "/admin/matches/match/", "/admin/bots/bot/", "/admin/auth/user/"):
        assert page.goto(f"{live_server.url}{path}").status == 200, path


def test_an_inline_script_does_not_run(browser: Any, live_server: Any) -> None:
    """What the policy is for: markup that got into a page (through a bug) runs no script."""
    context = browser.new_context()
    tab = context.new_page()
    tab.goto(f"{live_server.url}/")
    refused = lambda m: "Content Security Policy" in m.text  # noqa: E731
    with tab.expect_console_message(refused, timeout=10_000):
        tab.evaluate(
            """() => {
                window.injected = false;
                const s = document.createElement('script');
                s.textContent = 'window.injected = true';
                document.body.append(s);
            }"""
        )
    assert tab.evaluate("window.injected") is False
    context.close()
