"""A match's status has one writer: web/pipeline/transitions.py. This scan reads every module
of the site and finds each place that writes a ``MatchStatus`` into a ``status``: a
``status=MatchStatus.X`` keyword in a call that writes (``update``, ``create``...), or an
assignment ``something.status = MatchStatus.X``. Reads (``filter``, ``exclude``, ``Q``...)
are not writes."""

from __future__ import annotations

import ast
from pathlib import Path

import web

SITE = Path(web.__file__).parent
THE_WRITER = SITE / "pipeline" / "transitions.py"
#: Calls whose ``status=`` keyword writes the column.
WRITING_CALLS = {"update", "create", "get_or_create", "update_or_create", "Match"}


def _names_match_status(node: ast.AST) -> bool:
    return any(isinstance(sub, ast.Name) and sub.id == "MatchStatus" for sub in ast.walk(node))


def _called(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def status_writes(path: Path) -> list[int]:
    """The lines of ``path`` that write a match's status."""
    tree = ast.parse(path.read_text(), filename=str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node) in WRITING_CALLS:
            lines += [
                node.lineno
                for keyword in node.keywords
                if keyword.arg == "status" and _names_match_status(keyword.value)
            ]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            lines += [
                node.lineno
                for target in targets
                if isinstance(target, ast.Attribute)
                and target.attr == "status"
                and value is not None
                and _names_match_status(value)
            ]
    return sorted(lines)


def test_only_the_transitions_module_writes_a_match_status() -> None:
    writers = {
        str(path.relative_to(SITE)): lines
        for path in sorted(SITE.rglob("*.py"))
        if "migrations" not in path.parts and path != THE_WRITER
        if (lines := status_writes(path))
    }
    assert writers == {}, f"modules besides pipeline/transitions.py write Match.status: {writers}"


def test_the_scan_sees_the_transitions_own_writes() -> None:
    # queued (release, requeue), running (start), failed (fail), finished (finish).
    assert len(status_writes(THE_WRITER)) >= 5


def test_the_scan_catches_a_write_and_passes_a_read(tmp_path: Path) -> None:
    module = tmp_path / "sneaky.py"
    module.write_text(
        "def sneak(match):\n"
        "    Match.objects.filter(status=MatchStatus.QUEUED).update(status=MatchStatus.FAILED)\n"
        "    match.status = MatchStatus.FINISHED\n"
        "    Match.objects.filter(status=MatchStatus.RUNNING).exists()\n"
    )
    assert status_writes(module) == [2, 3]
