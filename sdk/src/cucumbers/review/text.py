"""What ``cucumbers review`` prints: a summary, then the biggest mistakes first, one line
each, with every legal card's expected cost."""

from __future__ import annotations

from ..games import rules_for
from .game import Decision, GameReview

#: A regret from this size on (in the game's units) is counted as a mistake in the summary.
MISTAKE = 0.5


def _cards(d: Decision, name: dict[int, str]) -> str:
    return "  ".join(f"{name.get(c.card, c.card)}:{c.cost:.2f}" for c in d.estimate.cards)


def format_review(review: GameReview, *, top: int | None = 10) -> str:
    """The review in words; ``top`` decisions at most (``None``: all, biggest first)."""
    rules = rules_for(review.game)
    name = {card: rules.card_name(card) for card in rules.ranks}
    unit = review.unit
    count = len(review.decisions)
    mistakes = sum(1 for d in review.decisions if d.regret >= MISTAKE)
    lines = [
        f"seat {review.seat} ({review.player}): {count} decisions with a choice"
        f" ({review.forced} forced moves left out{', and its fault' if review.faulted else ''}),"
        f" {review.deals} deals each, seed {review.seed}",
        f"regret in all: {review.total_regret:.2f} {unit}"
        + (f", {review.total_regret / count:.3f} a decision" if count else "")
        + f"; {mistakes} decision{'s' if mistakes != 1 else ''} cost {MISTAKE:g} {unit} or more",
    ]
    shown = review.mistakes()[:top] if top is not None else review.mistakes()
    if not shown:
        return "\n".join(lines)
    lines += [
        "",
        f"biggest mistakes first: each legal card's expected {unit} this round (95% intervals)",
        f"{'round':>5} {'trick':>5}  {'hand':<24} {'played':>6} {'best':>4}"
        f"  {'regret':>6} {'interval':<14}  cards",
    ]
    for d in shown:
        hand = " ".join(name.get(c, str(c)) for c in d.view.hand)
        lo, hi = d.estimate.interval
        interval = f"[{lo:.2f}, {hi:.2f}]"
        lines.append(
            f"{d.round:>5} {d.trick:>5}  {hand:<24} {name.get(d.played, d.played):>6}"
            f" {name.get(d.best, d.best):>4}  {d.regret:>6.2f} {interval:<14}  {_cards(d, name)}"
        )
    if top is not None and count > top:
        lines.append(f"({count - top} more: --top 0 lists them all)")
    return "\n".join(lines)
