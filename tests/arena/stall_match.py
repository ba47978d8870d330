"""A match whose runner process a test can stop at a known point:
``python tests/arena/stall_match.py SANDBOX MOVE BANK STARTUP GAMES BOT...``.

Prints ``move BOT`` (flushed) each time the match loop asks a bot for a move, before the
request goes out, and at the end one JSON line: every fault of the match, as
``[game, bot, kind, detail]``, and the number of games played.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from cucumbers.games.registry import rules_for
from cucumbers.match import play_match
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotClient, BotSpec, Limits
from cucumbers.view import View


def announce_moves(client: BotClient) -> None:
    request = client.request_move

    def announced(view: View, timeout: float) -> object:
        print("move", client.spec.name, flush=True)
        return request(view, timeout)

    client.request_move = announced  # type: ignore[method-assign]


def main(argv: Sequence[str]) -> int:
    sandbox, move, bank, startup, games, *bots = argv
    if sandbox == "docker":
        from arena.sandbox.runner import register

        register()
    limits = Limits(
        move_seconds=float(move), bank_seconds=float(bank), startup_seconds=float(startup)
    )
    runner = make_runner(sandbox, limits)
    start = runner.start

    def start_announcing(specs: Sequence[BotSpec]) -> list[BotClient]:
        clients = start(specs)
        for client in clients:
            announce_moves(client)
        return clients

    runner.start = start_announcing  # type: ignore[method-assign]
    faults = []
    played = 0
    specs = [BotSpec.parse(bot) for bot in bots]
    for outcome in play_match(
        rules_for("five-cucumbers"), specs, runner, seed=7, game_numbers=range(1, int(games) + 1)
    ):
        played += 1
        faults += [
            [outcome.game_number, outcome.bots[f.seat], str(f.kind), f.detail]
            for f in outcome.faults
        ]
    print(json.dumps({"faults": faults, "games": played}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
