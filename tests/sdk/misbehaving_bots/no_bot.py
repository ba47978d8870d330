"""Defines no bot at all."""

ANSWER = 42
