"""Play a :class:`~arena.contract.MatchJob` and say what happened in a
:class:`~arena.contract.MatchReport`: the one way every kind of match is played (validation,
ladder, challenge), by a worker or in the foreground.

A bot's fault is a result inside the report. What is not a bot's fault makes the whole
report an ``infrastructure_error``: a fault the runner flagged ``infrastructure`` (no engine,
no image, a container refused, a host that would not start, an engine lost mid-match), or
the runner raising. Such a report carries no game, so nothing of it can be charged to a bot.

The sources are staged in a directory private to this process (0700, files 0600) whose name
carries the runner's identity, so that ``python -m arena reap`` removes it should the worker
be killed mid-match (:func:`arena.sandbox.container.staging_owner`). Each seat's file keeps
the author's file name, so a crash detail names the author's file.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from cucumbers.games import rules_for
from cucumbers.loader import BUILTIN_PREFIX
from cucumbers.match import GameOutcome, play_match
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec
from cucumbers.runners.hostproc import remove_tree

from .contract import GameReport, MatchJob, MatchReport, ReportStatus, Timings
from .sandbox.container import staging_prefix
from .sandbox.labels import RunnerIdentity


@dataclass(frozen=True, slots=True)
class Staged:
    """The seats as staged: ``specs`` for the runner, and per seat the SHA-256 of the file
    written (None for a built-in), which the report carries."""

    specs: list[BotSpec]
    sources: tuple[str | None, ...]


@contextmanager
def staged_sources(job: MatchJob, staging_dir: str | None = None) -> Iterator[Staged]:
    """Each seat as a :class:`BotSpec`: built-ins by name, sources as private files named
    as their authors named them; the files are removed at the end."""
    folder = tempfile.mkdtemp(
        prefix=staging_prefix(RunnerIdentity.current()) + "job-", dir=staging_dir
    )
    try:
        specs = []
        sources: list[str | None] = []
        for index, seat in enumerate(job.seats):
            if seat.source is None:
                specs.append(BotSpec(f"{BUILTIN_PREFIX}{seat.builtin}", seat.name))
                sources.append(None)
                continue
            seat_dir = Path(folder) / f"seat{index}"
            seat_dir.mkdir(mode=0o700)
            path = seat_dir / seat.filename
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(seat.source)
            # The digest of what is on disk, as the bot will load it, not of the job's text.
            sources.append(hashlib.sha256(path.read_bytes()).hexdigest())
            specs.append(BotSpec(str(path), seat.name))
        yield Staged(specs, tuple(sources))
    finally:
        remove_tree(folder)


def infrastructure_fault(outcome: GameOutcome) -> str | None:
    """The detail of the game's first fault that was the infrastructure's, if any."""
    for fault in outcome.faults:
        if fault.infrastructure:
            return fault.detail
    return None


def stops_series(job: MatchJob, outcome: GameOutcome) -> bool:
    """Whether a bot of ``job.stop_after_fault_of`` faulted in this game."""
    watched = set(job.stop_after_fault_of)
    return any(outcome.bots[fault.seat] in watched for fault in outcome.faults)


def play_job(
    job: MatchJob, runner_name: str, worker: str, staging_dir: str | None = None
) -> MatchReport:
    """Play ``job`` in the runner ``runner_name`` (``docker`` on a worker; it must be
    registered). Never raises for a bot or the sandbox: every end is a report."""
    rules = rules_for(job.game)
    outcomes: list[GameOutcome] = []
    timings: dict[str, float] = {}
    staged_digests: tuple[str | None, ...] = ()

    def report(status: ReportStatus, reason: str = "") -> MatchReport:
        return MatchReport(
            match=job.match,
            attempt=job.attempt,
            worker=worker,
            sandbox=runner_name,
            status=status,
            reason=reason[:2000],
            games=tuple(GameReport.of(o) for o in outcomes)
            if status is ReportStatus.PLAYED
            else (),
            sources=staged_digests if status is ReportStatus.PLAYED else (),
            timings=Timings(**timings),
        )

    try:
        with staged_sources(job, staging_dir) as staged:
            specs, staged_digests = staged.specs, staged.sources
            series = play_match(
                rules,
                specs,
                make_runner(runner_name, job.limits.limits()),
                seed=job.seed,
                game_numbers=range(1, job.games + 1),
                player_info=lambda bot: job.seats[bot].player_info(),
                duplicate=job.duplicate,
                rotation=job.rotation,
                timings=timings,
            )
            with closing(series):  # stopping early closes the runner at once
                for outcome in series:
                    detail = infrastructure_fault(outcome)
                    if detail is not None:
                        return report(ReportStatus.INFRASTRUCTURE_ERROR, detail)
                    outcomes.append(outcome)
                    if stops_series(job, outcome):
                        break
    except Exception as error:  # a runner never raises for a bot: this is the sandbox's
        return report(ReportStatus.INFRASTRUCTURE_ERROR, f"the sandbox failed: {error!r}")
    return report(ReportStatus.PLAYED)
