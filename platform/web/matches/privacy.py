"""What of a match each viewer sees. A bot's own words are its owner's: its output tails, the
lines it printed during each move, and the details and tracebacks of its faults (exception
text, file, line, its code), go to the bot's owner and staff only. Everyone else sees what
kind of fault it was and where it happened (with a link to that moment in the viewer). The
same rule on the match page, in the API and in the replays served from either: the replay
an owner reads has their bots' per-move lines and tracebacks merged in
(``cucumbers.move_facts.with_private``), the stored one never holds them.

No deal is knowable before it is played: a match's seed, its games' seeds, its replays,
placements, scores and rating changes are shown only once its results are public
(:attr:`~web.matches.models.Match.results_public`: finished, or failed, which for a deal set
means the whole set). A held rotation of a deal set (played, its set not yet) shows nobody
anything of its games but its own bots' words to their owners and staff (what a bot printed,
its faults and tracebacks): they reveal nothing that the frozen bots of the rotations still
to come could use, and an author waits for nothing to see why a bot crashed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils.text import get_text_list

from cucumbers.match import GameOutcome
from cucumbers.move_facts import moment, with_private
from cucumbers.move_output import MoveOutput
from cucumbers.replay import dumps_replay, gzip_bytes

from .models import Match, MatchGame, MatchStatus, Participant
from .replays import read_move_output, read_outputs, read_replay, read_replay_bytes

#: What others read in place of a fault's detail.
WITHHELD = "details are shown to the bot's owner"
#: Why a rotation's replays are not shown yet (and an API error's text).
HELD_MESSAGE = (
    "This match plays one seat rotation of a set of duplicate deals: its results, replays"
    " and seed are held until every rotation of those deals is played."
)


def held_message(match: Match) -> str:
    """Why ``match``'s results are not shown, and until when; empty when they are."""
    if match.results_public:
        return ""
    if match.status in (MatchStatus.QUEUED, MatchStatus.RUNNING):
        return ""  # nothing to show yet: the page says it waits or plays
    pending = [f"#{pk}" for pk in match.rotations_to_play()]
    until = (
        f"until match{'es' if len(pending) > 1 else ''} {get_text_list(pending, 'and')}"
        f" {'are' if len(pending) > 1 else 'is'} played"
        if pending
        else "until its deal set is complete"
    )
    return (
        f"Played. This match is one seat rotation of a set of duplicate deals, rated as one:"
        f" its results, replays and seed are held {until}, so that no bot still to play"
        f" these deals can learn them."
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


def sight(
    user: AbstractBaseUser | AnonymousUser,
    participants: Sequence[Participant],
    *,
    public: bool = True,
) -> Sight:
    """What ``user`` may read of the match of ``participants``; of a match whose results
    are not ``public`` (a held rotation), staff read no more than anyone: only their own
    bots' words (a bot can write the cards it saw into its exception)."""
    if public and user.is_authenticated and getattr(user, "is_staff", False):
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


def own_faults_seen(game: MatchGame, seen: Sight) -> list[dict[str, Any]]:
    """A held rotation's game: only the faults of the viewer's own bots (in full), nothing
    of anyone else's."""
    return [fault for fault in game.faults if seen.sees(fault["participant"])]


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
