"""A sheet's copy of its item rows by column name instead of in the columns' order: the rows
written as lists (``[step, position, category, ...]``) become objects, and back on reverse."""

from django.db import migrations

# the columns in the order the lists held them (``scoring.services.sheet_rows.item_row``)
COLUMNS = (
    "step", "position", "category", "invalid_type", "elaboration", "originality", "correctly_written",
    "relevance", "comment",
)  # fmt: skip


def _convert(apps, rows_of):
    ScoreSheet = apps.get_model("scoring", "ScoreSheet")
    batch = []
    sheets = ScoreSheet._base_manager.exclude(entry_rows=None).only("pk", "entry_rows")
    for sheet in sheets.iterator(chunk_size=500):
        items = (sheet.entry_rows or {}).get("items") or []
        converted = [rows_of(row) for row in items]
        if converted != items:
            sheet.entry_rows = {**sheet.entry_rows, "items": converted}
            batch.append(sheet)
        if len(batch) >= 500:
            ScoreSheet._base_manager.bulk_update(batch, ["entry_rows"])
            batch = []
    if batch:
        ScoreSheet._base_manager.bulk_update(batch, ["entry_rows"])


def named(apps, schema_editor):
    _convert(apps, lambda row: dict(zip(COLUMNS, row, strict=True)) if isinstance(row, list) else row)


def positional(apps, schema_editor):
    _convert(apps, lambda row: [row[c] for c in COLUMNS] if isinstance(row, dict) else row)


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0014_scoresheet_level"),
    ]

    operations = [migrations.RunPython(named, positional)]
