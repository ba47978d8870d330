"""The kinds of match, one module each with its whole policy (who plays, how many games,
what follows from the outcome), and the registry line of each: :data:`POLICIES`."""

from __future__ import annotations

from ..kind import KindPolicy
from .challenge import ChallengePolicy
from .ladder import LadderPolicy
from .tournament import TournamentPolicy
from .validation import ValidationPolicy

#: Every kind's policy, registered when Django starts (``web/pipeline/apps.py``).
POLICIES: tuple[KindPolicy, ...] = (
    ValidationPolicy(),
    LadderPolicy(),
    ChallengePolicy(),
    TournamentPolicy(),
)
