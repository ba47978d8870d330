"""Argument types and the error exit shared by the ``cucumbers`` commands."""

from __future__ import annotations

import argparse
import sys


def seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def positive_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def seed_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer seed: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"the seed must be >= 0: {text!r}")
    return value


def bot_arg(text: str) -> str:
    if not text.startswith("builtin:") and not text.endswith(".py"):
        raise argparse.ArgumentTypeError(f"a bot is a .py file or builtin:NAME, not {text!r}")
    return text


def fail(message: str) -> int:
    print(f"cucumbers: error: {message}", file=sys.stderr)
    return 2
