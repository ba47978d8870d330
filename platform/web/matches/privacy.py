"""What of a match each viewer sees. A bot's own words are its owner's: its output tails, and
the details of its faults (exception text, file, line), go to the bot's owner and staff
only. Everyone else sees what kind of fault it was and where it happened. The same rule on
the match page, in the API and in the replays served from either.

A rotation of a deal set (duplicate deals, one match per seat rotation) shows no replay,
no output and no fault detail to anyone until every rotation of its deals is played
(:attr:`~web.matches.models.Match.deal_set_pending`): the cards of a rotation still to
come must not be readable by an author who could upload a version that knows them."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from .models import MatchGame, Participant
from .replays import read_outputs, read_replay

#: What others read in place of a fault's detail.
WITHHELD = "details are shown to the bot's owner"
#: Why a rotation's replays are not shown yet.
HELD_MESSAGE = (
    "This match plays one seat rotation of a set of duplicate deals: its replays and the"
    " bots' output are held until every rotation of those deals is played."
)


@dataclass(frozen=True, slots=True)
class Sight:
    """Which participants' own words a viewer may read (``everything`` for staff)."""

    everything: bool
    own: frozenset[int]

    def sees(self, participant: int) -> bool:
        return self.everything or participant in self.own


#: What everyone may read of a rotation whose deal set is still being played.
NOBODY = Sight(False, frozenset())


def sight(user: AbstractBaseUser | AnonymousUser, participants: Sequence[Participant]) -> Sight:
    """What ``user`` may read of the match of ``participants``."""
    if user.is_authenticated and getattr(user, "is_staff", False):
        return Sight(True, frozenset())
    if not user.is_authenticated:
        return Sight(False, frozenset())
    own = frozenset(
        p.index for p in participants if p.bot is not None and p.bot.owner_id == user.pk
    )
    return Sight(False, own)


def faults_seen(game: MatchGame, seen: Sight) -> list[dict[str, Any]]:
    """The game's faults (participant indexes), details withheld where not seen."""
    return [
        fault if seen.sees(fault["participant"]) else {**fault, "detail": WITHHELD}
        for fault in game.faults
    ]


def outputs_seen(game: MatchGame, seen: Sight) -> dict[int, str]:
    """The output tails of the participants the viewer may read, by participant index."""
    if not seen.everything and not seen.own:
        return {}
    return {index: text for index, text in read_outputs(game).items() if seen.sees(index)}


def replay_seen(game: MatchGame, seen: Sight) -> dict[str, Any]:
    """The game's replay with the details of faults the viewer may not read withheld (the
    replay's faults are the game's, in the same order)."""
    replay = read_replay(game)
    if seen.everything or not game.faults:
        return replay
    shown = copy.deepcopy(replay)
    for fault, recorded in zip(shown.get("faults", []), game.faults, strict=False):
        if not seen.sees(recorded["participant"]):
            fault["detail"] = WITHHELD
    return shown
