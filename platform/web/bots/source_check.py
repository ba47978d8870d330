"""The checks an upload passes before it is stored, *without executing it*.

The web process never imports or runs an uploaded file: it compiles it (syntax errors with
their line) and reads its syntax tree for what :func:`cucumbers.loader.bot_from_module` will
look for in the sandbox, a subclass of ``cucumbers.Bot`` or a top-level ``play`` function.
The tree cannot see everything (a base class made at run time, say), so the check only
refuses files that clearly hold no bot or several; the sandbox has the last word.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass

from web.refusals import Problem

from .errors import UploadError

SOURCE_SUFFIX = ".py"
#: Plain names only: no folders, no hidden files, nothing a shell or a browser reads twice.
FILENAME_PATTERN = re.compile(r"\A[A-Za-z0-9_][A-Za-z0-9_.-]{0,96}\.py\Z")
SDK_MODULE = "cucumbers"
BOT_BASE = "Bot"


@dataclass(frozen=True, slots=True)
class CheckedSource:
    """An upload that passed every check."""

    filename: str
    data: bytes
    sha256: str

    @property
    def size(self) -> int:
        return len(self.data)


def check_filename(filename: str) -> str:
    name = filename.strip()
    if "/" in name or "\\" in name or name.startswith(".") or "\x00" in name:
        raise UploadError(
            Problem.BAD_FILENAME,
            f"{name!r} looks like a path: upload a plain file name such as mybot.py",
        )
    if not name.endswith(SOURCE_SUFFIX):
        raise UploadError(
            Problem.WRONG_EXTENSION, f"{name!r}: a bot is a single Python file ending in .py"
        )
    if not FILENAME_PATTERN.match(name):
        raise UploadError(
            Problem.BAD_FILENAME,
            f"{name!r}: use only letters, digits, '.', '-' and '_' in the file name"
            " (at most 100 characters)",
        )
    return name


def check_source(filename: str, data: bytes, max_bytes: int) -> CheckedSource:
    """``data`` checked as the bot file ``filename``; raises :class:`UploadError`."""
    name = check_filename(filename)
    if not data.strip():
        raise UploadError(Problem.EMPTY, f"{name} is empty")
    if len(data) > max_bytes:
        raise UploadError(
            Problem.TOO_LARGE,
            f"{name} is {_kib(len(data))}; the limit is {_kib(max_bytes)}",
        )
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UploadError(
            Problem.NOT_UTF8, f"{name} is not UTF-8 text (bad byte at offset {error.start})"
        ) from None
    tree = _compile(name, data)
    _check_one_bot(name, tree)
    return CheckedSource(name, data, hashlib.sha256(data).hexdigest())


def _kib(size: int) -> str:
    return f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} bytes"


def _compile(name: str, data: bytes) -> ast.Module:
    try:
        tree = ast.parse(data, filename=name)
        # The compiler finds what the parser lets through (return outside a function...).
        compile(tree, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        where = f"line {error.lineno}" if error.lineno else "somewhere"
        raise UploadError(
            Problem.SYNTAX_ERROR, f"syntax error in {name}, {where}: {error.msg}"
        ) from None
    except ValueError as error:  # null bytes
        raise UploadError(Problem.SYNTAX_ERROR, f"{name} is not Python source: {error}") from None
    except (RecursionError, MemoryError):
        raise UploadError(Problem.SYNTAX_ERROR, f"{name} is nested too deeply") from None
    return tree


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements at module level, looking into ``if``/``try``/``with`` blocks."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If):
            found += _top_level(node.body) + _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            found += _top_level(node.body) + _top_level(node.orelse)
            for handler in node.handlers:
                found += _top_level(handler.body)
            found += _top_level(node.finalbody)
        elif isinstance(node, ast.With):
            found += _top_level(node.body)
    return found


def _sdk_names(statements: list[ast.stmt]) -> tuple[set[str], set[str]]:
    """Names bound to ``cucumbers.Bot``, and names of modules/objects imported from the SDK."""
    bot_names: set[str] = set()
    sdk_names: set[str] = set()
    for node in statements:
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == SDK_MODULE:
            for alias in node.names:
                bound = alias.asname or alias.name
                (bot_names if alias.name == BOT_BASE else sdk_names).add(bound)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == SDK_MODULE:
                    sdk_names.add(alias.asname or alias.name.split(".")[0])
    return bot_names, sdk_names


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _check_one_bot(name: str, tree: ast.Module) -> None:
    statements = _top_level(tree.body)
    bot_names, sdk_names = _sdk_names(statements)
    # Certain: derived (maybe through classes of this file) from cucumbers.Bot. Possible:
    # derived from something else of the SDK (a built-in bot, say), which the tree cannot
    # tell from a helper class; those never make a file "several bots".
    certain: list[str] = []
    possible: list[str] = []
    for node in statements:
        if not isinstance(node, ast.ClassDef):
            continue
        names = {base.id for base in node.bases if isinstance(base, ast.Name)}
        sdk_bot = any(
            isinstance(base, ast.Attribute)
            and base.attr == BOT_BASE
            and _root_name(base) in sdk_names
            for base in node.bases
        )
        if sdk_bot or names & (bot_names | set(certain)):
            certain.append(node.name)
        elif names & (sdk_names | set(possible)) or any(
            isinstance(base, ast.Attribute) and _root_name(base) in sdk_names for base in node.bases
        ):
            possible.append(node.name)
    has_play = any(
        (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "play")
        or (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "play" for t in node.targets)
        )
        for node in statements
    )
    candidates = sorted(set(certain)) + (["play()"] if has_play else [])
    if not candidates and not possible:
        raise UploadError(
            Problem.NO_BOT,
            f"no bot found in {name}: define a subclass of cucumbers.Bot with a"
            " play(self, view) method, or a top-level function play(view)",
        )
    if len(candidates) > 1:
        raise UploadError(
            Problem.SEVERAL_BOTS,
            f"several bots found in {name} ({', '.join(candidates)}): keep exactly one",
        )
