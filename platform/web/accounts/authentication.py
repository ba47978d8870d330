"""DRF authentication by API token: ``Authorization: Token <token>`` (or ``Bearer``)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from .models import ApiToken

KEYWORDS = ("token", "bearer")


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """A missing header means "not this scheme" (anonymous or session); a malformed, unknown
    or revoked token is a 401 with a message that says which without revealing anything."""

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].decode(errors="replace").lower() not in KEYWORDS:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(
                "malformed Authorization header: use 'Token <your token>'"
            )
        try:
            token = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("the token has characters it never has") from None
        row = ApiToken.authenticate(token)
        if row is None:
            raise exceptions.AuthenticationFailed(
                "invalid or revoked token: create a new one on your account's token page"
            )
        return row.user, row

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) to anonymous writes, with the scheme to use.
        return 'Token realm="api"'
