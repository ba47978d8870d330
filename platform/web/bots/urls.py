from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("bots/new/", views.bot_create, name="bot-create"),
    path("bots/<int:bot_id>/upload/", views.bot_upload, name="bot-upload"),
    path("bots/<int:bot_id>/active/", views.bot_set_active, name="bot-set-active"),
    path("bots/<int:bot_id>/delete/", views.bot_delete, name="bot-delete"),
    path(
        "bots/<int:bot_id>/versions/<int:number>/source/",
        views.version_source,
        name="version-source",
    ),
    path("my/bots/status.json", views.my_versions_status, name="my-versions-status"),
]
