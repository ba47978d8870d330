"""Files with several bot classes, and what both the loader (in the sandbox) and the upload
check (on the site, from the syntax tree) must make of each: the class that plays, or the
same refusal in the same words. tests/sdk/test_loader.py runs the loader over them,
tests/web/bots/test_source_check.py the upload check."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

PORTED = Path(__file__).parent / "ported_bots"

HEAD = "from cucumbers import Bot\n\n"


class Case(NamedTuple):
    """``source`` as the file ``filename``: ``plays`` is the class that plays, or None when
    the file is refused with ``message``."""

    filename: str
    source: str
    plays: str | None
    message: str = ""


def _classes(*lines: str) -> str:
    body = "".join(
        f"class {line}:\n    def play(self, view):\n        return view.legal[0]\n\n"
        for line in lines
    )
    return HEAD + body


CASES = {
    "a port: a base class and the bot": Case(
        "agurk_port.py", (PORTED / "agurk_port.py").read_text(), "HardPlayer"
    ),
    "a library of strategies naming its bot": Case(
        "strategies.py", (PORTED / "strategies.py").read_text(), "Careful"
    ),
    "one line of three generations": Case(
        "line.py", _classes("Base(Bot)", "Middle(Base)", "Hard(Middle)"), "Hard"
    ),
    "a diamond: one class derived from all the others": Case(
        "diamond.py", _classes("Base(Bot)", "A(Base)", "B(Base)", "Both(A, B)"), "Both"
    ),
    "BOT names the base class": Case(
        "base.py", _classes("Base(Bot)", "Hard(Base)") + "BOT = Base\n", "Base"
    ),
    "siblings without BOT": Case(
        "siblings.py",
        _classes("Base(Bot)", "Easy(Base)", "Hard(Base)"),
        None,
        "several bots found in siblings.py (Base, Easy, Hard): keep exactly one, or say which"
        " one plays with a top-level line BOT = Hard after the classes",
    ),
    "two unrelated bots": Case(
        "two.py",
        _classes("A(Bot)", "B(Bot)"),
        None,
        "several bots found in two.py (A, B): keep exactly one, or say which one plays with"
        " a top-level line BOT = B after the classes",
    ),
    "a line of classes and a play function": Case(
        "mixed.py",
        _classes("Base(Bot)", "Hard(Base)") + "def play(view):\n    return view.legal[0]\n",
        None,
        "several bots found in mixed.py (Base, Hard, play()): keep exactly one, or say which"
        " one plays with a top-level line BOT = Hard after the classes",
    ),
    "BOT as a string": Case(
        "quoted.py",
        _classes("Base(Bot)", "Hard(Base)") + 'BOT = "Hard"\n',
        None,
        "BOT in quoted.py is a str: it must be one of the file's bot classes itself, as in"
        " BOT = Hard",
    ),
    "BOT as a function": Case(
        "function.py",
        _classes("A(Bot)", "B(Bot)") + "def choose():\n    return B\n\nBOT = choose\n",
        None,
        "BOT in function.py is a function: it must be one of the file's bot classes itself,"
        " as in BOT = B",
    ),
    "BOT as a class that is no bot": Case(
        "helper.py",
        _classes("A(Bot)", "B(Bot)") + "class Helper:\n    pass\n\nBOT = Helper\n",
        None,
        "BOT in helper.py is Helper, not a subclass of cucumbers.Bot defined in helper.py: it"
        " must be one of the file's bot classes itself, as in BOT = B",
    ),
}
