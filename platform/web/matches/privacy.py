"""What of a match each viewer sees. A bot's own words are its owner's: its output tails, the
lines it printed during each move, and the details and tracebacks of its faults (exception
text, file, line, its code), go to the bot's owner and staff only. Everyone else sees what
kind of fault it was and where it happened (with a link to that moment in the viewer). The
same rule on the match page, in the API and in the replays served from either: the replay
an owner reads has their bots' per-move lines and tracebacks merged in
(``cucumbers.move_facts.with_private``), the stored one never holds them.

A rotation of a deal set (duplicate deals, one match per seat rotation) shows no replay,
no output and no fault detail to anyone until every rotation of its deals is played
(:attr:`~web.matches.models.Match.deal_set_pending`): the cards of a rotation still to
come must not be readable by an author who could upload a version that knows them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from cucumbers.match import GameOutcome
from cucumbers.move_facts import moment, with_private
from cucumbers.move_output import MoveOutput
from cucumbers.replay import dumps_replay, gzip_bytes

from .models import MatchGame, Participant
from .replays import read_move_output, read_outputs, read_replay, read_replay_bytes

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


#: The keys of a stored fault only its bot's owner and staff read.
PRIVATE_FAULT_KEYS = frozenset({"detail", "traceback"})


def fault_rows(outcome: GameOutcome) -> list[dict[str, Any]]:
    """A game's faults as stored (``MatchGame.faults``): the replay's fault with the
    participant index, the viewer's key of its moment (``moment``, public) and the bot's
    traceback (``traceback``, private) when its code raised."""
    rows = []
    for fault in outcome.faults:
        row = {**fault.to_json(), "participant": outcome.bots[fault.seat]}
        row["moment"] = moment(
            outcome.replay, outcome.game_number, fault.seat, fault.round, fault.trick
        )
        if fault.traceback is not None:
            row["traceback"] = fault.traceback.to_json()
        rows.append(row)
    return rows


def fault_moment(number: int, fault: dict[str, Any]) -> str:
    """The viewer's key of a fault's move (``g2-r3-t4-p2``, the URL fragment the match
    page's replay viewer jumps to); its trick's for a fault stored without it."""
    return str(fault.get("moment") or f"g{number}-r{fault['round']}-t{fault['trick']}")


def faults_seen(game: MatchGame, seen: Sight) -> list[dict[str, Any]]:
    """The game's faults (participant indexes), details withheld and tracebacks left out
    where not seen."""
    return [
        fault
        if seen.sees(fault["participant"])
        else {k: v for k, v in fault.items() if k not in PRIVATE_FAULT_KEYS} | {"detail": WITHHELD}
        for fault in game.faults
    ]


def outputs_seen(game: MatchGame, seen: Sight) -> dict[int, str]:
    """The output tails of the participants the viewer may read, by participant index."""
    if not seen.everything and not seen.own:
        return {}
    return {index: text for index, text in read_outputs(game).items() if seen.sees(index)}


@dataclass(frozen=True, slots=True)
class _Private:
    """What a viewer's copy of a stored replay changes: fault details withheld, and by
    seat the tracebacks and per-move lines merged in."""

    withheld: bool
    tracebacks: dict[int, Any]
    moves: dict[int, tuple[MoveOutput, ...]]

    @property
    def changes(self) -> bool:
        return self.withheld or bool(self.tracebacks) or bool(self.moves)


def _private(game: MatchGame, seen: Sight) -> _Private:
    withheld = any(not seen.sees(fault["participant"]) for fault in game.faults)
    tracebacks = {
        fault["seat"]: fault["traceback"]
        for fault in game.faults
        if "traceback" in fault and seen.sees(fault["participant"])
    }
    moves: dict[int, tuple[MoveOutput, ...]] = {}
    if game.outputs and (seen.everything or seen.own):
        moves = {
            seat: lines
            for participant, (seat, lines) in read_move_output(game).items()
            if seen.sees(participant)
        }
    return _Private(withheld, tracebacks, moves)


def replay_seen(game: MatchGame, seen: Sight) -> dict[str, Any]:
    """The game's replay as the viewer may read it: the details of faults the viewer may
    not read withheld (the replay's faults are the game's, in the same order), and the
    per-move lines and tracebacks of the bots it may read merged in."""
    return _seen(game, seen, _private(game, seen))


def _seen(game: MatchGame, seen: Sight, private: _Private) -> dict[str, Any]:
    replay = read_replay(game)
    if not private.changes:
        return replay
    shown = with_private(replay, private.moves, private.tracebacks)
    for fault, recorded in zip(shown.get("faults", []), game.faults, strict=False):
        if not seen.sees(recorded["participant"]):
            fault["detail"] = WITHHELD
    return shown


def replay_bytes_seen(game: MatchGame, seen: Sight) -> bytes:
    """:func:`replay_seen` as a gzip-compressed file: the stored bytes when the viewer's
    copy is the stored replay itself."""
    private = _private(game, seen)
    if not private.changes:
        return read_replay_bytes(game)
    return gzip_bytes(dumps_replay(_seen(game, seen, private)))
