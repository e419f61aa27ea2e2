# Exports move from raw paths on local disk (file_path) to a FileField in Django's
# default storage. Existing rows are kept: a file that lies under MEDIA_ROOT becomes
# that storage name (relative paths were relative to MEDIA_ROOT); a file elsewhere
# cannot be served from the storage, so its job keeps no file (its download is a 404,
# as for a missing file) and is deleted with the other expired jobs. The old column
# goes in the next migration (its own transaction).

from pathlib import Path

from django.conf import settings
from django.db import migrations, models

import research.models


def _media_root() -> Path:
    return Path(settings.MEDIA_ROOT).resolve()


def paths_to_names(apps, schema_editor):
    ExportJob = apps.get_model("research", "ExportJob")
    db = schema_editor.connection.alias
    root = _media_root()
    for job in ExportJob.objects.using(db).exclude(file_path=""):
        path = Path(job.file_path)
        path = (path if path.is_absolute() else root / path).resolve()
        try:
            name = path.relative_to(root).as_posix()
        except ValueError:
            continue  # outside MEDIA_ROOT: not in the storage
        ExportJob.objects.using(db).filter(pk=job.pk).update(file=name)


def names_to_paths(apps, schema_editor):
    ExportJob = apps.get_model("research", "ExportJob")
    db = schema_editor.connection.alias
    root = _media_root()
    for job in ExportJob.objects.using(db).exclude(file=""):
        ExportJob.objects.using(db).filter(pk=job.pk).update(file_path=str(root / job.file.name))


class Migration(migrations.Migration):

    dependencies = [
        ("research", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="exportjob",
            name="file",
            field=models.FileField(blank=True, max_length=300, upload_to=research.models.export_upload_to),
        ),
        migrations.RunPython(paths_to_names, names_to_paths),
    ]
