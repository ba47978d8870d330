# mypy: disable-error-code="import-untyped,import-not-found"
# (the Django project and the test helpers are imported at run time, outside mypy's path)
"""Page and query times of the site at scale, against the targets the tests used to assert.

The tests bound the number of queries of each of these (a deterministic figure); how long
the queries and the rendering take belongs here, measured on this machine, median of a few
runs, beside the target:

- the leaderboard's page 150 with 10,000 bots (target 1 s);
- a bot's statistics (``bot_stats``) over 10,000 rated games (target 2 s);
- that bot's page, with its charts (target 3 s).

Needs PostgreSQL (``make services``). Uses a database of its own (``cucumbers_bench_pages``,
recreated).

    python benchmarks/pages.py [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

from pipeline import REPO, environment, fresh_database, load_average, setup_django

DB_NAME = "cucumbers_bench_pages"


def median_seconds(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def report(what: str, seconds: float, target: float) -> None:
    verdict = "meets" if seconds <= target else "above"
    print(
        f"  {what:<44} {1e3 * seconds:8.1f} ms  ({verdict} the {target:g} s target,"
        f" {seconds / target:.2f}x)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    data_dir = tempfile.mkdtemp(prefix="cucumbers-bench-pages-")
    try:
        env = environment(data_dir, DB_NAME)
        env["ALLOWED_HOSTS"] = "testserver"
        env["SECURE_SSL_REDIRECT"] = "0"  # the test client speaks plain HTTP, as web.py does
        fresh_database(DB_NAME)
        setup_django(env)
        sys.path.insert(0, str(REPO))
        from django.core.management import call_command
        from django.test import Client

        call_command("collectstatic", interactive=False, verbosity=0)  # as in production

        from web.pages.charts import bot_stats

        # The test suite's bulk factories (imported by name: mypy checks the tests apart).
        history = importlib.import_module("tests.web.bots.history")
        factories = importlib.import_module("tests.web.factories")
        record_history, active_bot = history.record_history, factories.active_bot
        factories.make_bots(10_000)

        print(f"load average before: {load_average()}")
        veterans = [active_bot(name=f"vet{i}") for i in range(4)]
        orders = list(itertools.permutations(range(4)))
        record_history(
            veterans,
            [
                ([0, 1, 2, 3], [orders[(m * 4 + g) % len(orders)] for g in range(4)])
                for m in range(2500)
            ],
        )
        veteran = veterans[0]
        client = Client()
        assert client.get("/?page=150").status_code == 200  # warm: templates, connections
        print(f"pages at scale (median of {args.runs}):")
        report(
            "leaderboard, page 150 of 10,000 bots",
            median_seconds(lambda: client.get("/?page=150"), args.runs),
            1.0,
        )
        report(
            "bot_stats over 10,000 rated games",
            median_seconds(lambda: bot_stats(veteran), args.runs),
            2.0,
        )
        report(
            "bot page over 10,000 rated games",
            median_seconds(lambda: client.get(veteran.get_absolute_url()), args.runs),
            3.0,
        )
        print(f"load average at the end: {load_average()}")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
