"""TeamFusion's default preference profiles."""

from __future__ import annotations

from django.db import transaction

from generation.models import PreferenceProfile

# TeamFusion's team: one proxy per profile. Admins edit these (Django admin or the
# generation page); they are created only when no profile exists at all.
DEFAULT_PREFERENCE_PROFILES = [
    (
        "Community Advocate",
        "I care most about the people the scenario affects: vulnerable and local communities, fairness, "
        "health and everyday life. I prefer ideas that involve the people concerned, respect their culture "
        "and rights, and spread costs and benefits fairly. I distrust solutions that only work for experts "
        "or the wealthy.",
    ),
    (
        "Bold Innovator",
        "I want original, even unconventional ideas: new technologies, new institutions, surprising "
        "combinations from other fields. I would rather take a calculated risk on an idea that could change "
        "the situation than settle for an incremental fix everybody has heard before.",
    ),
    (
        "Pragmatic Planner",
        "I judge ideas by whether they can actually be done: clear responsibilities, realistic costs and "
        "timelines, measurable results, and a first step that can start now. I prefer focused, well-argued "
        "answers that respect every requirement of the task over long lists of vague ideas.",
    ),
]


def preference_profiles_ensure_defaults() -> list[PreferenceProfile]:
    with transaction.atomic():
        if not PreferenceProfile.objects.exists():
            for order, (name, preferences) in enumerate(DEFAULT_PREFERENCE_PROFILES, start=1):
                PreferenceProfile.objects.create(name=name, preferences=preferences, order=order)
        return list(PreferenceProfile.objects.filter(is_active=True))
