"""Every table named after its app; the task outbox moves to ``core`` with its pending rows."""

from django.db import migrations


def outbox_rows_copy(apps, schema_editor):
    """Pending and recently sent tasks go on in ``core``'s outbox."""
    old = apps.get_model("studies", "TaskOutbox")
    new = apps.get_model("core", "TaskOutbox")
    fields = ["task_name", "args", "countdown", "created_at", "sent_at", "claimed_until", "attempts", "last_error"]
    new.objects.bulk_create(
        [new(**{name: getattr(row, name) for name in fields}) for row in old.objects.order_by("pk")],
        batch_size=500,
    )


class Migration(migrations.Migration):

    dependencies = [
        ('studies', '0006_endpoint_key_env_prefix'),
        ('core', '0001_initial'),
    ]

    operations = [
        migrations.RunPython(outbox_rows_copy, migrations.RunPython.noop),
        migrations.DeleteModel(
            name='TaskOutbox',
        ),
        migrations.RenameIndex(
            model_name='response',
            new_name='studies_res_study_i_0f32d6_idx',
            old_name='scoring_res_study_i_1f98fc_idx',
        ),
        migrations.AlterModelTable(
            name='condition',
            table=None,
        ),
        migrations.AlterModelTable(
            name='modelendpoint',
            table=None,
        ),
        migrations.AlterModelTable(
            name='response',
            table=None,
        ),
        migrations.AlterModelTable(
            name='responseitem',
            table=None,
        ),
        migrations.AlterModelTable(
            name='scenario',
            table=None,
        ),
        migrations.AlterModelTable(
            name='study',
            table=None,
        ),
    ]
