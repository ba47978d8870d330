"""Deals keyed with DEAL_KEY (web/matches/deals.py), and the ``held`` status of a deal set's
rotation played before the rest of its set.

Matches already played, or in play, dealt from their stored seed: it is their published
``deal_seed`` from now on. So are the queued rotations of a deal set that has begun (a set
is one deal). Every other queued match was shown with its seed: it is dealt afresh, keyed.
"""

import secrets

from django.db import migrations, models

SEED_BITS = 48  # cucumbers.match.SEED_BITS when this was written


def publish_or_redeal(apps, schema_editor):  # type: ignore[no-untyped-def]
    Match = apps.get_model("matches", "Match")
    begun_sets = set(
        Match.objects.exclude(status="queued")
        .exclude(deal_set__isnull=True)
        .values_list("deal_set", flat=True)
    )
    for match in Match.objects.all().only("pk", "status", "deal_set", "seed").iterator():
        if match.status != "queued" or match.deal_set in begun_sets:
            Match.objects.filter(pk=match.pk).update(deal_seed=match.seed)
    fresh: dict[object, int] = {}
    for match in Match.objects.filter(status="queued", deal_seed__isnull=True).only(
        "pk", "deal_set"
    ):
        key = match.deal_set or match.pk
        seed = fresh.setdefault(key, secrets.randbits(SEED_BITS))
        Match.objects.filter(pk=match.pk).update(seed=seed)


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0011_match_debut"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="deal_seed",
            field=models.BigIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.AlterField(
            model_name="match",
            name="status",
            field=models.CharField(
                choices=[
                    ("queued", "Queued"),
                    ("running", "Running"),
                    ("held", "Played, results held"),
                    ("finished", "Finished"),
                    ("failed", "Failed"),
                ],
                default="queued",
                max_length=10,
            ),
        ),
        migrations.RunPython(publish_or_redeal, migrations.RunPython.noop),
    ]
