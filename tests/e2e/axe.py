"""axe-core over a page in the browser: the axe.min.js that the axe-playwright-python package
ships, run by ``page.evaluate`` (through the browser's debugging protocol, which the site's
Content-Security-Policy does not stop, as it would an injected script tag)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import axe_playwright_python

AXE_SCRIPT = (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text()
#: The impacts a page of ours may not have.
FORBIDDEN = ("critical", "serious")


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """Every axe-core violation on the page as it is now (WCAG 2.x A and AA rules and axe's
    best practices)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT)
    result: dict[str, Any] = page.evaluate("async () => await window.axe.run(document)")
    violations: list[dict[str, Any]] = result["violations"]
    return violations


def accessibility_problems(page: Any, what: str) -> list[str]:
    """The critical and serious violations on the page, described; the others are printed."""
    problems = []
    for v in axe_violations(page):
        if v["impact"] not in FORBIDDEN:
            print(f"axe {what}: {v['impact']} {v['id']} on {len(v['nodes'])} node(s)")
            continue
        nodes = "; ".join(
            f"{n['target']} {n['html'][:160]} ({n['failureSummary']})" for n in v["nodes"][:5]
        )
        problems.append(f"{what}: {v['impact']} {v['id']} ({v['help']}): {nodes}")
    return problems


def assert_accessible(page: Any, what: str) -> None:
    """No critical and no serious violation on the page."""
    problems = accessibility_problems(page, what)
    assert not problems, "\n".join(problems)
