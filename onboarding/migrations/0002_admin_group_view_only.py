"""The Admin role group keeps only the ``view_*`` permissions: it used to hold every
permission of auth (an invited admin could set a superuser's password or promote
itself in the Django admin) and of the product's apps."""

from django.db import migrations


def forwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for group in Group.objects.filter(name="Admin"):
        group.permissions.remove(*group.permissions.exclude(codename__startswith="view_"))


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("onboarding", "0001_invitation"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
