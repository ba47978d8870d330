from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("bots/<int:bot_id>/challenge/", views.challenge, name="bot-challenge"),
    path("arena/", views.arena, name="arena"),
    path("arena/status/", views.arena_status, name="arena-status"),
]
