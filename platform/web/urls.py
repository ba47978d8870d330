from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path

from . import health


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page says."""
    return HttpResponsePermanentRedirect(static("web/cucumber.svg"))


urlpatterns = [
    path("favicon.ico", favicon),
    path("health/live", health.live, name="health-live"),
    path("health/ready", health.ready, name="health-ready"),
    path("admin/", admin.site.urls),
    path("api/", include("web.api.urls")),
    path("", include("web.accounts.urls")),
    path("", include("web.bots.urls")),
    path("", include("web.matches.urls")),
    path("", include("web.pages.urls")),
    path("", include("web.tournaments.urls")),
]
