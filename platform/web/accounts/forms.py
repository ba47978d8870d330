from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from .models import ApiToken
from .usernames import check_new_username, username_validator


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]  # not generic at run time
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")
        help_texts = {
            "username": "1-30 ASCII letters, digits and . _ - ; shown on leaderboards.",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Instead of Django's Unicode names: letters from other scripts pass for ours.
        self.fields["username"].validators = [username_validator]
        self.fields["email"].help_text = "Optional; needed to reset a forgotten password."

    def clean_username(self) -> str | None:  # type: ignore[override]  # None when taken, at run time
        username: str | None = super().clean_username()  # None: taken (case aside)
        if username is not None:
            check_new_username(username)
        return username


class TokenForm(forms.ModelForm):  # type: ignore[type-arg]  # not generic at run time
    class Meta:
        model = ApiToken
        fields = ("name",)
