from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "web.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save, pre_save

        from .models import record_username_skeleton, revoke_tokens_on_password_change

        pre_save.connect(
            revoke_tokens_on_password_change,
            sender=get_user_model(),
            dispatch_uid="accounts.revoke_tokens_on_password_change",
        )
        post_save.connect(
            record_username_skeleton,
            sender=get_user_model(),
            dispatch_uid="accounts.record_username_skeleton",
        )
