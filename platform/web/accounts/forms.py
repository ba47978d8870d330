from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from .models import ApiToken


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]  # not generic at run time
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class TokenForm(forms.ModelForm):  # type: ignore[type-arg]  # not generic at run time
    class Meta:
        model = ApiToken
        fields = ("name",)
