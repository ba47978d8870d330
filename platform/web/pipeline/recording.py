"""Record a match's report, in ONE transaction: its games and replays, the participants'
placements and faults, then the move to ``finished``
(:func:`web.pipeline.transitions.finish`, where its kind decides what follows: ratings for
a rated match, the verdict of a validation).

A rotation of a deal set is worth something only with the rest of its set: while other
rotations are still to be played, its games are stored and it is ``held``
(:func:`~web.pipeline.transitions.hold`: no standing, no rating, nothing shown); the set's
last report writes every rotation's standings and ratings, in rotation order, and finishes
them all at once (:func:`~web.pipeline.transitions.finish_rotation`). The set's rows are
locked in id order by every recording of it, so two of its reports never both think they
are the last.

Exactly once: the transaction locks the match row and records only while the match is
still waiting for the attempt named by the report (``running``, or still ``queued`` when the
report overtook its ``started`` message). Any other report (a worker that was presumed dead
and whose match was sent again, a duplicate or a late message) finds it finished or under
another attempt and is discarded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from django.db import transaction

from arena.contract import MatchReport
from cucumbers.match import GameOutcome
from web.matches.models import Match, MatchGame, MatchStatus, Participant
from web.matches.privacy import fault_rows
from web.matches.replays import StoredFiles

from . import retirement
from .transitions import finish, finish_rotation, hold, lock_table


@dataclass(frozen=True, slots=True)
class Standing:
    """How one entrant did over the series."""

    placement: int
    mean_place: float
    wins: int
    faults: int


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as its row keeps it (``MatchGame``): what standings and ratings read of it,
    by participant index. A report's games are read the same way (:meth:`of_outcome`), so
    a held rotation, rated when its set is whole, counts exactly as it would have."""

    game_number: int
    placement: tuple[int, ...]  # participant indexes, best first
    faulted: tuple[int, ...]  # the participant of each fault

    def place_of_bot(self, bot: int) -> int:
        """1-based place of the participant with index ``bot``."""
        return self.placement.index(bot) + 1

    @classmethod
    def of_outcome(cls, outcome: GameOutcome) -> StoredGame:
        return cls(
            outcome.game_number,
            tuple(outcome.bots[seat] for seat in outcome.placement),
            tuple(outcome.bots[fault.seat] for fault in outcome.faults),
        )

    @classmethod
    def of_row(cls, number: int, placement: list[int], faults: list[dict[str, Any]]) -> StoredGame:
        return cls(number, tuple(placement), tuple(int(f["participant"]) for f in faults))


def standings(played: Sequence[StoredGame | GameOutcome], entrants: int) -> list[Standing]:
    """Each entrant's standing: mean place over the games (1 = best), ranked with ties
    sharing a placement (1, 1, 3...)."""
    games = [g if isinstance(g, StoredGame) else StoredGame.of_outcome(g) for g in played]
    if not games:
        raise ValueError("a match has at least one game")
    places = [0.0] * entrants
    wins = [0] * entrants
    faults = [0] * entrants
    for game in games:
        for bot in range(entrants):
            place = game.place_of_bot(bot)
            places[bot] += place
            wins[bot] += place == 1
        for participant in game.faulted:
            faults[participant] += 1
    means = [total / len(games) for total in places]
    return [
        Standing(1 + sum(other < mean for other in means), mean, wins[bot], faults[bot])
        for bot, mean in enumerate(means)
    ]


