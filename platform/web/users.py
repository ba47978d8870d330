"""The user of a request that only signed-in users reach: a page behind ``login_required``,
an API view or write behind ``IsAuthenticated`` (or ``IsAuthenticatedOrReadOnly``). Django
types ``request.user`` as a user or ``AnonymousUser``; :func:`signed_in` tells mypy which,
and checks nothing at run time (the decorator or permission class already has)."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from django.http import HttpRequest
from rest_framework.request import Request


def signed_in(request: HttpRequest | Request) -> User:
    """``request.user``, known to be signed in."""
    return cast(User, request.user)
