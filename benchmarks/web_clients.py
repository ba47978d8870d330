"""The load benchmark's clients (``web.py``): a bounded number of threads, each one visitor
that asks for a page, reads the whole answer, thinks, and asks again, until the time is up.

Threads and the standard library's ``http.client`` rather than locust or httpx: on a
2-core machine that also runs the server, every millisecond the client spends is taken
from the server; a thread blocked on a socket costs nothing, the GIL is free while it
waits, and there is no dependency to install. A new connection per request, as gunicorn's
sync workers close each one anyway.
"""

from __future__ import annotations

import http.client
import random
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Page:
    """One kind of page: its name in the table and how to draw its next URL."""

    name: str
    url: Callable[[random.Random], str]


@dataclass
class Tally:
    """Latencies (seconds) and errors of one page over a run."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    @property
    def median(self) -> float:
        return statistics.median(self.latencies) if self.latencies else float("nan")


@dataclass(frozen=True)
class Run:
    tallies: dict[str, Tally]
    seconds: float
    clients: int
    think: tuple[float, float]

    @property
    def requests(self) -> int:
        return sum(len(t.latencies) + len(t.errors) for t in self.tallies.values())


def fetch(host: str, port: int, url: str, timeout: float = 30.0) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", url, headers={"Host": host, "Accept": "*/*"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def run_clients(
    host: str,
    port: int,
    pages: Sequence[Page],
    *,
    clients: int,
    seconds: float,
    think: tuple[float, float],
    seed: int = 1,
) -> Run:
    """``clients`` visitors for ``seconds``, each going through ``pages`` in turn (starting
    at a page of its own, so every page is asked for all the time) with a think time drawn
    uniformly from ``think`` between two answers, and before the first (as visitors arrive
    spread out: a start of 50 requests at once would be a burst no site sees)."""
    tallies = {page.name: Tally() for page in pages}
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)
    deadline = [0.0]

    def visitor(number: int) -> None:
        rng = random.Random(seed * 1000 + number)
        mine = {page.name: Tally() for page in pages}
        start.wait()
        if think[1] > 0:  # visitors arrive spread out, not all in the same millisecond
            time.sleep(rng.uniform(0, think[1]))
        turn = number
        while time.monotonic() < deadline[0]:
            page = pages[turn % len(pages)]
            turn += 1
            url = page.url(rng)
            began = time.perf_counter()
            try:
                status, body = fetch(host, port, url)
            except OSError as error:
                mine[page.name].errors.append(f"{url}: {error}")
            else:
                took = time.perf_counter() - began
                if status == 200 and body:
                    mine[page.name].latencies.append(took)
                else:
                    mine[page.name].errors.append(f"{url}: HTTP {status}")
            if think[1] > 0:
                time.sleep(rng.uniform(*think))
        with lock:
            for name, tally in mine.items():
                tallies[name].latencies += tally.latencies
                tallies[name].errors += tally.errors

    threads = [threading.Thread(target=visitor, args=(n,), daemon=True) for n in range(clients)]
    for thread in threads:
        thread.start()
    deadline[0] = time.monotonic() + seconds
    began = time.monotonic()
    start.wait()
    for thread in threads:
        thread.join()
    return Run(tallies, time.monotonic() - began, clients, think)


def table(run: Run, queries: dict[str, int], target_ms: float) -> list[str]:
    """The figures, one Markdown row per page (latencies in ms)."""
    rows = [
        "| page | requests | errors | p50 ms | p95 ms | p99 ms | req/s | queries | p95 target |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, tally in run.tallies.items():
        p95 = 1e3 * tally.percentile(0.95)
        verdict = "met" if p95 < target_ms and not tally.errors else "MISSED"
        rows.append(
            f"| {name} | {len(tally.latencies)} | {len(tally.errors)}"
            f" | {1e3 * tally.median:.1f} | {p95:.1f} | {1e3 * tally.percentile(0.99):.1f}"
            f" | {len(tally.latencies) / run.seconds:.1f} | {queries.get(name, '?')}"
            f" | {verdict} |"
        )
    return rows
