"""The ``cucumbers`` commands for a bot author's work between versions: ``repro`` (a
recorded game played back to the bot) and ``compare`` (two versions on the same duplicate
deals)."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any, TextIO

from .cli_args import add_per_move
from .cli_args import bot_arg as _bot
from .cli_args import count_arg as _count
from .cli_args import fail as _fail
from .cli_args import positive_arg as _positive
from .cli_args import seconds_arg as _seconds
from .cli_args import seed_arg as _seed
from .games import FIVE_CUCUMBERS, registry, rules_for
from .loader import BotLoadError, load_bot
from .preflight import BotNotUsable, check_bots
from .progress import ProgressBar
from .replay import ReplayFileError, load_replay
from .repro_output import DEFAULT_LINES, OutputTail, format_tail
from .runners import RUNNERS
from .runners.base import BotSpec, Limits, RunnerName


def cmd_repro(args: argparse.Namespace) -> int:
    from .repro import ReplayMismatch, format_result
    from .repro_match import MatchFilesError, format_earlier, match_games, reproduce_match
    from .repro_pytest import pytest_source

    # The bot runs in this process: what it prints is held and shown after the report.
    printed = OutputTail(args.output_lines)
    try:
        replay = load_replay(args.replay)
        with printed.held():
            load_bot(args.bot)
    except ReplayFileError as error:
        return _fail(str(error))
    except BotLoadError as error:
        status = _fail(f"{args.bot} is not a usable bot: {error}")
        _show_output(printed, sys.stderr)
        return status
    players = replay["players"] if isinstance(replay.get("players"), list) else []
    if not 0 <= args.seat < len(players):
        seats = ", ".join(f"{s} ({p.get('name')})" for s, p in enumerate(players))
        return _fail(f"no seat {args.seat} in {args.replay}; its seats: {seats}")
    limits = Limits(move_seconds=args.per_move, bank_seconds=args.bank)
    try:
        games = match_games(args.replay, args.seat, replay)
    except (MatchFilesError, ReplayFileError) as error:
        return _fail(str(error))
    if args.alone:
        games = games[-1:]
    try:
        with printed.held():
            result = reproduce_match(
                games, lambda: load_bot(args.bot), limits=limits, bot_file=args.bot
            )
    except ReplayMismatch as error:
        return _fail(f"{args.replay}: {error}")
    name = players[args.seat].get("name", "?")
    print(f"{args.replay}: seat {args.seat} was {name}; replaying its views to {args.bot}")
    number = games[-1].number
    if len(games) > 1:
        print(
            f"first games 1 to {number - 1} of its match, to the same bot object (what it"
            " keeps across games is what it had):"
        )
        print(format_earlier(result, games))
    note = ""
    if number > 1 and len(games) == 1:
        note = (
            f"this is game {number} of its match, replayed alone: a bot that keeps state"
            " across games may need the earlier ones (run repro beside the match's other"
            " games, without --alone)"
        )
    print(format_result(result.game, note))
    _show_output(printed, sys.stdout)
    if args.pytest is not None:
        try:
            source = pytest_source(games, args.seat, Path(args.bot), args.pytest)
            args.pytest.write_text(source, encoding="utf-8")
        except OSError as error:
            return _fail(f"cannot write {args.pytest}: {error.strerror or error}")
        print(f"wrote {args.pytest}: pytest {args.pytest}")
    return 0 if result.game.reproduced else 1


def _show_output(printed: OutputTail, stream: TextIO) -> None:
    """The bot's own output, labelled and apart from repro's words, when it printed any."""
    if (text := format_tail(printed)) is not None:
        print(text, file=stream)


def cmd_compare(args: argparse.Namespace) -> int:
    from .compare import CompareConfig, compare

    rules = rules_for(args.game)
    seats = 1 + len(args.opponents)
    if not rules.min_players <= seats <= rules.max_players:
        return _fail(
            f"{rules.name} seats {rules.min_players} to {rules.max_players} players:"
            f" NEW (or OLD) and {len(args.opponents)} opponents make {seats}"
        )
    limits = Limits(move_seconds=args.per_move)
    try:
        check_bots([args.new, args.old, *args.opponents], args.sandbox, limits)
    except BotNotUsable as error:
        return _fail(str(error))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    config = CompareConfig(
        rules=rules,
        new=BotSpec.parse(args.new),
        old=BotSpec.parse(args.old),
        opponents=tuple(BotSpec.parse(o) for o in args.opponents),
        seed=seed,
        sandbox=args.sandbox,
        limits=limits,
        max_deals=args.max_deals,
        min_deals=min(20, args.max_deals),
    )
    print(
        f"{rules.name}: NEW {args.new} against OLD {args.old}, opponents"
        f" {' '.join(args.opponents)}, seed {seed}, up to {args.max_deals} deals"
    )
    with ProgressBar(total=args.max_deals, stream=sys.stderr) as bar:
        result = compare(config, progress=bar.update)
    print(result.summary())
    return 0


def add_tool_commands(commands: Any) -> None:
    """Add ``repro`` and ``compare`` to the ``cucumbers`` subparsers."""
    repro = commands.add_parser(
        "repro",
        help="replay a recorded game to your bot and find where it plays differently",
        description="Give BOT, in order, the exact views seat N saw in the recorded game"
        " (a local replay or one downloaded from the site, .json or .json.gz) and report the"
        " first move where it plays differently, or the fault it raises, with the view and"
        " its traceback. The earlier games of the same match, when they lie beside it"
        " (match-ID-game-N.json.gz from cucumbers download, game-NNNNN.json from cucumbers"
        " play), are replayed to the same bot object first, so that what it keeps across"
        " games is reproduced. Exit status 0 when the recorded game happens again (the same"
        " moves, and the recorded fault again), 1 when it plays differently, faults anew, or"
        " the recorded fault is not reproduced.",
    )
    repro.add_argument("replay", type=Path, metavar="REPLAY", help="the replay file")
    repro.add_argument(
        "--seat", type=int, required=True, metavar="N", help="the seat whose views to replay"
    )
    repro.add_argument("bot", metavar="BOT", help="the bot file (.py) or builtin:NAME")
    repro.add_argument(
        "--alone",
        action="store_true",
        help="replay this game alone, without the earlier games of its match",
    )
    repro.add_argument(
        "--pytest",
        type=Path,
        metavar="FILE",
        help="also write a self-contained test file (the replays inside) that does the same;"
        " it passes once the bot plays the game without a fault",
    )
    repro.add_argument(
        "--output-lines",
        type=_count,
        default=DEFAULT_LINES,
        metavar="N",
        help="show the last N lines the bot printed, after the report (default: %(default)s;"
        " 0: only how many)",
    )
    add_per_move(repro, "the views' time per move (default: %(default)s, as on the site)")
    repro.add_argument(
        "--bank",
        type=_seconds,
        default=Limits().bank_seconds,
        metavar="SECONDS",
        help="the views' time bank (default: %(default)s); a move slower than both faults",
    )
    repro.set_defaults(run=cmd_repro)

    compare_ = commands.add_parser(
        "compare",
        help="is NEW better than OLD? both play the same duplicate deals until it is clear",
        description="Play NEW and OLD on the same duplicate deals (every deal once per seat"
        " rotation) against the same opponents, deal by deal, until the difference in mean"
        " place is significant or --max-deals is reached; print the difference with its 95%"
        " interval and a verdict. The same bot processes play every rotation of a deal: a"
        " bot that remembers deals can know its opponents' hands from the second rotation"
        " on (the site plays each rotation in fresh processes).",
    )
    compare_.add_argument("new", type=_bot, metavar="NEW", help="the new version (.py)")
    compare_.add_argument("old", type=_bot, metavar="OLD", help="the version to beat (.py)")
    compare_.add_argument(
        "--opponents",
        nargs="+",
        type=_bot,
        default=["builtin:heuristic", "builtin:random", "builtin:random"],
        metavar="BOT",
        help="the other seats (default: %(default)s)",
    )
    compare_.add_argument(
        "--game",
        choices=list(registry()),
        default=FIVE_CUCUMBERS.name,
        help="default: %(default)s",
    )
    compare_.add_argument(
        "--max-deals",
        type=_positive,
        default=200,
        metavar="N",
        help="the cap: at most N deals, each played once per seat rotation (default: %(default)s)",
    )
    compare_.add_argument(
        "--seed", type=_seed, default=None, help="match seed (default: random, printed)"
    )
    compare_.add_argument(
        "--sandbox",
        choices=[RunnerName.PROCESS, *[name for name in RUNNERS if name != RunnerName.PROCESS]],
        default=RunnerName.PROCESS,
        help="where bots run (default: %(default)s)",
    )
    add_per_move(compare_, "time per move (default: %(default)s)")
    compare_.set_defaults(run=cmd_compare)
