"""Record a match's report, in ONE transaction: its games and replays, the participants'
placements and faults, then the move to ``finished``
(:func:`web.pipeline.transitions.finish`, where its kind decides what follows: ratings for
a rated match, the verdict of a validation).

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

from django.db import transaction

from arena.contract import MatchReport
from cucumbers.match import GameOutcome
from web.matches.models import Match, MatchGame, MatchStatus, Participant
from web.matches.privacy import fault_rows
from web.matches.replays import StoredFiles

from . import retirement
from .transitions import finish


@dataclass(frozen=True, slots=True)
class Standing:
    """How one entrant did over the series."""

    placement: int
    mean_place: float
    wins: int
    faults: int


def standings(outcomes: Sequence[GameOutcome], entrants: int) -> list[Standing]:
    """Each entrant's standing: mean place over the games (1 = best), ranked with ties
    sharing a placement (1, 1, 3...)."""
    if not outcomes:
        raise ValueError("a match has at least one game")
    places = [0.0] * entrants
    wins = [0] * entrants
    faults = [0] * entrants
    for outcome in outcomes:
        for bot in range(entrants):
            place = outcome.place_of_bot(bot)
            places[bot] += place
            wins[bot] += place == 1
        for fault in outcome.faults:
            faults[outcome.bots[fault.seat]] += 1
    means = [total / len(outcomes) for total in places]
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
    its signer."""
    outcomes = report.outcomes()
    with StoredFiles() as files, transaction.atomic():
        match = Match.objects.select_for_update().get(pk=report.match)
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
        for entrant, standing in zip(
            participants, standings(outcomes, len(participants)), strict=True
        ):
            entrant.placement = standing.placement
            entrant.mean_place = standing.mean_place
            entrant.wins = standing.wins
            entrant.faults = standing.faults
        finish(match, participants, outcomes, sandbox=report.sandbox, worker=report.worker)
        Participant.objects.bulk_update(
            participants,
            ["placement", "mean_place", "wins", "faults", "rating_before", "rating_after"],
        )
        retirement.review(match, participants)  # a version past its fault limit stops playing
    return Recorded(
        True, match.status, storage_seconds=storage, transaction_seconds=perf_counter() - started
    )
