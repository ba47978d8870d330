from __future__ import annotations

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from . import views
from .stats import BotStatsView

router = DefaultRouter()
router.register("bots", views.BotViewSet, basename="api-bot")
router.register(r"bots/(?P<bot_pk>\d+)/versions", views.BotVersionViewSet, basename="api-version")
router.register("matches", views.MatchViewSet, basename="api-match")
router.register("tokens", views.TokenViewSet, basename="api-token")

urlpatterns = [
    path("leaderboard/", views.LeaderboardView.as_view(), name="api-leaderboard"),
    path("uploads/", views.UploadView.as_view(), name="api-upload"),
    path("challenges/", views.ChallengeView.as_view(), name="api-challenge"),
    path("bots/<int:bot_pk>/stats/", BotStatsView.as_view(), name="api-bot-stats"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include(router.urls)),
]
