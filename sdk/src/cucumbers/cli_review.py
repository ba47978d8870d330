"""``cucumbers review REPLAY --seat N``: the move review (:mod:`cucumbers.review`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .cli_args import _whole
from .cli_args import fail as _fail
from .cli_args import positive_arg as _positive
from .cli_args import seed_arg as _seed
from .replay import ReplayFileError, load_replay
from .review.game import DEFAULT_DEALS


def _deals(text: str) -> int:
    value = _positive(text)
    if value < 2:
        raise argparse.ArgumentTypeError("at least 2 deals (an interval needs two)")
    return value


def _top(text: str) -> int:
    return _whole(text, 0, "a whole number", "must be 0 (all) or more")


def cmd_review(args: argparse.Namespace) -> int:
    from .repro import ReplayMismatch
    from .review import review_game
    from .review.text import format_review

    try:
        replay = load_replay(args.replay)
    except ReplayFileError as error:
        return _fail(str(error))
    players = replay["players"] if isinstance(replay.get("players"), list) else []
    if not 0 <= args.seat < len(players):
        seats = ", ".join(f"{s} ({p.get('name')})" for s, p in enumerate(players))
        return _fail(f"no seat {args.seat} in {args.replay}; its seats: {seats}")

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\rreview: decision {done} of {total}", end="", file=sys.stderr, flush=True)

    try:
        review = review_game(replay, args.seat, seed=args.seed, deals=args.deals, progress=progress)
    except ReplayMismatch as error:
        return _fail(f"{args.replay}: {error}")
    if sys.stderr.isatty():
        print("\r" + " " * 40 + "\r", end="", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(review.to_json()))
        return 0
    print(f"{args.replay}: {review.game}, {len(players)} seats")
    print(format_review(review, top=args.top or None))
    print("an estimate: see `cucumbers review --help` and docs/bots.md for its method and limits")
    return 0


def add_review_command(commands: Any) -> None:
    """Add ``review`` to the ``cucumbers`` subparsers."""
    review = commands.add_parser(
        "review",
        help="how much each decision of a seat cost it, by estimate: the biggest mistakes",
        description="For each decision of seat N with more than one legal card, estimate every"
        " legal card's expected cost to the seat this round (cucumbers or points) from that"
        " seat's own information: the unseen cards dealt to the other seats in N ways (--deals)"
        " consistent with its view, as builtin:search samples them, each card played on the"
        " same deals and the round finished with builtin:heuristic's core rules for every"
        " seat. The played card's regret is its expected cost less the best card's, with a"
        " 95% interval. The same replay, seat, seed and deals give the same review. An"
        " estimate, not a verdict: the playouts assume every seat then plays like the"
        " heuristic, and only this round's penalty counts (not the score, nor the next rounds).",
    )
    review.add_argument("replay", type=Path, metavar="REPLAY", help="the replay file")
    review.add_argument(
        "--seat", type=int, required=True, metavar="N", help="the seat whose decisions to review"
    )
    review.add_argument(
        "--seed", type=_seed, default=0, help="the deals' seed (default: %(default)s)"
    )
    review.add_argument(
        "--deals",
        type=_deals,
        default=DEFAULT_DEALS,
        metavar="N",
        help="deals per decision (default: %(default)s); intervals narrow as 1/sqrt(N)",
    )
    review.add_argument(
        "--top",
        type=_top,
        default=10,
        metavar="N",
        help="decisions to list, the biggest mistakes first (default: %(default)s; 0: all)",
    )
    review.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: every decision, biggest mistakes first",
    )
    review.set_defaults(run=cmd_review)
