"""Each assignment gets its own blind code: the raters and the calibrator of one response
no longer share the response's code. Existing assignments get distinct fresh codes; their
sheets stay reachable under the new codes (old URLs with the response's code now 404)."""

from django.db import migrations, models

import studies.models


def fill_codes(apps, schema_editor):
    Assignment = apps.get_model("scoring", "Assignment")
    Response = apps.get_model("studies", "Response")
    taken = set(Response.objects.values_list("blind_code", flat=True))
    for pk in Assignment.objects.order_by("pk").values_list("pk", flat=True).iterator():
        code = studies.models.new_blind_code()
        while code in taken:
            code = studies.models.new_blind_code()
        taken.add(code)
        Assignment.objects.filter(pk=pk).update(blind_code=code)


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0009_training_models_to_training"),
        ("studies", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="assignment",
            name="blind_code",
            field=models.CharField(editable=False, max_length=16, null=True, verbose_name="blind code"),
        ),
        migrations.RunPython(fill_codes, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="assignment",
            name="blind_code",
            field=models.CharField(
                default=studies.models.new_blind_code,
                editable=False,
                max_length=16,
                unique=True,
                verbose_name="blind code",
            ),
        ),
    ]
