"""Built-in reference bots, used as ``builtin:NAME`` on the command line.

==========  =============================================================================
name        how it plays
==========  =============================================================================
random      a uniformly random legal card
lowest      always its lowest legal card
highest     always its highest legal card
==========  =============================================================================
"""

from __future__ import annotations

from ..bot import Bot
from .simple import HighestBot, LowestBot, RandomBot

#: Built-in bots by name.
BUILTINS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "lowest": LowestBot,
    "highest": HighestBot,
}


def make_builtin(name: str) -> Bot:
    """A new built-in bot. Raises ``KeyError`` with a readable message for unknown names."""
    try:
        cls = BUILTINS[name]
    except KeyError:
        known = ", ".join(f"builtin:{n}" for n in BUILTINS)
        raise KeyError(f"no built-in bot {name!r}; choose one of: {known}") from None
    return cls()
