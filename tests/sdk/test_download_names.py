"""The files ``cucumbers download`` writes name a bot by its seat in that game, the number
``cucumbers repro --seat`` takes, before the match's participant index: a rotation seats
participant 0 at seat 4, and "participant 0" sent authors to the wrong seat."""

from __future__ import annotations

from typing import Any

from cucumbers.downloads import faults_text, participant_seats

PARTICIPANTS: list[dict[str, Any]] = [
    {"index": 0, "name": "carol/mybot v1", "bot": 7, "version": 1},
    {"index": 1, "name": "builtin:random", "bot": None, "version": None},
    {"index": 2, "name": "dave/other v3", "bot": 9, "version": 3},
]


def a_rotation_replay() -> dict[str, Any]:
    """Seats as a rotation of a five-seat match leaves them: participant 0 last."""
    return {
        "players": [
            {"seat": 0, "name": "dave/other v3", "bot": 9, "version": 3},
            {"seat": 1, "name": "builtin:random"},
            {"seat": 2, "name": "builtin:random"},
            {"seat": 3, "name": "builtin:random"},
            {"seat": 4, "name": "carol/mybot v1", "bot": 7, "version": 1},
        ]
    }


def test_a_fault_is_named_by_its_seat_in_the_game_and_says_how_to_repro_it() -> None:
    game = {
        "faults": [
            {
                "seat": 4,
                "participant": 0,
                "round": 2,
                "trick": 3,
                "kind": "crash",
                "detail": "KeyError: 'x'",
            }
        ]
    }
    names = {p["index"]: p["name"] for p in PARTICIPANTS}
    text = faults_text(game, names)
    heading = "== seat 4 (participant 0): carol/mybot v1: crash in round 2, trick 3 =="
    assert text.splitlines()[0] == heading
    assert "cucumbers repro REPLAY --seat 4 BOT.py" in text


def test_each_uploaded_participant_is_found_at_its_seat_of_the_game() -> None:
    assert participant_seats(a_rotation_replay(), PARTICIPANTS) == {0: 4, 2: 0}
    # A bot against itself (same version at two seats): no seat is guessed.
    twice = a_rotation_replay()
    twice["players"][1] = {"seat": 1, "name": "carol/mybot v1", "bot": 7, "version": 1}
    assert participant_seats(twice, PARTICIPANTS) == {2: 0}
    # A replay that could not be read: nothing is known, the files name participants only.
    assert participant_seats({}, PARTICIPANTS) == {}
