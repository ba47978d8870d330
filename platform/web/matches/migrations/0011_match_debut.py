from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0010_match_arena_host"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="debut",
            field=models.BooleanField(
                default=False,
                help_text="a new version's first rated matches: sent ahead of the routine ladder",
            ),
        ),
    ]
