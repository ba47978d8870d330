"""The checks an upload passes before it is stored, *without executing it*.

The web process never imports or runs an uploaded file: it compiles it (syntax errors with
their line) and reads its syntax tree for what :func:`cucumbers.loader.bot_from_module` will
look for in the sandbox, a subclass of ``cucumbers.Bot`` or a top-level ``play`` function.
The tree cannot see everything (a base class made at run time, say), so the check only
refuses files that clearly hold no bot or several; the sandbox has the last word. It follows
the loader's rules for several classes (a top-level ``BOT = Hard`` names the one that plays;
without it, classes in one line of inheritance are one bot, the most derived) and refuses
with the loader's own words.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass

from cucumbers.loader import BOT_CHOICE, bad_choice, no_bot, several_bots
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


def _choice(statements: list[ast.stmt]) -> ast.expr | None:
    """The value of a top-level ``BOT = ...`` (the file names its bot), or None."""
    found = None
    for node in statements:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == BOT_CHOICE for t in node.targets
        ):
            found = node.value
    return found


def _clearly_not_a_class(name: str, value: ast.expr, statements: list[ast.stmt]) -> str | None:
    """What ``BOT = value`` names when the tree shows it cannot be a bot class, in the
    loader's words (``a str``), or None when only running the file can tell."""
    if isinstance(value, ast.Constant):
        return f"a {type(value.value).__name__}"
    if isinstance(value, ast.Lambda):
        return "a function"
    if not isinstance(value, ast.Name):
        return None
    bound = [
        node
        for node in statements
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.name == value.id
    ]
    if bound and all(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) for node in bound):
        return "a function"
    # A class with no base at all derives from object alone: never a bot.
    if bound and all(
        isinstance(node, ast.ClassDef) and not node.bases and not node.keywords for node in bound
    ):
        return f"{value.id}, not a subclass of cucumbers.Bot defined in {name}"
    return None


def _most_derived(bases: dict[str, set[str]]) -> str | None:
    """The class derived from every other one (``bases``: each class's bases among them,
    by name), or None when they are not one line of inheritance."""

    def ancestors(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        found: set[str] = set()
        for base in bases.get(name, set()) - seen - {name}:
            found |= {base} | ancestors(base, seen | {name})
        return found

    leaves = [cls for cls in bases if ancestors(cls) >= set(bases) - {cls}]
    return leaves[0] if len(leaves) == 1 else None


def _check_one_bot(name: str, tree: ast.Module) -> None:
    statements = _top_level(tree.body)
    bot_names, sdk_names = _sdk_names(statements)
    # Certain: derived (maybe through classes of this file) from cucumbers.Bot, with their
    # bases among those. Possible: derived from something else of the SDK (a built-in bot,
    # say), which the tree cannot tell from a helper class; those never make a file
    # "several bots".
    certain: dict[str, set[str]] = {}
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
            certain[node.name] = certain.get(node.name, set()) | (names & set(certain))
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
    candidates = list(certain) + (["play()"] if has_play else [])
    if not candidates and not possible:
        raise UploadError(Problem.NO_BOT, no_bot(name))
    choice = _choice(statements)
    if choice is not None:
        # The file says which class plays: the sandbox checks that it is one (what the
        # tree cannot see); here only what is clearly not a class is refused.
        if (what := _clearly_not_a_class(name, choice, statements)) is not None:
            raise UploadError(Problem.BAD_BOT_CHOICE, bad_choice(name, what, list(certain)))
        return
    if len(candidates) > 1 and (has_play or _most_derived(certain) is None):
        raise UploadError(Problem.SEVERAL_BOTS, several_bots(name, candidates))
