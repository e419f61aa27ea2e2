"""Training's models move to the ``training`` app: their tables are renamed after it here and
``training 0002`` takes them into its state, rows kept."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0008_sheet_limits_and_corrections"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.AlterModelTable(name="trainingsettings", table="training_trainingsettings"),
                migrations.AlterModelTable(name="trainingresponse", table="training_trainingresponse"),
                migrations.AlterModelTable(name="raterqualification", table="training_raterqualification"),
            ],
            state_operations=[
                migrations.RemoveField(
                    model_name='trainingresponse',
                    name='created_by',
                ),
                migrations.RemoveField(
                    model_name='trainingresponse',
                    name='reference_sheets',
                ),
                migrations.RemoveField(
                    model_name='trainingresponse',
                    name='response',
                ),
                migrations.RemoveField(
                    model_name='trainingresponse',
                    name='source',
                ),
                migrations.RemoveField(
                    model_name='trainingresponse',
                    name='study',
                ),
                migrations.RemoveField(
                    model_name='trainingsettings',
                    name='study',
                ),
                migrations.DeleteModel(
                    name='RaterQualification',
                ),
                migrations.DeleteModel(
                    name='TrainingResponse',
                ),
                migrations.DeleteModel(
                    name='TrainingSettings',
                ),
            ],
        ),
    ]
