"""Bot pages: creation and upload forms, the owner's controls, the source (owner and staff),
and the live status of the user's versions for My bots (whose page is web/pages/my_bots.py;
the public bot page is web/pages/bot_page.py)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from web.users import signed_in

from . import access
from .deletion import delete_bot
from .errors import UploadError
from .forms import BotCreateForm, UploadForm
from .models import BotVersion
from .uploads import read_upload, upload_version


def _upload_failed(
    request: HttpRequest,
    template: str,
    context: dict[str, object],
    form: UploadForm,
    error: UploadError,
) -> HttpResponse:
    form.add_error(None, error.message)
    return render(request, template, {**context, "form": form}, status=error.http_status)


@login_required
def bot_create(request: HttpRequest) -> HttpResponse:
    form = BotCreateForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            name, data = read_upload(form.cleaned_data["file"])
            version = upload_version(
                signed_in(request),
                name,
                data,
                new_bot_name=form.cleaned_data["name"],
                game=form.cleaned_data["game"],
            )
        except UploadError as error:
            return _upload_failed(request, "bots/create.html", {}, form, error)
        messages.success(request, f"{version} uploaded: validation is queued.")
        return redirect("my-bots")
    return render(request, "bots/create.html", {"form": form})


@login_required
def bot_upload(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = access.owned_bot(request.user, bot_id)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            name, data = read_upload(form.cleaned_data["file"])
            version = upload_version(signed_in(request), name, data, bot=bot)
        except UploadError as error:
            return _upload_failed(request, "bots/upload.html", {"bot": bot}, form, error)
        messages.success(request, f"{version} uploaded: validation is queued.")
        return redirect("my-bots")
    return render(request, "bots/upload.html", {"bot": bot, "form": form})


@login_required
@require_POST
def bot_set_active(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = access.owned_bot(request.user, bot_id)
    bot.active = request.POST.get("active") == "1"
    bot.save(update_fields=["active"])
    state = "active: it plays ranked games again" if bot.active else "inactive: it plays no games"
    messages.success(request, f"{bot} is now {state}.")
    return redirect(bot)


@login_required
def bot_delete(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Confirm (GET), then delete (POST) one of your bots."""
    bot = access.owned_bot(request.user, bot_id)
    if request.method == "POST":
        name = str(bot)
        delete_bot(bot)
        messages.success(request, f"{name} is deleted, with its versions.")
        return redirect("my-bots")
    return render(request, "bots/delete.html", {"bot": bot})


@login_required
def version_source(request: HttpRequest, bot_id: int, number: int) -> HttpResponse:
    version = access.private_version(request.user, bot_id, number)
    return render(
        request, "bots/source.html", {"version": version, "source": version.read_source()}
    )


@login_required
def my_versions_status(request: HttpRequest) -> JsonResponse:
    """The status of the user's latest versions, for the page's small refresher."""
    user = signed_in(request)
    versions = BotVersion.objects.filter(bot__owner=user).order_by("-created_at")[:200]
    return JsonResponse(
        {
            "versions": [
                {
                    "id": v.pk,
                    "status": v.status,
                    "label": v.get_status_display(),
                    "pending": v.is_pending,
                }
                for v in versions
            ]
        }
    )
