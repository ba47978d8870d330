"""Staff create and follow tournaments here (or with ``manage.py tournament``)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import Entry, Tournament, TournamentMatch, TournamentStatus, new_seed


class EntryInline(admin.TabularInline):  # type: ignore[type-arg]  # not generic at run time
    model = Entry
    extra = 0
    fields = ("bot", "name", "version", "entered_at")
    readonly_fields = ("name", "version", "entered_at")
    raw_id_fields = ("bot",)


class TableInline(admin.TabularInline):  # type: ignore[type-arg]  # not generic at run time
    model = TournamentMatch
    extra = 0
    fields = ("round", "table", "match", "entries")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # not generic at run time
    list_display = ("name", "game", "status", "entry_deadline", "starts_at", "rated")
    list_filter = ("status", "game")
    search_fields = ("name",)
    exclude = ("seed", "created_by")
    readonly_fields = ("status", "started_at", "finished_at", "cancel_reason", "created_at")
    inlines = [EntryInline, TableInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Tournament | None = None) -> Any:
        if obj is not None and obj.status != TournamentStatus.OPEN:
            # Started: what was played is history; only the words may change.
            return [
                f.name for f in Tournament._meta.fields if f.name not in ("name", "description")
            ]
        return self.readonly_fields

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if not change:
            obj.seed = new_seed()
            obj.created_by = request.user  # type: ignore[assignment]
        super().save_model(request, obj, form, change)
