from __future__ import annotations

from django import forms

from .models import GAME_CHOICES


class UploadForm(forms.Form):
    file = forms.FileField(
        label="Bot file (.py)",
        widget=forms.ClearableFileInput(attrs={"accept": ".py"}),
        help_text="One Python file with a subclass of cucumbers.Bot or a play(view) function.",
    )


class BotCreateForm(UploadForm):
    name = forms.CharField(
        max_length=40, help_text="Letters, digits, '-' and '_'; unique among your bots."
    )
    game = forms.ChoiceField(choices=GAME_CHOICES)

    field_order = ["name", "game", "file"]
