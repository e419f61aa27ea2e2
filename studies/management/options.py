"""Options the management commands of several apps share."""

from __future__ import annotations

from django.core.management.base import CommandError

from studies.models import Study


def study_from_option(name: str | None, *, create: bool = False) -> Study:
    """The study named, or the only study there is."""
    if name:
        study = Study.objects.filter(name=name).first()
        if study is None:
            if not create:
                raise CommandError(
                    f"Unknown study {name!r}. Known: {', '.join(Study.objects.values_list('name', flat=True)) or 'none'}"
                )
            study = Study.objects.create(name=name)
        return study
    studies = list(Study.objects.all()[:2])
    if len(studies) == 1:
        return studies[0]
    if not studies:
        raise CommandError("No study exists yet: pass --study NAME --create-missing, or run seed_demo.")
    raise CommandError("Several studies exist: choose one with --study NAME.")
