"""Argument types and the error exit shared by the ``cucumbers`` commands."""

from __future__ import annotations

import argparse
import sys

from .loader import BUILTIN_PREFIX
from .runners.base import Limits


def seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def _whole(text: str, minimum: int, name: str, bound: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {name}: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{bound}: {text!r}")
    return value


def positive_arg(text: str) -> int:
    return _whole(text, 1, "a whole number", "must be at least 1")


def count_arg(text: str) -> int:
    return _whole(text, 0, "a whole number", "must be at least 0")


def seed_arg(text: str) -> int:
    return _whole(text, 0, "an integer seed", "the seed must be >= 0")


def add_per_move(parser: argparse.ArgumentParser, help_text: str) -> None:
    """The ``--per-move SECONDS`` option (default: the usual limit), as every command has it."""
    parser.add_argument(
        "--per-move",
        type=seconds_arg,
        default=Limits().move_seconds,
        metavar="SECONDS",
        help=help_text,
    )


def bot_arg(text: str) -> str:
    if not text.startswith(BUILTIN_PREFIX) and not text.endswith(".py"):
        raise argparse.ArgumentTypeError(f"a bot is a .py file or builtin:NAME, not {text!r}")
    return text


def fail(message: str) -> int:
    print(f"cucumbers: error: {message}", file=sys.stderr)
    return 2
