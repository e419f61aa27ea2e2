from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("research", "0002_exportjob_file"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="exportjob",
            name="file_path",
        ),
    ]
