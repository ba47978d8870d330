"""Load a bot from a ``.py`` file or a built-in name, with errors a newcomer understands.

Every bot host imports this module before its bot, in every container: it sticks to modules
the interpreter has loaded anyway (no ``pathlib``, ``inspect`` or ``traceback`` at import
time, which cost a bot host about a third of its start-up imports).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from types import FunctionType, ModuleType
from typing import TYPE_CHECKING

from .bot import Bot, FunctionBot
from .faults import FaultKind

if TYPE_CHECKING:
    from collections.abc import Callable

    from .tracebacks import BotTraceback

BUILTIN_PREFIX = "builtin:"
#: The top-level name with which a file says which of its bot classes plays: ``BOT = Hard``.
BOT_CHOICE = "BOT"


class BotLoadError(Exception):
    """The bot could not be loaded. ``kind`` is the fault it becomes in a match:
    :attr:`FaultKind.ERROR` for a file that is not a usable bot (syntax error, no bot,
    several bots), :attr:`FaultKind.CRASH` when the bot's own code raised or exited while
    loading. ``traceback``: the bot's own frames, when its code raised."""

    def __init__(
        self,
        message: str,
        kind: FaultKind = FaultKind.ERROR,
        traceback: BotTraceback | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.traceback = traceback


def load_bot(source: str) -> Bot:
    """A new bot object from ``source``: a path to a ``.py`` file or ``builtin:NAME``."""
    if source.startswith(BUILTIN_PREFIX):
        from .bots import make_builtin

        try:
            return make_builtin(source[len(BUILTIN_PREFIX) :])
        except KeyError as error:
            raise BotLoadError(str(error.args[0])) from None
    return bot_from_module(load_module(source))


def load_module(path: str) -> ModuleType:
    """Execute the bot file at ``path`` as a fresh module."""
    name = os.path.basename(path)
    if os.path.splitext(name)[1] != ".py":
        raise BotLoadError(f"{name}: a bot must be a .py file")
    try:
        with open(path, "rb") as file:
            text = file.read()
    except OSError as error:
        raise BotLoadError(f"cannot read {name}: {error.strerror}") from None
    try:
        code = compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        where = f"{name}, line {error.lineno}" if error.lineno else name
        raise BotLoadError(f"syntax error in {where}: {error.msg}") from None
    except ValueError as error:  # e.g. null bytes
        raise BotLoadError(f"{name} is not valid Python source: {error}") from None
    module_name = f"cucumbers_bot_{abs(hash(os.path.realpath(path)))}"
    spec = importlib.util.spec_from_loader(module_name, loader=None, origin=path)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__file__ = path
    # Registered so that dataclasses, pickle and typing inside the bot can find the module.
    sys.modules[module_name] = module
    try:
        exec(code, module.__dict__)
    except SystemExit as error:
        raise BotLoadError(
            f"{name} called exit({error.code!r}) while loading", FaultKind.CRASH
        ) from None
    except BaseException as error:
        raise BotLoadError(
            f"{name} raised while loading: {describe_exception(error)}",
            FaultKind.CRASH,
            traceback_of(error, path),
        ) from None
    return module


def bot_from_module(module: ModuleType) -> Bot:
    """The one bot a loaded module defines: a :class:`Bot` subclass or a ``play`` function.

    A file with several bot classes says which one plays with a top-level ``BOT = Hard``;
    without it, classes that form one line of inheritance (``Base``, then ``Hard(Base)``)
    are one bot, the most derived (a port's base class is not a second bot). The upload
    check (``platform/web/bots/source_check.py``) reads the same rules from the syntax tree.
    """
    name = os.path.basename(module.__file__ or "bot.py")
    namespace = vars(module)
    # dict.fromkeys: a class bound to two names (``BOT = Hard`` is one) is one bot.
    classes = list(
        dict.fromkeys(
            value
            for value in namespace.values()
            if isinstance(value, type)
            and issubclass(value, Bot)
            and value is not Bot
            and value is not FunctionBot
            and value.__module__ == module.__name__
        )
    )
    if BOT_CHOICE in namespace:
        chosen = namespace[BOT_CHOICE]
        if not any(chosen is cls for cls in classes):
            if isinstance(chosen, type):
                what = f"{chosen.__name__}, not a subclass of cucumbers.Bot defined in {name}"
            else:
                what = f"a {type(chosen).__name__}"
            raise BotLoadError(bad_choice(name, what, [cls.__name__ for cls in classes]))
        return _create(chosen, module, name)
    play = namespace.get("play")
    has_function = isinstance(play, FunctionType) and play.__module__ == module.__name__
    candidates = [cls.__name__ for cls in classes] + (["play()"] if has_function else [])
    if not candidates:
        raise BotLoadError(no_bot(name))
    if len(candidates) > 1:
        leaf = None if has_function else _most_derived(classes)
        if leaf is None:
            raise BotLoadError(several_bots(name, candidates))
        classes = [leaf]
    if classes:
        return _create(classes[0], module, name)
    hooks = {
        hook: fn
        for hook in ("start_game", "end_round", "end_game")
        if callable(fn := namespace.get(hook))
    }
    return _create(lambda: FunctionBot(play, **hooks), module, name)  # type: ignore[arg-type]


def _most_derived(classes: list[type[Bot]]) -> type[Bot] | None:
    """The class derived from every other one of ``classes`` (they form one line of
    inheritance), or None."""
    leaves = [cls for cls in classes if all(issubclass(cls, other) for other in classes)]
    return leaves[0] if len(leaves) == 1 else None


def _create(make: Callable[[], Bot], module: ModuleType, name: str) -> Bot:
    """The bot object, made by the bot's own code: what it raises is a crash at load."""
    try:
        return make()
    except BaseException as error:
        raise BotLoadError(
            f"{name}: creating the bot raised {describe_exception(error)}",
            FaultKind.CRASH,
            traceback_of(error, module.__file__),
        ) from None


# The loader's and the upload check's words for a file that is not one bot: one text, so
# that the site refuses a file with the message the sandbox would give.
def no_bot(name: str) -> str:
    """The message for a file that defines no bot."""
    return (
        f"no bot found in {name}: define a subclass of cucumbers.Bot with a"
        " play(self, view) method, or a top-level function play(view)"
    )


def several_bots(name: str, candidates: list[str]) -> str:
    """The message for a file that defines several bots (``candidates``, in order)."""
    example = next((c for c in reversed(candidates) if c != "play()"), "MyBot")
    return (
        f"several bots found in {name} ({', '.join(candidates)}): keep exactly one, or say"
        f" which one plays with a top-level line {BOT_CHOICE} = {example} after the classes"
    )


def bad_choice(name: str, what: str, classes: list[str]) -> str:
    """The message for a ``BOT = ...`` that names no bot class of the file (``what``)."""
    example = classes[-1] if classes else "MyBot"
    return (
        f"{BOT_CHOICE} in {name} is {what}: it must be one of the file's bot classes"
        f" itself, as in {BOT_CHOICE} = {example}"
    )


def traceback_of(error: BaseException, path: str | None) -> BotTraceback:
    """``error``'s traceback with the frames of the bot file at ``path`` only."""
    from .tracebacks import bot_traceback  # only when a bot failed (module docstring)

    return bot_traceback(error, path)


def describe_exception(error: BaseException) -> str:
    """``ExcType: message (file, line N)`` for the innermost frame of the bot's traceback."""
    import traceback  # only when a bot failed (module docstring)

    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = frames[-1]
        text += f" ({os.path.basename(last.filename)}, line {last.lineno})"
    return text
