"""The transactional outbox, moved here from ``studies`` (which copies its rows over)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="TaskOutbox",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("task_name", models.CharField(max_length=200)),
                ("args", models.JSONField(blank=True, default=list)),
                ("countdown", models.FloatField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("sent_at", models.DateTimeField(blank=True, null=True)),
                ("claimed_until", models.DateTimeField(blank=True, null=True)),
                ("attempts", models.PositiveIntegerField(default=0)),
                ("last_error", models.TextField(blank=True)),
            ],
            options={
                "verbose_name": "task dispatch",
                "ordering": ["pk"],
                "indexes": [
                    models.Index(
                        condition=models.Q(("sent_at__isnull", True)), fields=["created_at"], name="core_outbox_pending"
                    ),
                    models.Index(fields=["sent_at"], name="core_outbox_sent"),
                ],
            },
        ),
    ]
