"""Staff's view of move reviews: read-only (the workers write them; an owner asks again)."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from .models import Review


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # not generic at run time
    list_display = ("id", "match", "participant", "status", "requested_by", "requested_at")
    list_filter = ("status",)
    search_fields = ("requested_by__username",)
    readonly_fields = [field.name for field in Review._meta.fields]
    exclude = ("result",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
