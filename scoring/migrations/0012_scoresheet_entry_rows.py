"""A copy of each sheet's item and dimension rows on the sheet (read by its saves); null
until the sheet's next write, which reads the rows themselves."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0011_sheet_event_changes"),
    ]

    operations = [
        migrations.AddField(
            model_name="scoresheet",
            name="entry_rows",
            field=models.JSONField(blank=True, editable=False, null=True),
        ),
    ]
