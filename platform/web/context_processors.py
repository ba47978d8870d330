"""Values every page template sees."""

from __future__ import annotations

from django.http import HttpRequest

from cucumbers.games import game_choices

from .sandbox import SandboxKind, current_sandbox


def site(request: HttpRequest) -> dict[str, object]:
    """``sandbox_isolated``: False under the process runner, which shows the banner;
    ``game_titles``: the games the engine's registry knows, for the footer."""
    return {
        "sandbox_isolated": current_sandbox() is SandboxKind.DOCKER,
        "game_titles": [label for _, label in game_choices()],
    }
