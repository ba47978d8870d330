from __future__ import annotations

from django.urls import path

from . import bot_page, views

urlpatterns = [
    path("", views.leaderboard, name="leaderboard"),
    path("leaderboard/<str:game>/", views.leaderboard, name="leaderboard-game"),
    path("bots/<int:bot_id>/", bot_page.bot_detail, name="bot-detail"),
]
