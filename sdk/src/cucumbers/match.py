"""The match loop: bots (through a runner's clients) play games on the engine.

One *game* is :func:`play_game`; a *match* is a series of games between the same bot
objects with seats reshuffled every game (:func:`play_match`). The CLI, the arena workers
and the tests all play through here, so a game plays the same everywhere.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from .engine import GameState
from .faults import BotFault, Fault, FaultKind
from .games import GameRules
from .move_facts import DecisionKey, add_times, with_private
from .move_output import MoveOutput, bounded_game_output
from .runners.base import BotClient, BotSpec, Limits, Runner
from .runners.clock import runner_clock
from .view import GameResult, GameStart, RoundResult, View

#: Seeds are kept below 2**48 so that every JSON reader (JavaScript included) reads them exactly.
SEED_BITS = 48


def derive_seed(*parts: object) -> int:
    """A seed derived one-way from ``parts`` (SHA-256), the same on every machine."""
    text = ":".join(str(part) for part in ("cucumbers", *parts))
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def game_seed(match_seed: int, game_number: int) -> int:
    """The deal seed of game ``game_number`` (from 1) of a match."""
    return derive_seed("game", match_seed, game_number)


def seating(match_seed: int, game_number: int, num_bots: int) -> list[int]:
    """``seats[s]`` = index of the bot sitting at seat ``s`` in that game (a permutation
    drawn from the seeds, so every seat order is as likely for every bot)."""
    seats = list(range(num_bots))
    random.Random(derive_seed("seats", match_seed, game_number)).shuffle(seats)
    return seats


def game_plan(
    match_seed: int,
    game_number: int,
    num_bots: int,
    duplicate: bool = False,
    rotation: int | None = None,
) -> tuple[int, list[int]]:
    """The deal seed and the seating (``seats[s]`` = the bot at seat ``s``) of game
    ``game_number`` (from 1) of a match: the one definition the local runner, the arena and
    the platform share.

    Plain: each game its own deal (:func:`game_seed`) and its own shuffled seating.

    Duplicate deals give every bot every seat's cards of a deal once, so the luck of the
    deal cancels out: deal ``d`` (``game_seed(match_seed, d)``) is played ``num_bots``
    times, its shuffled seating turned by one seat each time (the *rotations*).

    - ``rotation`` given (what the platform plays): this match plays rotation ``rotation``
      of every deal, game ``g`` being deal ``g``; the other rotations are other matches
      with the same seed, each with fresh bot processes. No bot process ever sees a deal
      twice, so none can remember a deal and read its opponents' hands when it comes back.
    - ``rotation`` None (one's own desk only: ``cucumbers play/compare --duplicate``): the
      games go in blocks of ``num_bots``, block ``b`` playing every rotation of deal ``b``
      in one match, so the same bot processes see each deal ``num_bots`` times and a bot
      that remembers deals knows its opponents' hands after the first rotation. The game
      count is a multiple of ``num_bots`` (:func:`duplicate_games`).

    Rotation ``r``'s game ``g`` is the one-match plan's game ``(g - 1) * num_bots + r + 1``.

    >>> [game_plan(7, g, 2, duplicate=True)[0] == game_seed(7, 1) for g in (1, 2)]
    [True, True]
    >>> game_plan(7, 3, 2, True, rotation=1) == game_plan(7, 6, 2, True)
    True
    """
    if not duplicate:
        if rotation is not None:
            raise ValueError("a rotation belongs to duplicate deals")
        return game_seed(match_seed, game_number), seating(match_seed, game_number, num_bots)
    if rotation is None:
        block, turn = divmod(game_number - 1, num_bots)
    elif 0 <= rotation < num_bots:
        block, turn = game_number - 1, rotation
    else:
        raise ValueError(f"rotation {rotation} of {num_bots} seats: from 0 to {num_bots - 1}")
    base = seating(match_seed, block + 1, num_bots)
    return game_seed(match_seed, block + 1), base[turn:] + base[:turn]


def duplicate_games(games: int, num_bots: int) -> int:
    """``games`` rounded up to whole blocks of a duplicate match of ``num_bots`` bots."""
    return -(-games // num_bots) * num_bots


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """What one game produced.

    Attributes:
        game_number: from 1 within its match.
        seed: the deal seed.
        bots: ``bots[s]`` = index (in the match's bot list) of the bot at seat ``s``.
        placement: seats, best first.
        scores: final score of each seat.
        faults: the faults, in order.
        rounds: rounds played.
        capped: stopped by the round cap.
        moves: decisions each seat made (auto plays excluded).
        think_seconds: time each seat's decisions took, as measured by the match loop.
        outputs: what each seat's bot printed during the game (cut to the output limit).
        replay: the replay (``cucumbers-replay/1``, revision 2: with each decision's time),
            if it was kept. It holds nothing private: see :meth:`owner_replay`.
        move_output: per seat, the lines its bot printed during each of its moves that
            printed (:mod:`cucumbers.move_output`), its owner's only.
    """

    game_number: int
    seed: int
    bots: tuple[int, ...]
    placement: tuple[int, ...]
    scores: tuple[int, ...]
    faults: tuple[Fault, ...]
    rounds: int
    capped: bool
    moves: tuple[int, ...]
    think_seconds: tuple[float, ...]
    outputs: tuple[str, ...]
    replay: dict[str, Any] | None
    move_output: tuple[tuple[MoveOutput, ...], ...] = ()

    def place_of_bot(self, bot: int) -> int:
        """1-based place of the bot with index ``bot``."""
        return self.placement.index(self.bots.index(bot)) + 1

    def owner_replay(self, seats: Sequence[int] | None = None) -> dict[str, Any] | None:
        """The replay as the owner of the bots at ``seats`` (default: every seat) reads it:
        with their moves' output and their faults' tracebacks (``replay-format.md``)."""
        if self.replay is None:
            return None
        mine = range(len(self.bots)) if seats is None else seats
        outputs = {s: self.move_output[s] for s in mine if s < len(self.move_output)}
        traces = {f.seat: f.traceback for f in self.faults if f.traceback and f.seat in mine}
        return with_private(self.replay, outputs, traces)


def bank_overrun(bank: list[float], seat: int, overrun: float) -> bool:
    """Take ``overrun`` seconds from ``seat``'s bank; True when the bank cannot cover it."""
    bank[seat] -= overrun
    if bank[seat] < 0:
        bank[seat] = 0.0
        return True
    return False


def play_game(
    rules: GameRules,
    clients: Sequence[BotClient],
    *,
    seed: int,
    limits: Limits,
    players: Sequence[dict[str, Any]] | None = None,
    game_number: int = 1,
    bots: Sequence[int] | None = None,
    keep_replay: bool = True,
) -> GameOutcome:
    """Play one game; ``clients[s]`` plays seat ``s``. Never raises for a bot's fault.

    ``players`` are the replay's player entries (default: ``{"seat", "name"}`` from the
    specs); ``bots`` maps seats to match-level bot indexes for the outcome.
    """
    n = len(clients)
    state = GameState(rules, n, seed)
    names = tuple(client.spec.name for client in clients)
    move_seconds = limits.move_seconds
    bank = [float(limits.bank_seconds)] * n
    moves = [0] * n
    think = [0.0] * n
    times: dict[DecisionKey, float] = {}
    printed: list[list[MoveOutput]] = [[] for _ in range(n)]
    for starting_seat, client in enumerate(clients):
        client.start_game(
            GameStart(
                game=str(rules.name),
                seat=starting_seat,
                num_players=n,
                players=names,
                game_number=game_number,
                bot_seed=derive_seed("bot", seed, starting_seat),
                move_seconds=move_seconds,
                bank_seconds=limits.bank_seconds,
            )
        )

    def policy(seat: int) -> Callable[[View], object]:
        request = clients[seat].request_move
        take_lines = clients[seat].take_move_output

        def decide(view: View) -> object:
            # The runner's clock, as the runner's own deadlines: a stretch in which this
            # process did not run (stopped, frozen, starved) is not the bot's time.
            started = runner_clock()
            left = bank[seat]
            try:
                move = request(view, move_seconds + left)  # raises BotFault
            except BotFault as fault:
                allowed = move_seconds + left
                # A load that timed out, a crash...: the runner's own words. A move that used
                # all its time: the runner knows only the total; say what it was made of.
                if (
                    fault.kind is not FaultKind.TIMEOUT
                    or fault.infrastructure
                    or runner_clock() - started < 0.99 * allowed
                ):
                    raise
                raise BotFault(
                    FaultKind.TIMEOUT,
                    f"no move within {allowed:.3g} s: {move_seconds:g} s a move"
                    f" and the {left:.3g} s left of its {limits.bank_seconds:g} s time bank",
                ) from None
            finally:
                elapsed = runner_clock() - started
                times[seat, view.round_number, view.trick_number] = elapsed
                if lines := take_lines():
                    printed[seat].append(MoveOutput(view.round_number, view.trick_number, lines))
            moves[seat] += 1
            think[seat] += elapsed
            if elapsed > move_seconds and bank_overrun(bank, seat, elapsed - move_seconds):
                raise BotFault(
                    FaultKind.TIMEOUT,
                    f"no move within {move_seconds:g} s a move and its {limits.bank_seconds:g} s"
                    " time bank",
                )
            return move

        return decide

    def on_round(result: RoundResult) -> None:
        for client in clients:
            client.end_round(result)

    policies = [policy(seat) for seat in range(n)]
    state.run(policies, move_seconds=move_seconds, banks=bank, on_round=on_round)
    placement = tuple(state.placement())
    scores = tuple(state.scores)
    for finished_seat, client in enumerate(clients):
        client.end_game(
            GameResult(
                seat=finished_seat,
                place=placement.index(finished_seat) + 1,
                placement=placement,
                scores=scores,
                capped=state.capped,
            )
        )
    # The game's record first, its output last: a runner that waits at a game's end for the
    # rest of a bot's output (the Docker sandbox's fence, after the end_game hook) finds it
    # has come meanwhile, and waits no more.
    entries = (
        list(players)
        if players is not None
        else [{"seat": s, "name": name} for s, name in enumerate(names)]
    )
    replay = add_times(state.to_replay(entries), times) if keep_replay else None
    move_output = tuple(bounded_game_output(lines) for lines in printed)
    outputs = tuple(client.take_output() for client in clients)
    return GameOutcome(
        game_number=game_number,
        seed=seed,
        bots=tuple(bots) if bots is not None else tuple(range(n)),
        placement=placement,
        scores=scores,
        faults=tuple(state.faults),
        rounds=state.rounds_finished,
        capped=state.capped,
        moves=tuple(moves),
        think_seconds=tuple(think),
        outputs=outputs,
        replay=replay,
        move_output=move_output,
    )


def play_match(
    rules: GameRules,
    specs: Sequence[BotSpec],
    runner: Runner,
    *,
    seed: int,
    game_numbers: Sequence[int],
    keep_replays: bool = True,
    player_info: Callable[[int], dict[str, Any]] | None = None,
    duplicate: bool = False,
    rotation: int | None = None,
    timings: dict[str, float] | None = None,
) -> Generator[GameOutcome, None, None]:
    """Start the bots once, then play the games ``game_numbers`` of the match with seed
    ``seed``, each with its deal and seating from :func:`game_plan` (``duplicate``: every
    deal once per seat rotation; with ``rotation``, only that rotation of each deal). The
    runner is closed at the end (also on error, and when the caller stops early).

    ``player_info(bot_index)`` may add keys to a bot's replay player entry (the arena adds
    the owner and version). ``timings``, when given, is filled in seconds as the series
    goes: ``sandbox_start`` (the bots started), ``games`` (all games, wall time), ``moves``
    (the bots' own thinking) and, once the runner is closed, ``sandbox_stop``.
    """
    rules.check_players(len(specs))
    clock: dict[str, float] = timings if timings is not None else {}
    stopping: float | None = None
    try:
        with runner:
            started = perf_counter()
            clients = runner.start(specs)
            clock["sandbox_start"] = perf_counter() - started
            clock["games"] = clock["moves"] = 0.0
            try:
                for number in game_numbers:
                    deal, bots = game_plan(seed, number, len(specs), duplicate, rotation)
                    players = []
                    for seat, bot in enumerate(bots):
                        entry: dict[str, Any] = {"seat": seat, "name": specs[bot].name}
                        if player_info is not None:
                            entry.update(player_info(bot))
                        players.append(entry)
                    started = perf_counter()
                    outcome = play_game(
                        rules,
                        [clients[bot] for bot in bots],
                        seed=deal,
                        limits=runner.limits,
                        players=players,
                        game_number=number,
                        bots=bots,
                        keep_replay=keep_replays,
                    )
                    clock["games"] += perf_counter() - started
                    clock["moves"] += sum(outcome.think_seconds)
                    yield outcome
            finally:
                stopping = perf_counter()
    finally:
        if stopping is not None:
            clock["sandbox_stop"] = perf_counter() - stopping
