"""The account page's choice of notices, and the unsubscribe link of every notice: it
works without logging in (its signed token names the user and the kind), shows what it will
turn off, and turns it off on POST, which mail clients also send by themselves for a
one-click ``List-Unsubscribe-Post``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from web.users import signed_in

from .forms import NoticeChoicesForm
from .mail import BadUnsubscribeToken, read_unsubscribe_token
from .models import NoticeKind, opt_out, set_choices


@login_required
@require_POST
def notice_choices(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    form = NoticeChoicesForm(request.POST)
    if form.is_valid():
        set_choices(user.pk, set(form.cleaned_data["kinds"]))
        messages.success(request, "Your e-mail choices are saved.")
    else:
        messages.error(request, "Those e-mail choices could not be read; nothing changed.")
    return redirect("account")


# The token is the credential: a forged cross-site POST could only do what the link's
# holder may do anyway, and a mail client's one-click POST carries no CSRF cookie.
@csrf_exempt
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    try:
        user_id, kind = read_unsubscribe_token(token)
    except BadUnsubscribeToken:
        return render(request, "notifications/unsubscribe.html", {"invalid": True}, status=400)
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return render(request, "notifications/unsubscribe.html", {"invalid": True}, status=404)
    done = request.method == "POST"
    if done:
        opt_out(user_id, kind)
    context = {"kind": NoticeKind(kind), "username": user.username, "done": done}
    return render(request, "notifications/unsubscribe.html", context)
