from __future__ import annotations

from django import forms

from .models import NoticeKind, OptOut


class NoticeChoicesForm(forms.Form):
    """The account page's choice of mails: every kind, ticked while it is on."""

    kinds = forms.MultipleChoiceField(
        choices=NoticeKind.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="E-mail me when",
    )

    @classmethod
    def for_user(cls, user_id: int) -> NoticeChoicesForm:
        off = set(OptOut.objects.filter(user_id=user_id).values_list("kind", flat=True))
        return cls(initial={"kinds": [kind for kind in NoticeKind.values if kind not in off]})
