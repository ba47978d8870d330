"""Small hand-made replays that follow the rules, and a random game maker for volume tests.

The hand-made games are written out in full (every deal, play, winner and score worked out
by hand from ``rules.md``), so they check the validator rather than repeat it. Their hands
are chosen, not dealt from a seed, so they carry no ``seed``: the validator checks them
against the rules alone, as any replay of another producer. Tricks are
written compactly: ``"1:3 0:6* >0"`` means seat 1 led 3, seat 0 played 6 as an auto play,
and seat 0 won; the tricks of a round are separated by ``|``.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

Replay = dict[str, Any]


def trick(text: str) -> dict[str, Any]:
    """One trick from its compact form (see the module docstring)."""
    *plays, winner = text.split()
    assert winner.startswith(">"), text
    out = []
    for play in plays:
        seat, card = play.split(":")
        entry: dict[str, Any] = {"seat": int(seat), "card": int(card.rstrip("*"))}
        if card.endswith("*"):
            entry["auto"] = True
        out.append(entry)
    return {"leader": out[0]["seat"], "plays": out, "winner": int(winner[1:])}


def game_round(
    number: int,
    *,
    dealer: int | None = None,
    leader: int,
    hands: list[list[int] | None],
    tricks: str,
    loser: int,
    card: int,
    penalty: int,
    doubled: bool = False,
    scores: list[int],
    eliminated: list[int] | None = None,
    half: list[int] | None = None,
) -> dict[str, Any]:
    """One round in replay form, keys in the order of ``replay-format.md``; ``tricks`` are
    compact tricks separated by ``|``."""
    written = tricks.split("|")
    size = len(written)
    return {
        "number": number,
        "dealer": dealer,
        "leader": leader,
        "hand_size": size,
        "hands": hands,
        "tricks": [trick(t) for t in written],
        "loser": loser,
        "card": card,
        "penalty": penalty,
        "doubled": doubled,
        "scores": scores,
        "eliminated": eliminated or [],
        "half": half or [],
    }


def replay(
    game: str,
    rounds: list[dict[str, Any]],
    placement: list[int],
    faults: list[dict[str, Any]] | None = None,
) -> Replay:
    """A whole replay without a seed (its hands are hand-made)."""
    players = len(rounds[0]["hands"])
    return {
        "format": "cucumbers-replay/1",
        "game": game,
        "engine": "0.1.0",
        "players": [{"seat": s, "name": f"bot{s}"} for s in range(players)],
        "rounds": rounds,
        "faults": faults or [],
        "placement": placement,
        "capped": False,
    }


def five_cucumbers_duel() -> Replay:
    """2 players. Round 1: seat 1 loses with a 15 and holds exactly 5 cucumbers (safe).
    Round 2, led by that loser: seat 0 takes the last trick with a 14 over a 1, so the 4
    cucumbers double to 8 and it is eliminated."""
    round1 = game_round(
        1,
        leader=0,
        hands=[[1, 4, 6, 9, 10, 12, 14], [3, 5, 6, 9, 11, 13, 15]],
        tricks=(
            "0:9 1:9 >1 | 1:3 0:6 >0 | 0:4 1:5 >1 | 1:6 0:1 >1 | 1:11 0:10 >1 | "
            "1:13 0:14 >0 | 0:12 1:15 >1"
        ),
        loser=1,
        card=15,
        penalty=5,
        scores=[0, 5],
    )
    round2 = game_round(
        2,
        leader=1,
        hands=[[2, 4, 6, 9, 11, 13, 14], [1, 3, 5, 8, 10, 12, 14]],
        tricks=(
            "1:3 0:4 >0 | 0:2 1:5 >1 | 1:8 0:9 >0 | 0:6 1:10 >1 | 1:12 0:13 >0 | "
            "0:11 1:14 >1 | 1:1 0:14 >0"
        ),
        loser=0,
        card=14,
        penalty=8,
        doubled=True,
        scores=[8, 5],
        eliminated=[0],
    )
    return replay("five-cucumbers", [round1, round2], placement=[1, 0])


def concombre_half() -> Replay:
    """2 players. Seat 0 loses round 1 with a 9 (9 points), round 2 (9 cards) with a 12 on
    a tie: 21 points earn its half-cucumber, it keeps the 12 and scores 12. Round 3 deals
    12 cards; seat 0 loses with an ace, reaches 26 and is eliminated."""
    round1 = game_round(
        1,
        dealer=1,
        leader=0,
        hands=[[2, 3, 5, 7, 9, 11, 13], [2, 4, 6, 8, 10, 12, 14]],
        tricks=(
            "0:13 1:14 >1 | 1:2 0:11 >0 | 0:2 1:12 >1 | 1:10 0:3 >1 | 1:4 0:5 >0 | "
            "0:7 1:8 >1 | 1:6 0:9 >0"
        ),
        loser=0,
        card=9,
        penalty=9,
        scores=[9, 0],
    )
    round2 = game_round(
        2,
        dealer=0,
        leader=1,
        hands=[[2, 3, 4, 5, 6, 7, 8, 12, 13], [2, 3, 4, 9, 10, 11, 12, 14, 14]],
        tricks=(
            "1:14 0:2 >1 | 1:14 0:3 >1 | 1:2 0:13 >0 | 0:4 1:9 >1 | 1:3 0:5 >0 | "
            "0:6 1:4 >0 | 0:7 1:10 >1 | 1:11 0:8 >1 | 1:12 0:12 >0"
        ),
        loser=0,
        card=12,
        penalty=12,
        scores=[12, 0],
        half=[0],
    )
    round3 = game_round(
        3,
        dealer=1,
        leader=0,
        hands=[[2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14], [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]],
        tricks=" | ".join(["0:2 1:2 >1"] + [f"1:{c + 1} 0:{c} >1" for c in range(2, 12)])
        + " | 1:13 0:14 >0",
        loser=0,
        card=14,
        penalty=14,
        scores=[26, 0],
        eliminated=[0],
    )
    return replay("concombre", [round1, round2, round3], placement=[1, 0])


def five_cucumbers_fault() -> Replay:
    """3 players. Seat 1 times out in round 1 trick 5: its lowest card is played for it to
    the end of the round, which it loses with 8 cucumbers (a 13 doubled by a 1), yet it is
    disqualified, not eliminated. Round 2 is led by seat 2, the next active seat after the
    loser; seat 0 is eliminated with 10 cucumbers."""
    round1 = game_round(
        1,
        leader=0,
        hands=[[1, 3, 5, 7, 9, 11, 12], [2, 4, 6, 8, 10, 12, 13], [1, 2, 3, 6, 9, 10, 14]],
        tricks=(
            "0:3 1:4 2:14 >2 | 2:10 0:11 1:12 >1 | 1:2 2:2 0:5 >0 | "
            "0:9 1:10 2:1 >1 | 1:6* 2:9 0:12 >0 | 0:7 1:8* 2:3 >1 | "
            "1:13* 2:6 0:1 >1"
        ),
        loser=1,
        card=13,
        penalty=8,
        doubled=True,
        scores=[0, 8, 0],
    )
    round2 = game_round(
        2,
        leader=2,
        hands=[[2, 4, 6, 8, 10, 12, 15], None, [1, 3, 5, 7, 9, 11, 13]],
        tricks=(
            "2:3 0:4 >0 | 0:2 2:5 >2 | 2:7 0:8 >0 | 0:6 2:9 >2 | 2:11 0:12 >0 | "
            "0:10 2:13 >2 | 2:1 0:15 >0"
        ),
        loser=0,
        card=15,
        penalty=10,
        doubled=True,
        scores=[10, 8, 0],
        eliminated=[0],
    )
    fault = {"seat": 1, "round": 1, "trick": 5, "kind": "timeout", "detail": "no move in 1.0 s"}
    return replay("five-cucumbers", [round1, round2], placement=[2, 0, 1], faults=[fault])


def concombre_two_faults() -> Replay:
    """3 players. Seat 1 makes an illegal move in round 1 trick 3 and, auto-played, loses
    the round with a 6; at its disqualification the 6 goes back to the deck, so round 2
    (6 cards, dealt by seat 0, led by seat 2 as seat 1 is out) holds all four 6s. Seat 2
    crashes in round 2 trick 2; both are disqualified, the later one ranked higher."""
    round1 = game_round(
        1,
        dealer=2,
        leader=0,
        hands=[[3, 5, 7, 9, 11, 13, 14], [2, 2, 3, 4, 5, 6, 6], [2, 3, 4, 8, 10, 12, 14]],
        tricks=(
            "0:5 1:5 2:8 >2 | 2:3 0:7 1:2 >0 | 0:9 1:2* 2:10 >2 | "
            "2:4 0:11 1:3* >0 | 0:13 1:4* 2:14 >2 | 2:12 0:14 1:6* >0 | "
            "0:3 1:6* 2:2 >1"
        ),
        loser=1,
        card=6,
        penalty=6,
        scores=[0, 6, 0],
    )
    round2 = game_round(
        2,
        dealer=0,
        leader=2,
        hands=[[6, 6, 8, 10, 12, 14], None, [2, 4, 6, 6, 9, 13]],
        tricks=(
            "2:9 0:10 >0 | 0:6 2:2* >0 | 0:6 2:4* >0 | 0:8 2:6* >0 | 0:12 2:6* >0 | 0:14 2:13* >0"
        ),
        loser=0,
        card=14,
        penalty=14,
        scores=[14, 6, 0],
    )
    faults = [
        {"seat": 1, "round": 1, "trick": 3, "kind": "illegal_move", "detail": "played 6"},
        {"seat": 2, "round": 2, "trick": 2, "kind": "crash", "detail": "ZeroDivisionError"},
    ]
    return replay("concombre", [round1, round2], placement=[0, 2, 1], faults=faults)


def capped_duel() -> Replay:
    """2 players who never score after round 1, so the game stops at the 1000-round cap.
    Round 1: seat 0 takes the last trick with a 2 (1 cucumber). Every later round: equal
    cards, so each trick goes to the seat playing second, and the last one is won with a 1
    over a 1, doubled to 0 cucumbers. Capped, the seat with fewer points ranks first."""
    full = [1, 2, 3, 4, 5, 6, 7]
    rounds = [
        game_round(
            1,
            leader=0,
            hands=[full, full],
            tricks="0:7 1:1 >0 | 0:1 1:7 >1 | 1:6 0:6 >0 | 0:5 1:5 >1 | 1:4 0:4 >0 | "
            "0:3 1:3 >1 | 1:2 0:2 >0",
            loser=0,
            card=2,
            penalty=1,
            scores=[1, 0],
        )
    ]
    for number in range(2, 1001):
        lead, other = number % 2, 1 - number % 2  # round 2 is led by round 1's loser
        pairs = [(lead, other) if t % 2 == 0 else (other, lead) for t in range(7)]
        tricks = " | ".join(f"{a}:{7 - t} {b}:{7 - t} >{b}" for t, (a, b) in enumerate(pairs))
        rounds.append(
            game_round(
                number,
                leader=lead,
                hands=[full, full],
                tricks=tricks,
                loser=other,
                card=1,
                penalty=0,
                doubled=True,
                scores=[1, 0],
            )
        )
    capped = replay("five-cucumbers", rounds, placement=[1, 0])
    capped["capped"] = True
    return capped


HAND_MADE = {
    "five_cucumbers_duel": five_cucumbers_duel,
    "concombre_half": concombre_half,
    "five_cucumbers_fault": five_cucumbers_fault,
    "concombre_two_faults": concombre_two_faults,
}


def random_replay(
    seed: int, game: str, players: int, fault_rate: float = 0.0, *, copies: int = 4
) -> Replay:
    """A game between random legal players, with faults at random moves: the fastest way to
    many different valid replays. A plain forward simulation of ``rules.md``, kept apart
    from both the engine and the validator; it deals from ``seed`` as ``rules.md`` (f) says,
    with the standard library's ``sample`` itself, so its deals are the seed's.

    ``copies`` above 4 makes a forgery instead (issue 39): every round is dealt from a deck
    of that many cards of each rank (105 cards for Five Cucumbers at 7), by
    :func:`forged_draw`, so that no round holds more of a rank than the real deck has left:
    every play follows the rules, the cards add up, and only the seed tells."""
    rng = random.Random(seed)  # the players' choices and faults
    deals = random.Random(seed)  # rules.md (f): one generator for the game's deals
    concombre = game == "concombre"
    deck = [r for r in (range(2, 15) if concombre else range(1, 16)) for _ in range(4)]
    active, scores = list(range(players)), [0] * players
    front: list[list[int]] = [[] for _ in range(players)]
    halved, out_elim, out_dq = [False] * players, [], []
    faults: list[dict[str, Any]] = []
    rounds: list[dict[str, Any]] = []
    dealer, leader, size = players - 1, 0, 7
    while len(active) > 1 and len(rounds) < 1000:
        number = len(rounds) + 1
        pool = list(deck)
        for cards in front:
            for c in cards:
                pool.remove(c)
        if copies == 4:
            dealt = deals.sample(pool, size * len(active))
        else:
            dealt = forged_draw(deals, pool, copies, size * len(active))
        hands: list[list[int] | None] = [None] * players
        held: dict[int, list[int]] = {}
        for i, s in enumerate(active):
            held[s] = sorted(dealt[i * size : (i + 1) * size])
            hands[s] = list(held[s])
        faulted: list[int] = []
        tricks, lead = [], leader
        for t in range(1, size + 1):
            start = active.index(lead)
            plays, high, best = [], 0, lead
            for s in active[start:] + active[:start]:
                hand = held[s]
                if s not in faulted and rng.random() < fault_rate:
                    faulted.append(s)
                    faults.append({"seat": s, "round": number, "trick": t, "kind": "crash",
                                   "detail": "boom"})  # fmt: skip
                if s in faulted:
                    card = hand[0]
                else:
                    card = rng.choice([c for c in hand if c >= high] + [hand[0]])
                hand.remove(card)
                plays.append({"seat": s, "card": card, **({"auto": True} if s in faulted else {})})
                if card >= high:
                    high, best = card, s
            tricks.append({"leader": lead, "plays": plays, "winner": best})
            lead = best
        last = [p["card"] for p in tricks[-1]["plays"]]
        loser, card = lead, max(last)
        doubled = not concombre and 1 in last
        fc_table = (0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5)
        penalty = card if concombre else fc_table[card] * (2 if doubled else 1)
        scores[loser] += penalty
        elim, half = [], []
        if concombre:
            front[loser].append(card)
            if scores[loser] >= 21 and not halved[loser]:
                halved[loser], half = True, [loser]
                front[loser] = [max(front[loser])]
                scores[loser] = front[loser][0]
            elif scores[loser] >= 21 and loser not in faulted:
                elim = [loser]
        elif scores[loser] > 5 and loser not in faulted:
            elim = [loser]
        for s in elim + faulted:
            front[s] = []
        out_elim += elim
        out_dq += faulted
        active = [s for s in active if s not in elim and s not in faulted]
        rounds.append({
            "number": number, "dealer": dealer if concombre else None, "leader": leader,
            "hand_size": size, "hands": hands, "tricks": tricks, "loser": loser, "card": card,
            "penalty": penalty, "doubled": doubled, "scores": list(scores),
            "eliminated": elim, "half": half,
        })  # fmt: skip
        if len(active) <= 1:
            break
        if concombre:
            dealer = _after(dealer, active, players)
            leader = _after(dealer, active, players)
            available = len(deck) - sum(map(len, front))
            size = card if card * len(active) <= available else 7
            size = size if size * len(active) <= available else available // len(active)
        else:
            leader = _after(loser, active, players, start=0)
    capped = len(active) > 1
    placement = sorted(active, key=lambda s: (scores[s], s)) + out_elim[::-1] + out_dq[::-1]
    players_json = [{"seat": s, "name": f"random{s}"} for s in range(players)]
    return {
        "format": "cucumbers-replay/1", "game": game, "seed": seed, "engine": "test",
        "players": players_json, "rounds": rounds, "faults": faults,
        "placement": placement, "capped": capped,
    }  # fmt: skip


def forged_draw(rng: random.Random, pool: list[int], copies: int, k: int) -> list[int]:
    """``k`` cards drawn from a deck of ``copies`` cards of each rank of ``pool`` (the cards
    the real deck has left this round), shuffled, skipping each card of a rank the hands
    already hold as often as ``pool`` does."""
    left = Counter(pool)
    big = [rank for rank in sorted(left) for _ in range(copies)]
    rng.shuffle(big)
    dealt = []
    for card in big:
        if left[card] > 0 and len(dealt) < k:
            left[card] -= 1
            dealt.append(card)
    return dealt


def _after(seat: int, active: list[int], players: int, start: int = 1) -> int:
    """The first active seat clockwise from ``seat + start``."""
    ring = ((seat + k) % players for k in range(start, players + 1))
    return next(s for s in ring if s in active)


def clone(r: Replay) -> Replay:
    """A deep copy to mutate."""
    return copy.deepcopy(r)
