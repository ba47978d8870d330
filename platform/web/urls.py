from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("web.api.urls")),
    path("", include("web.accounts.urls")),
    path("", include("web.bots.urls")),
    path("", include("web.matches.urls")),
    path("", include("web.pages.urls")),
]
