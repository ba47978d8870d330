from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import Bot, BotVersion, VersionStatus
from .signals import version_submitted

#: Statuses an admin may send back to validation (an active or retired version has passed).
REQUEUEABLE = (VersionStatus.QUEUED, VersionStatus.VALIDATING, VersionStatus.REJECTED)


class VersionInline(admin.TabularInline):  # type: ignore[type-arg]  # not generic at run time
    model = BotVersion
    fields = ("number", "status", "filename", "size", "sha256", "created_at", "rejection_kind")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # not generic at run time
    list_display = ("name", "owner", "game", "active", "rating", "games", "active_version")
    list_filter = ("game", "active")
    search_fields = ("name", "owner__username")
    list_select_related = ("owner", "active_version")
    readonly_fields = ("active_version", "created_at")
    raw_id_fields = ("owner",)
    inlines = [VersionInline]
    actions = ["disable", "enable"]

    @admin.action(description="Disable the selected bots (they stop playing)")
    def disable(self, request: HttpRequest, queryset: QuerySet[Bot]) -> None:
        self.message_user(request, f"{queryset.update(active=False)} bot(s) disabled.")

    @admin.action(description="Enable the selected bots")
    def enable(self, request: HttpRequest, queryset: QuerySet[Bot]) -> None:
        self.message_user(request, f"{queryset.update(active=True)} bot(s) enabled.")


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # not generic at run time
    list_display = ("__str__", "status", "size", "created_at", "validated_at", "rejection_kind")
    list_filter = ("status", "rejection_kind", "bot__game")
    search_fields = ("bot__name", "bot__owner__username", "sha256")
    list_select_related = ("bot__owner",)
    actions = ["requeue_validation"]

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> list[str]:
        # A version is immutable: the admin reads it and requeues it, nothing else.
        return [field.name for field in BotVersion._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Requeue validation of the selected versions")
    def requeue_validation(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        ids = list(queryset.filter(status__in=REQUEUEABLE).values_list("pk", flat=True))
        with transaction.atomic():
            BotVersion.objects.filter(pk__in=ids).update(
                status=VersionStatus.QUEUED,
                validation_started_at=None,
                rejection_kind="",
                rejection_detail="",
                stderr_tail="",
            )
            for version in BotVersion.objects.filter(pk__in=ids).select_related("bot"):
                # A new match (web/pipeline/kinds/validation.py), sent after the commit.
                version_submitted.send(sender=BotVersion, version=version)
        self.message_user(request, f"{len(ids)} version(s) queued for validation.")


class BotInline(admin.TabularInline):  # type: ignore[type-arg]  # not generic at run time
    model = Bot
    fields = ("name", "game", "active", "rating", "games")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


admin.site.unregister(User)


@admin.register(User)
class PlayerAdmin(UserAdmin):  # type: ignore[type-arg]  # not generic at run time
    inlines = [BotInline]
