from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from .models import ApiToken, UsernameSkeleton
from .usernames import is_reserved, skeleton, username_validator


def check_new_username(username: str) -> None:
    """Raise :class:`ValidationError` unless ``username`` is a name nobody has nor looks
    like (its pattern is :data:`~web.accounts.usernames.username_validator`'s)."""
    if is_reserved(username):
        raise forms.ValidationError("This name is reserved.", code="reserved")
    if UsernameSkeleton.objects.filter(skeleton=skeleton(username)).exists():
        raise forms.ValidationError(
            "This name is taken, or looks too much like a name that is.", code="lookalike"
        )


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

    def validate_password_for_user(self, user: User, **kwargs: Any) -> None:
        # A password that is too short or too common is the password field's problem: its
        # message goes under it, not under the confirmation (Django's choice).
        kwargs["password_field_name"] = "password1"
        super().validate_password_for_user(user, **kwargs)  # type: ignore[misc]  # not in the stubs

    def clean_username(self) -> str | None:  # type: ignore[override]  # None when taken, at run time
        username: str | None = super().clean_username()  # None: taken (case aside)
        if username is not None:
            check_new_username(username)
        return username


class TokenForm(forms.ModelForm):  # type: ignore[type-arg]  # not generic at run time
    class Meta:
        model = ApiToken
        fields = ("name",)


class _ConfirmedByPassword(forms.Form):
    """A change the signed-in user confirms with their password (a session left open on a
    shared computer must not be enough to take the account over)."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, user: User, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password.", code="wrong_password")
        return password


class EmailChangeForm(_ConfirmedByPassword):
    email = forms.EmailField(
        label="E-mail address",
        required=False,
        help_text="Where a password reset link is sent; never shown to anyone.",
    )
    field_order = ["email", "password"]


class CloseAccountForm(_ConfirmedByPassword):
    confirm = forms.CharField(label="Type your username to confirm")

    def clean_confirm(self) -> str:
        confirm: str = self.cleaned_data["confirm"]
        if confirm != self.user.username:
            raise forms.ValidationError("Type your username exactly.", code="no_confirmation")
        return confirm
