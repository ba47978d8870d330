from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from .models import ArenaHost


@admin.register(ArenaHost)
class ArenaHostAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # not generic at run time
    list_display = ("name", "created_at", "revoked_at", "note")
    search_fields = ("name", "note")
    readonly_fields = ("created_at",)
    actions = ["revoke"]

    def get_readonly_fields(
        self, request: HttpRequest, obj: ArenaHost | None = None
    ) -> tuple[str, ...]:
        # A host's key is its identity: a new key is a new host (revoke the old one).
        return ("created_at", "name", "public_key") if obj is not None else ("created_at",)

    @admin.action(description="Revoke the selected arena hosts (nothing they sign is accepted)")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ArenaHost]) -> None:
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"{count} arena host(s) revoked.")
