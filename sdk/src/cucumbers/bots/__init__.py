"""Built-in reference bots, used as ``builtin:NAME`` on the command line.

==========  =============================================================================
name        how it plays
==========  =============================================================================
random      a uniformly random legal card
lowest      always its lowest legal card
highest     always its highest legal card
heuristic   hand-crafted rules: keep high cards as cover, lead below the top early, match
            with the smallest card that does, and count cards (:mod:`.heuristic`)
search      determinized Monte Carlo: deals the unseen cards consistently with the plays,
            plays each legal card out to the end of the round with the heuristic's rules,
            and picks the card that costs it least given the scores (:mod:`.search`)
==========  =============================================================================

See ``docs/bots.md`` for how strong each one is.
"""

from __future__ import annotations

from ..bot import Bot
from .heuristic import HeuristicBot
from .search import SearchBot
from .simple import HighestBot, LowestBot, RandomBot

#: Built-in bots by name.
BUILTINS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "lowest": LowestBot,
    "highest": HighestBot,
    "heuristic": HeuristicBot,
    "search": SearchBot,
}


def make_builtin(name: str) -> Bot:
    """A new built-in bot. Raises ``KeyError`` with a readable message for unknown names."""
    try:
        cls = BUILTINS[name]
    except KeyError:
        known = ", ".join(f"builtin:{n}" for n in BUILTINS)
        raise KeyError(f"no built-in bot {name!r}; choose one of: {known}") from None
    return cls()