def store_games(match: Match, outcomes: Sequence[GameOutcome], files: StoredFiles) -> None:
    """One row per game, with its replay stored through ``files`` (inside the caller's
    transaction)."""
    for outcome in outcomes:
        row = MatchGame(
            match=match,
            number=outcome.game_number,
            seed=outcome.seed,
            placement=[outcome.bots[seat] for seat in outcome.placement],
            faults=fault_rows(outcome),
        )
        if outcome.replay is not None:
            row.replay.name, row.replay_size = files.save_replay(
                match.pk, outcome.game_number, outcome.replay
            )
        printed = {outcome.bots[seat]: text for seat, text in enumerate(outcome.outputs) if text}
        moves = {
            outcome.bots[seat]: (seat, lines)
            for seat, lines in enumerate(outcome.move_output)
            if lines
        }
        if printed or moves:
            row.outputs.name = files.save_outputs(match.pk, outcome.game_number, printed, moves)
        row.save()


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the transaction did: ``recorded`` is False when the report was not the one
    the match waited for (``status`` is then the match's own)."""

    recorded: bool
    status: str
    refused: str = ""  # why, when the report came from another arena host than the attempt's
    storage_seconds: float = 0.0
    transaction_seconds: float = 0.0


def record_report(report: MatchReport, host: str | None = None) -> Recorded:
    """Record a played report (checked against its job beforehand), unless the match is no
    longer held by its attempt, or the attempt by ``host`` (the arena host that signed the
    report; None in-process): a report that overtook its ``started`` binds the attempt to
    its signer. A deal set's rotation is held until its set's last report."""
    outcomes = report.outcomes()
    with StoredFiles() as files, transaction.atomic():
        match, rotations = _lock(report.match)
        waiting = match.status in (MatchStatus.QUEUED, MatchStatus.RUNNING)
        if not waiting or match.attempt != report.attempt:
            return Recorded(False, match.status)
        if host and match.arena_host not in ("", host):
            refused = f"its attempt was started by arena host {match.arena_host}"
            return Recorded(False, match.status, refused)
        if host:
            match.arena_host = host
        participants = list(match.participants.order_by("index"))
        started = perf_counter()
        store_games(match, outcomes, files)
        storage = perf_counter() - started
        started = perf_counter()
        games = [StoredGame.of_outcome(outcome) for outcome in outcomes]
        if match.deal_set is None:
            _stand(participants, games)
            finish(match, participants, outcomes, sandbox=report.sandbox, worker=report.worker)
            _save_standings(participants)
            retirement.review(match, participants)  # a version past its fault limit stops
        elif any(r.status in (MatchStatus.QUEUED, MatchStatus.RUNNING) for r in rotations):
            hold(match, sandbox=report.sandbox, worker=report.worker)
        else:
            _finish_set(match, participants, games, rotations, report)
    return Recorded(
        True, match.status, storage_seconds=storage, transaction_seconds=perf_counter() - started
    )


def _lock(match_id: int) -> tuple[Match, list[Match]]:
    """The match's row locked and, for a rotation of a deal set, its set's other rows too
    (:func:`~web.pipeline.transitions.lock_table`: every recording of a set takes them in
    the same order)."""
    rows = lock_table(match_id)
    match = next(row for row in rows if row.pk == match_id)
    return match, [row for row in rows if row.pk != match_id]


def _finish_set(
    match: Match,
    participants: list[Participant],
    games: list[StoredGame],
    rotations: list[Match],
    report: MatchReport,
) -> None:
    """The set's last report: every held rotation and this one, in rotation order, get
    their standings and what their kind makes of them (ratings), and are finished."""
    played = [r for r in rotations if r.status == MatchStatus.HELD] + [match]
    for rotation in sorted(played, key=lambda r: (r.rotation or 0, r.pk)):
        if rotation.pk == match.pk:
            _stand(participants, games)
            finish_rotation(
                match, participants, games, sandbox=report.sandbox, worker=report.worker
            )
            entrants = participants
        else:
            entrants = list(rotation.participants.order_by("index"))
            rows = rotation.games.order_by("number").values_list("number", "placement", "faults")
            stored = [StoredGame.of_row(*row) for row in rows]
            _stand(entrants, stored)
            finish_rotation(rotation, entrants, stored)
        _save_standings(entrants)
        retirement.review(rotation, entrants)


def _stand(participants: Sequence[Participant], games: Sequence[StoredGame]) -> None:
    for entrant, standing in zip(participants, standings(games, len(participants)), strict=True):
        entrant.placement = standing.placement
        entrant.mean_place = standing.mean_place
        entrant.wins = standing.wins
        entrant.faults = standing.faults


def _save_standings(participants: Sequence[Participant]) -> None:
    Participant.objects.bulk_update(
        participants,
        ["placement", "mean_place", "wins", "faults", "rating_before", "rating_after"],
    )
