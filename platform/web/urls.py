from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path

from . import health


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page says."""
    return HttpResponsePermanentRedirect(static("web/cucumber.svg"))


# Errors Django answers itself (no view matched, a request it refuses, a crash): JSON in the
# API's one shape under /api/, the site's pages elsewhere.
handler400 = "web.api.errors.bad_request"
handler404 = "web.api.errors.page_not_found"
handler500 = "web.api.errors.server_error"

urlpatterns = [
    path("favicon.ico", favicon),
    path("health/live", health.live, name="health-live"),
    path("health/ready", health.ready, name="health-ready"),
    path("admin/", admin.site.urls),
    path("api/", include("web.api.urls")),
    path("", include("web.accounts.urls")),
    path("", include("web.bots.urls")),
    path("", include("web.matches.urls")),
    path("", include("web.pipeline.urls")),
    path("", include("web.pages.urls")),
    path("", include("web.tournaments.urls")),
    path("", include("web.notifications.urls")),
    path("", include("web.reviews.urls")),
]
