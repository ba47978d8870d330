"""Play many games locally, optionally over several worker processes: the engine of
``cucumbers play`` (and of the arena's ``match`` command, which only adds a runner).

Games are numbered from 1; game ``k`` always has the same deal seed and seating whatever the
number of workers (:func:`~cucumbers.match.game_plan`, plain or duplicate), so results are
identical for bots that carry nothing from one game to the next. With one worker, all games
are one series (one bot object per bot); with N workers, each worker plays a contiguous
block of games as its own series.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field, replace
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any

from .games import GameRules
from .match import GameOutcome, play_match
from .replay import save_replay
from .runners import make_runner
from .runners.base import BotSpec, Limits, RunnerName
from .stats import BotSummary, summarize


@dataclass(frozen=True, slots=True)
class PlayConfig:
    """What to play.

    Attributes:
        rules: the game.
        bots: the bots, one per seat (seats are reshuffled every game).
        games: how many games.
        seed: the match seed; game ``k``'s deal and seating derive from it.
        sandbox: the runner's name (``none``, ``process``; the arena adds ``docker``).
        limits: time and resource limits.
        workers: processes to spread the games over.
        replays: a folder to write one replay per game into (and the bots' output), or None.
        duplicate: play each deal once per seat rotation (:func:`~cucumbers.match.game_plan`);
            ``games`` must then be a whole number of rotations (``len(bots)`` games each).
    """

    rules: GameRules
    bots: tuple[BotSpec, ...]
    games: int
    seed: int
    sandbox: str = RunnerName.PROCESS
    limits: Limits = field(default_factory=Limits)
    workers: int = 1
    replays: Path | None = None
    duplicate: bool = False


@dataclass(frozen=True, slots=True)
class PlayReport:
    """The result of :func:`run_play`: every game's outcome (without replays) and totals."""

    config: PlayConfig
    seconds: float
    outcomes: tuple[GameOutcome, ...]
    summaries: tuple[BotSummary, ...]

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document: ``game, games, seed, seconds, bots`` and a few more keys."""
        return {
            "game": str(self.config.rules.name),
            "games": len(self.outcomes),
            "seed": self.config.seed,
            "seconds": round(self.seconds, 3),
            "sandbox": self.config.sandbox,
            "workers": self.config.workers,
            "duplicate": self.config.duplicate,
            "bots": [summary.to_json() for summary in self.summaries],
        }


def unique_names(specs: Sequence[BotSpec]) -> tuple[BotSpec, ...]:
    """The specs with repeated display names numbered (``builtin:random#2``)."""
    seen: dict[str, int] = {}
    named = []
    for spec in specs:
        seen[spec.name] = seen.get(spec.name, 0) + 1
        count = seen[spec.name]
        named.append(spec if count == 1 else replace(spec, name=f"{spec.name}#{count}"))
    return tuple(named)


def replay_path(folder: Path, game_number: int) -> Path:
    return folder / f"game-{game_number:05d}.json"


def _write_files(config: PlayConfig, outcome: GameOutcome) -> None:
    assert config.replays is not None and outcome.replay is not None
    save_replay(outcome.replay, replay_path(config.replays, outcome.game_number))
    sections = [
        f"== seat {seat}: {config.bots[bot].name} ==\n{text}"
        for seat, (bot, text) in enumerate(zip(outcome.bots, outcome.outputs, strict=True))
        if text
    ]
    if sections:
        path = replay_path(config.replays, outcome.game_number).with_suffix(".output.txt")
        path.write_text("\n".join(sections), encoding="utf-8")


def _play_block(
    config: PlayConfig, numbers: Sequence[int], on_game: Callable[[], None]
) -> list[GameOutcome]:
    outcomes = []
    keep = config.replays is not None
    runner = make_runner(config.sandbox, config.limits)
    for outcome in play_match(
        config.rules,
        config.bots,
        runner,
        seed=config.seed,
        game_numbers=numbers,
        keep_replays=keep,
        duplicate=config.duplicate,
    ):
        if keep:
            _write_files(config, outcome)
            outcome = replace(outcome, replay=None)
        outcomes.append(outcome)
        on_game()
    return outcomes


_worker_counter: Synchronized[int] | None = None


def _init_worker(counter: Synchronized[int]) -> None:
    global _worker_counter
    _worker_counter = counter


def _count_game() -> None:
    assert _worker_counter is not None
    with _worker_counter.get_lock():
        _worker_counter.value += 1


def _worker_block(config: PlayConfig, numbers: list[int]) -> list[GameOutcome]:
    return _play_block(config, numbers, _count_game)


def blocks(games: int, workers: int) -> list[list[int]]:
    """Game numbers 1..games split into ``workers`` contiguous, nearly equal blocks."""
    size, extra = divmod(games, workers)
    result, start = [], 1
    for index in range(workers):
        length = size + (1 if index < extra else 0)
        if length:
            result.append(list(range(start, start + length)))
        start += length
    return result


def run_play(config: PlayConfig, progress: Callable[[int], None] | None = None) -> PlayReport:
    """Play ``config.games`` games; ``progress(done)`` is called as games finish."""
    if config.games < 1:
        raise ValueError("games must be at least 1")
    if config.workers < 1:
        raise ValueError("workers must be at least 1")
    config.rules.check_players(len(config.bots))
    if config.duplicate and config.games % len(config.bots):
        raise ValueError(
            f"a duplicate match plays whole seat rotations: a multiple of {len(config.bots)} games"
        )
    config = replace(config, bots=unique_names(config.bots))
    if config.replays is not None:
        config.replays.mkdir(parents=True, exist_ok=True)
    report = progress or (lambda done: None)
    started = time.perf_counter()
    if config.workers == 1:
        done = 0

        def one_more() -> None:
            nonlocal done
            done += 1
            report(done)

        outcomes = _play_block(config, range(1, config.games + 1), one_more)
    else:
        outcomes = _play_parallel(config, report)
    outcomes.sort(key=lambda outcome: outcome.game_number)
    seconds = time.perf_counter() - started
    names = [spec.name for spec in config.bots]
    return PlayReport(config, seconds, tuple(outcomes), tuple(summarize(names, outcomes)))


def _play_parallel(config: PlayConfig, report: Callable[[int], None]) -> list[GameOutcome]:
    # fork: workers inherit the runner registry (the arena registers ``docker`` at import).
    context = multiprocessing.get_context("fork")
    counter: Synchronized[int] = context.Value("i", 0)
    outcomes: list[GameOutcome] = []
    with ProcessPoolExecutor(
        max_workers=config.workers,
        mp_context=context,
        initializer=_init_worker,
        initargs=(counter,),
    ) as pool:
        pending: set[Future[list[GameOutcome]]] = {
            pool.submit(_worker_block, config, numbers)
            for numbers in blocks(config.games, config.workers)
        }
        last = -1
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in finished:
                outcomes.extend(future.result())
            if counter.value != last:
                last = counter.value
                report(last)
    return outcomes
