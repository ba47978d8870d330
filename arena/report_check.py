"""A report checked against the job it answers, before the platform records anything of it:
the plan of the series (games, seeds, seating, the stop at a watched bot's fault), the
sources staged, and every game's replay, re-checked by the SDK's independent replay
validator (its rules, and every round's hands against the deal of its seed: a host's
replay must have its deal verified) and compared with what the report says of the game.

A signature says who sent a report; this says whether what it claims could have come from
playing the job. It cannot tell which legal moves the bots chose: a host that lies about
moves is cut off by revoking its key (docs/security.md).

Pure: no Django, no I/O; :func:`problems` is called by the platform with the job rebuilt
from its database.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cucumbers.match import game_plan
from cucumbers.move_facts import has_private
from cucumbers.validator import DealCheck, verify_replay

from .contract import GameReport, MatchJob, MatchReport, ReportStatus

#: At most this many of a replay's rule problems are quoted.
QUOTED_REPLAY_PROBLEMS = 3


def expected_sources(job: MatchJob) -> tuple[str | None, ...]:
    """Per seat, the SHA-256 of the source the job carries (None for a built-in)."""
    return tuple(seat.sha256 if seat.source is not None else None for seat in job.seats)


def problems(job: MatchJob, report: MatchReport) -> list[str]:
    """Every way ``report`` departs from what playing ``job`` can give; empty: none."""
    found: list[str] = []
    if (report.match, report.attempt) != (job.match, job.attempt):
        found.append(
            f"the report is for match {report.match} attempt {report.attempt},"
            f" the job was match {job.match} attempt {job.attempt}"
        )
        return found
    if report.status is ReportStatus.INFRASTRUCTURE_ERROR:
        if report.games:
            found.append("an infrastructure error carries no game")
        return found
    if report.sources != expected_sources(job):
        found.append(
            f"the sources played {_short(report.sources)} are not the job's"
            f" {_short(expected_sources(job))}"
        )
    found += _series(job, report.games)
    for game in report.games:
        found += [f"game {game.number}: {problem}" for problem in game_problems(job, game)]
    return found


def _series(job: MatchJob, games: tuple[GameReport, ...]) -> list[str]:
    found = []
    numbers = [game.number for game in games]
    if numbers != list(range(1, len(games) + 1)):
        found.append(f"games numbered {numbers[:10]}, not 1..{len(games)} in order")
    if len(games) > job.games:
        found.append(f"{len(games)} games for a job of {job.games}")
    watched = set(job.stop_after_fault_of)
    stops = [
        any(game.bots[f.seat] in watched for f in game.faults if f.seat < len(game.bots))
        for game in games
    ]
    if any(stops[:-1]):
        first = stops.index(True) + 1
        found.append(f"the series goes on after game {first}, where a watched bot faulted")
    if len(games) < job.games and not (stops and stops[-1]):
        found.append(f"{len(games)} of {job.games} games, and no watched bot's fault ended it")
    return found


def game_problems(job: MatchJob, game: GameReport) -> list[str]:
    """How one game departs from the job's plan, or from its own replay."""
    seats = len(job.seats)
    if not 1 <= game.number <= job.games:
        return [f"no such game in a job of {job.games}"]
    seed, bots = game_plan(job.seed, game.number, seats, job.duplicate, job.rotation)
    found = []
    if game.seed != seed:
        found.append(f"seed {game.seed}, the plan's is {seed}")
    if list(game.bots) != bots:
        found.append(f"seating {list(game.bots)}, the plan's is {bots}")
        return found  # nothing else of the game can be matched to the job's seats
    if game.replay is None:
        return [*found, "no replay"]
    checked = verify_replay(game.replay)
    if checked.problems:
        quoted = "; ".join(checked.problems[:QUOTED_REPLAY_PROBLEMS])
        more = len(checked.problems) - QUOTED_REPLAY_PROBLEMS
        return [*found, f"the replay breaks the rules: {quoted}{f' (+{more})' if more > 0 else ''}"]
    if not checked.deal_verified:
        # A replay from another producer may lack its seed; the engine's always has it, and
        # without it the host could have played any deal it liked.
        why = "it has no seed" if checked.deal is DealCheck.NO_SEED else checked.deal.value
        return [*found, f"the replay's deal is not verified ({why}): a host's must be"]
    return found + _disagreements(job, game, game.replay)


def _disagreements(job: MatchJob, game: GameReport, replay: Mapping[str, Any]) -> list[str]:
    """Where a valid replay and the report's account of its game differ."""
    found = []
    if has_private(replay):
        found.append("the replay holds an owner's words (output, traceback): they travel apart")
    if replay["game"] != job.game:
        found.append(f"the replay is of {replay['game']}, the job of {job.game}")
    if replay["seed"] != game.seed:
        found.append(f"the replay's seed is {replay['seed']}, the report's {game.seed}")
    players = replay["players"]
    if len(players) != len(game.bots):
        return [*found, f"the replay has {len(players)} players for {len(game.bots)} seats"]
    for seat, (player, bot) in enumerate(zip(players, game.bots, strict=True)):
        entrant = job.seats[bot]
        expected = {"name": entrant.name, **entrant.player_info()}
        got = {key: player.get(key) for key in expected}
        if got != expected or set(player) - {"seat", *expected}:
            found.append(f"seat {seat}: the replay's player {_brief(player)} is not {expected}")
    if list(replay["placement"]) != list(game.placement):
        found.append(f"placement {list(game.placement)}, the replay's is {replay['placement']}")
    final = list(replay["rounds"][-1]["scores"])
    if final != list(game.scores):
        found.append(f"scores {list(game.scores)}, the replay's are {final}")
    if len(replay["rounds"]) != game.rounds or replay["capped"] != game.capped:
        found.append("rounds or the cap differ from the replay's")
    said = [(f.seat, f.round, f.trick, f.kind.value) for f in game.faults]
    recorded = [(f["seat"], f["round"], f["trick"], f["kind"]) for f in replay["faults"]]
    if said != recorded:
        found.append(f"faults {said}, the replay's are {recorded}")
    return found


def _short(digests: tuple[str | None, ...]) -> str:
    return "[" + ", ".join("builtin" if d is None else d[:12] for d in digests) + "]"


def _brief(player: Mapping[str, Any]) -> str:
    return str({key: str(value)[:60] for key, value in list(player.items())[:6]})
