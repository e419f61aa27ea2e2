"""Training's models, moved from ``scoring`` (whose 0009 renamed their tables): state only, every
row kept; their content types follow them (permissions and admin history stay attached), and
the training copies are marked on the response itself."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


MODELS = ("trainingsettings", "trainingresponse", "raterqualification")


def content_types_follow(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MODELS:
        if not ContentType.objects.filter(app_label="training", model=model).exists():
            ContentType.objects.filter(app_label="scoring", model=model).update(app_label="training")


def training_copies_mark(apps, schema_editor):
    Response = apps.get_model("studies", "Response")
    Response.objects.filter(training__isnull=False).update(is_training_copy=True)


class Migration(migrations.Migration):

    dependencies = [
        ('scoring', '0009_training_models_to_training'),
        ('studies', '0008_response_is_training_copy'),
        ('training', '0001_rubric_revisions'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='TrainingResponse',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('reference', models.JSONField()),
                        ('reference_note', models.CharField(blank=True, max_length=200, verbose_name='reference')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('archived_at', models.DateTimeField(blank=True, null=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('reference_sheets', models.ManyToManyField(blank=True, related_name='+', to='scoring.scoresheet')),
                        ('response', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='training', to='studies.response')),
                        ('source', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='studies.response')),
                        ('study', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='training_responses', to='studies.study')),
                    ],
                    options={
                        'verbose_name': 'training response',
                        'ordering': ['study', 'created_at', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='TrainingSettings',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('threshold', models.DecimalField(blank=True, decimal_places=3, help_text="Empty: the study's agreement threshold.", max_digits=4, null=True, verbose_name='qualification threshold (PCC)')),
                        ('required_sheets', models.PositiveSmallIntegerField(default=1, verbose_name='training sheets required')),
                        ('study', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='training_settings', to='studies.study')),
                    ],
                    options={
                        'verbose_name': 'training settings',
                        'verbose_name_plural': 'training settings',
                    },
                ),
                migrations.CreateModel(
                    name='RaterQualification',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('passed', models.PositiveSmallIntegerField(default=0)),
                        ('attempts', models.PositiveSmallIntegerField(default=0)),
                        ('qualified_at', models.DateTimeField(blank=True, null=True)),
                        ('override_reason', models.TextField(blank=True, verbose_name='reason')),
                        ('override_at', models.DateTimeField(blank=True, null=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('override_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('rater', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='studies.study')),
                    ],
                    options={
                        'verbose_name': 'rater qualification',
                        'constraints': [models.UniqueConstraint(fields=('rater', 'study'), name='one_qualification_per_rater')],
                    },
                ),
            ],
        ),
        # Back: the content types keep the label of the app that has the models today.
        migrations.RunPython(content_types_follow, migrations.RunPython.noop),
        migrations.RunPython(training_copies_mark, migrations.RunPython.noop),
    ]
