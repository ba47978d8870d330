"""Is the new version better? The engine of ``cucumbers compare NEW OLD``.

Both versions play the same duplicate match (:func:`~cucumbers.match.game_plan`): the same
match seed, so the same deals, seatings and opponents, with NEW in one match and OLD in
the other at the same bot index. Each deal is played once per seat rotation, so a
version's mean place over a deal's block of games holds no luck of the cards; what is left
is compared *deal by deal*, which cancels most of the rest. The paired differences are
tested after every batch of deals, and the comparison stops as soon as it is significant
or at the cap.

>>> result = compare(CompareConfig(rules, BotSpec.parse("new.py"), BotSpec.parse("old.py"),
...                                opponents, seed=1))                       # doctest: +SKIP
>>> result.verdict, round(result.difference, 2), round(result.ci95, 2)      # doctest: +SKIP
(<Verdict.NEW_BETTER: 'new_better'>, 0.21, 0.09)

Looking again after every batch makes a false verdict likelier than one look would, so a
verdict needs the 99% interval to clear zero at one of the looks, the last one at the cap
(close to the Pocock bound for a dozen or two looks at 5%); the printed interval is the 95%
one.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from enum import StrEnum

from .games import GameRules
from .match import GameOutcome, play_match
from .runners import make_runner
from .runners.base import BotSpec, Limits, RunnerName

#: z of the stopping rule (99%) and of the reported interval (95%).
STOP_Z = 2.576
REPORT_Z = 1.96


class Verdict(StrEnum):
    """What the comparison found."""

    NEW_BETTER = "new_better"
    OLD_BETTER = "old_better"
    NO_DIFFERENCE = "no_difference"  # not significant at the cap


@dataclass(frozen=True, slots=True)
class CompareConfig:
    """What to compare.

    Attributes:
        rules: the game.
        new, old: the two versions.
        opponents: the other seats' bots, the same for both versions.
        seed: the match seed (both matches use it).
        sandbox: the runner's name.
        limits: time and resource limits.
        max_deals: the cap, in deals (each deal is ``1 + len(opponents)`` games a version).
        min_deals: deals played before the first look.
        batch_deals: deals between two looks.
    """

    rules: GameRules
    new: BotSpec
    old: BotSpec
    opponents: tuple[BotSpec, ...]
    seed: int
    sandbox: str = RunnerName.PROCESS
    limits: Limits = field(default_factory=Limits)
    max_deals: int = 200
    min_deals: int = 20
    batch_deals: int = 10


@dataclass(frozen=True, slots=True)
class Comparison:
    """The result of :func:`compare`.

    Attributes:
        deals: deals played; each version played ``deals * seats`` games.
        seats: the table size.
        new_mean, old_mean: each version's mean place (1 = best).
        difference: ``old_mean - new_mean``: positive when NEW places better.
        ci95: half-width of the 95% interval of ``difference`` (over the paired deals).
        verdict: the finding.
        faults: faults of NEW and of OLD, by kind.
    """

    deals: int
    seats: int
    new_mean: float
    old_mean: float
    difference: float
    ci95: float
    verdict: Verdict
    faults: tuple[Counter[str], Counter[str]]

    def summary(self) -> str:
        """The lines ``cucumbers compare`` prints."""
        games = self.deals * self.seats
        lines = [
            f"{self.deals} duplicate deals, {games} games for each version"
            f" ({self.seats} seats, every deal once per seat rotation, the same for both)",
            f"  NEW mean place {self.new_mean:.3f}, OLD mean place {self.old_mean:.3f}",
            f"  difference (OLD - NEW, positive = NEW better): {self.difference:+.3f}"
            f" ± {self.ci95:.3f} (95% interval)",
        ]
        for label, faults in zip(("NEW", "OLD"), self.faults, strict=True):
            if faults:
                shown = ", ".join(f"{kind} {n}" for kind, n in sorted(faults.items()))
                lines.append(f"  {label} faulted: {shown}")
        verdict = {
            Verdict.NEW_BETTER: "NEW is better",
            Verdict.OLD_BETTER: "OLD is better",
            Verdict.NO_DIFFERENCE: f"no significant difference within the cap of {self.deals}"
            " deals (more deals, --max-deals, may find a small one)",
        }[self.verdict]
        lines.append(f"verdict: {verdict}")
        return "\n".join(lines)


def _places(outcomes: Iterator[GameOutcome], games: int, faults: Counter[str]) -> list[int]:
    """The version's (bot index 0) places in the next ``games`` games."""
    places = []
    for _ in range(games):
        outcome = next(outcomes)
        places.append(outcome.place_of_bot(0))
        seat = outcome.bots.index(0)
        faults.update(f.kind.value for f in outcome.faults if f.seat == seat)
    return places


def _interval(differences: list[float], z: float) -> float:
    if len(differences) < 2:
        return math.inf
    return z * statistics.stdev(differences) / math.sqrt(len(differences))


def compare(config: CompareConfig, progress: Callable[[int], None] | None = None) -> Comparison:
    """Play NEW and OLD on the same duplicate deals until the difference in mean place is
    significant or ``config.max_deals`` deals are played; ``progress(deals)`` after each
    deal."""
    if not 1 <= config.min_deals <= config.max_deals or config.batch_deals < 1:
        raise ValueError("need 1 <= min_deals <= max_deals and batch_deals >= 1")
    seats = 1 + len(config.opponents)
    config.rules.check_players(seats)
    # One display name in both matches, so that the opponents' views (which carry the
    # players' names) are the same whichever version sits at the table.
    new = replace(config.new, name="candidate")
    old = replace(config.old, name="candidate")
    numbers = range(1, config.max_deals * seats + 1)
    faults: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
    new_places: list[int] = []
    old_places: list[int] = []
    differences: list[float] = []
    with ExitStack() as stack:
        matches = []
        for version in (new, old):
            runner = stack.enter_context(make_runner(config.sandbox, config.limits))
            matches.append(
                play_match(
                    config.rules,
                    [version, *config.opponents],
                    runner,
                    seed=config.seed,
                    game_numbers=numbers,
                    keep_replays=False,
                    duplicate=True,
                )
            )
        while len(differences) < config.max_deals:
            mine = _places(matches[0], seats, faults[0])
            theirs = _places(matches[1], seats, faults[1])
            new_places += mine
            old_places += theirs
            differences.append(statistics.mean(theirs) - statistics.mean(mine))
            if progress is not None:
                progress(len(differences))
            done = len(differences)
            looked = done == config.max_deals or (
                done >= config.min_deals and (done - config.min_deals) % config.batch_deals == 0
            )
            if looked and abs(statistics.mean(differences)) > _interval(differences, STOP_Z):
                significant = True
                break
        else:
            significant = False
    difference = statistics.mean(differences)
    ci95 = _interval(differences, REPORT_Z)
    if not significant:
        verdict = Verdict.NO_DIFFERENCE
    else:
        verdict = Verdict.NEW_BETTER if difference > 0 else Verdict.OLD_BETTER
    return Comparison(
        deals=len(differences),
        seats=seats,
        new_mean=statistics.mean(new_places),
        old_mean=statistics.mean(old_places),
        difference=difference,
        ci95=ci95 if math.isfinite(ci95) else math.nan,
        verdict=verdict,
        faults=faults,
    )
