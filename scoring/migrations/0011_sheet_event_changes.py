"""One audit event per save: the per-field change events of one save (same sheet, kind,
version, time, actor and note) become one event whose ``changes`` lists them, in the order
they were written; any other event with a value keeps it as its one change. Then the
per-field columns go."""

from django.db import migrations, models

# the kinds a save writes one event per changed field for (before this migration)
SAVE_KINDS = ("change", "correct", "import")


def _change(event) -> dict:
    return {"path": event.path, "old": event.old_value, "new": event.new_value}


def events_merge(apps, schema_editor):
    SheetEvent = apps.get_model("scoring", "SheetEvent")
    db = schema_editor.connection.alias
    events = SheetEvent.objects.using(db).order_by("sheet_id", "id")
    merged: dict[tuple, object] = {}  # a save's key -> its first event (one sheet at a time)
    sheet_id = None
    extra: list[int] = []
    for event in events.iterator(chunk_size=2000):
        if event.sheet_id != sheet_id:
            sheet_id, merged = event.sheet_id, _flush(SheetEvent, db, merged, extra)
        if event.kind in SAVE_KINDS and event.path:
            key = (event.kind, event.version, event.at, event.actor_id, event.note)
            first = merged.get(key)
            if first is None:
                event.changes = [_change(event)]
                merged[key] = event
            else:
                first.changes.append(_change(event))
                extra.append(event.pk)
        elif event.path or event.old_value is not None or event.new_value is not None:
            event.changes = [_change(event)]
            event.save(update_fields=["changes"])
    _flush(SheetEvent, db, merged, extra)


def _flush(SheetEvent, db, merged: dict, extra: list[int]) -> dict:
    if merged:
        SheetEvent.objects.using(db).bulk_update(list(merged.values()), ["changes"], batch_size=500)
    if extra:
        SheetEvent.objects.using(db).filter(pk__in=extra).delete()
        extra.clear()
    return {}


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0010_assignment_blind_code"),
    ]

    operations = [
        migrations.AddField(
            model_name="sheetevent",
            name="changes",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunPython(events_merge, migrations.RunPython.noop),
        migrations.RemoveField(model_name="sheetevent", name="path"),
        migrations.RemoveField(model_name="sheetevent", name="old_value"),
        migrations.RemoveField(model_name="sheetevent", name="new_value"),
    ]
