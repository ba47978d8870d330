from __future__ import annotations

from django.urls import path

from . import bot_page, my_bots, views

urlpatterns = [
    path("", views.home, name="home"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("rules/", views.document, {"slug": "rules"}, name="rules"),
    path("ratings/", views.document, {"slug": "ratings"}, name="ratings"),
    path("docs/<slug:slug>/", views.document, name="doc"),
    path("getting-started/", views.getting_started, name="getting-started"),
    path("sdk/<str:filename>", views.sdk_wheel, name="sdk-wheel"),
    path("leaderboard/<str:game>/", views.leaderboard, name="leaderboard-game"),
    path("bots/<int:bot_id>/", bot_page.bot_detail, name="bot-detail"),
    path("my/bots/", my_bots.my_bots, name="my-bots"),
    path(
        "bots/<int:bot_id>/versions/<int:number>/activate/",
        bot_page.activate_version,
        name="version-activate",
    ),
]
