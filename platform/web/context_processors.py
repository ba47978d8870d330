"""Values every page template sees."""

from __future__ import annotations

from django.http import HttpRequest

from .sandbox import SandboxKind, current_sandbox


def site(request: HttpRequest) -> dict[str, object]:
    """``sandbox_isolated``: False under the process runner, which shows the banner."""
    return {"sandbox_isolated": current_sandbox() is SandboxKind.DOCKER}
