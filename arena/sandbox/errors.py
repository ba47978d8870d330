"""The sandbox's exceptions. A bot's misbehaviour is never one of these: it is a fault for
its seat. These are for the platform's own problems (bad settings, an engine that cannot be
reached by the reaper)."""

from __future__ import annotations


class SandboxError(Exception):
    """The sandbox cannot do what was asked; the message says why."""


class SettingsError(SandboxError, ValueError):
    """A sandbox setting (usually a ``CUCUMBERS_SANDBOX_*`` variable) has a bad value."""
