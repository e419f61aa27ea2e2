"""Raters, assignments, score sheets, their raw entries and the audit trail."""

from __future__ import annotations

import re
import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from studies.models import Response, Scenario, Study, new_blind_code


def random_order_key() -> int:
    return secrets.randbelow(2**31 - 1)


# what a rater ID may be: the invitation CSV, the imports and the file names of workbooks use it
RATER_CODE = re.compile(r"^[A-Za-z0-9-]{1,16}$")


class RaterProfile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rater_profile"
    )
    rater_code = models.CharField(
        _("rater ID"),
        max_length=16,
        unique=True,
        null=True,
        blank=True,
        help_text=_("The study's rater ID, e.g. H01."),
    )
    can_calibrate = models.BooleanField(_("may calibrate"), default=False)
    language = models.CharField(_("language"), max_length=10, blank=True, choices=settings.LANGUAGES)

    class Meta:
        verbose_name = _("rater profile")

    def __str__(self) -> str:
        return self.rater_code or self.user.get_username()


class ScoringGroup(models.Model):
    """The responses of one scenario under one condition, scored by one rater pair."""

    study = models.ForeignKey(Study, on_delete=models.PROTECT, related_name="scoring_groups")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="scoring_groups")
    condition = models.ForeignKey(
        "studies.Condition", on_delete=models.PROTECT, related_name="scoring_groups"
    )
    rater_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    rater_b = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    archived_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["study", "scenario__code", "condition__letter"]
        verbose_name = _("scoring group")
        constraints = [
            models.UniqueConstraint(
                fields=["study", "scenario", "condition"],
                condition=Q(archived_at__isnull=True),
                name="one_active_pair_per_group",
            ),
            models.CheckConstraint(condition=~Q(rater_a=models.F("rater_b")), name="pair_of_two_raters"),
        ]

    def __str__(self) -> str:
        return f"{self.scenario.code}/{self.condition.letter}"


class AssignmentRole(models.TextChoices):
    PRIMARY = "primary", _("Primary")
    CALIBRATION = "calibration", _("Calibration")
    TRAINING = "training", _("Training")
    JUDGE = "judge", _("LLM judge")
    # a rater's submitted response served again under a new blind code (beyond the study):
    # it measures the rater against themself and never counts anywhere else
    RETEST = "retest", _("Test-retest probe")


# work that is never a study's data: a judge's sheets and a rater's test-retest probes
_NOT_STUDY_DATA = (AssignmentRole.JUDGE, AssignmentRole.RETEST)


class HumanAssignmentManager(models.Manager["Assignment"]):
    """The default manager leaves out LLM-judge assignments and test-retest probes, so no
    agreement statistic, final score, routing or export can pick them up by forgetting a
    filter. The judging app (and a study that opts in) reads judges through ``all_objects``;
    a rater's own pages read their probes through ``rater_work``."""

    def get_queryset(self) -> models.QuerySet[Assignment]:
        return super().get_queryset().exclude(role__in=_NOT_STUDY_DATA)


class RaterWorkManager(models.Manager["Assignment"]):
    """What a human rater works on: their probes included, judges left out (the queue, the
    sheet page, its saves). Nothing computed from sheets reads through it."""

    def get_queryset(self) -> models.QuerySet[Assignment]:
        return super().get_queryset().exclude(role=AssignmentRole.JUDGE)


class Assignment(models.Model):
    """One rater asked to score one response. Archived, never deleted."""

    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    response = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="assignments")
    role = models.CharField(max_length=12, choices=AssignmentRole.choices, default=AssignmentRole.PRIMARY)
    # What this rater sees for the response: each rater (and the calibrator) of one response
    # has a different, unguessable code, so no two raters can compare notes by code.
    blind_code = models.CharField(
        _("blind code"), max_length=16, unique=True, default=new_blind_code, editable=False
    )
    group = models.ForeignKey(
        ScoringGroup, null=True, blank=True, on_delete=models.PROTECT, related_name="assignments"
    )
    order_key = models.PositiveIntegerField(
        default=random_order_key, help_text=_("Per-rater random queue order.")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    archived_reason = models.TextField(blank=True)
    # a test-retest probe: the rater's earlier assignment whose response it serves again
    retest_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="retests", editable=False
    )

    all_objects = models.Manager()  # judges' work and probes included
    objects = HumanAssignmentManager()
    rater_work = RaterWorkManager()

    class Meta:
        default_manager_name = "objects"
        ordering = ["rater", "order_key"]
        verbose_name = _("assignment")
        constraints = [
            models.UniqueConstraint(
                fields=["rater", "response"],
                condition=Q(archived_at__isnull=True) & ~Q(role="retest"),
                name="one_active_assignment_per_rater",
            ),
            # a probe beside the rater's own assignment of the response; one per response at a time
            models.UniqueConstraint(
                fields=["rater", "response"],
                condition=Q(archived_at__isnull=True, role="retest"),
                name="one_active_retest_per_rater",
            ),
            models.UniqueConstraint(
                fields=["response"],
                condition=Q(archived_at__isnull=True, role="calibration"),
                name="one_active_calibration_per_response",
            ),
        ]
        indexes = [models.Index(fields=["rater", "archived_at"])]

    def __str__(self) -> str:
        return f"{self.rater} → {self.response} ({self.role})"

    @property
    def is_active(self) -> bool:
        return self.archived_at is None


class SheetStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    SUBMITTED = "submitted", _("Submitted")


class SheetSource(models.TextChoices):
    WEB = "web", _("Web form")
    WORKBOOK = "workbook", _("Offline workbook")
    IMPORT = "import", _("Score import")
    JUDGE = "judge", _("LLM judge")


class SheetLevel(models.TextChoices):
    # the rubric's items classified and scored, the dimensions computed from them (every sheet
    # scored here, and the study's data_A.json)
    ITEMS = "items", _("Items")
    # the dimension scores alone, as the study's Excel sheets hold them in their score cells
    # (``scoring.workbooks.release_layout``): nothing to edit, no item to compare
    DIMENSIONS = "dimensions", _("Dimension scores only")


class HumanSheetManager(models.Manager["ScoreSheet"]):
    """Sheets of the study's data (see HumanAssignmentManager); ``all_objects`` has all."""

    def get_queryset(self) -> models.QuerySet[ScoreSheet]:
        return super().get_queryset().exclude(assignment__role__in=_NOT_STUDY_DATA)


class RaterSheetManager(models.Manager["ScoreSheet"]):
    """Sheets a human rater works on, probes included (see RaterWorkManager)."""

    def get_queryset(self) -> models.QuerySet[ScoreSheet]:
        return super().get_queryset().exclude(assignment__role=AssignmentRole.JUDGE)


class ScoreSheet(models.Model):
    """A rater's scoring of one response. ``version`` rises with every saved change
    (optimistic locking); ``totals`` caches ``studies.rubric.sheet_totals``."""

    assignment = models.OneToOneField(Assignment, on_delete=models.PROTECT, related_name="sheet")
    status = models.CharField(
        max_length=10, choices=SheetStatus.choices, default=SheetStatus.DRAFT, db_index=True
    )
    version = models.PositiveIntegerField(default=0)
    rubric_version = models.CharField(max_length=40)
    source = models.CharField(max_length=10, choices=SheetSource.choices, default=SheetSource.WEB)
    level = models.CharField(max_length=10, choices=SheetLevel.choices, default=SheetLevel.ITEMS)
    condition_phrase = models.TextField(_("Condition Phrase"), blank=True)
    stem = models.TextField(_("Stem"), blank=True)
    kvp = models.TextField(_("Key Verb Phrase"), blank=True)
    purpose = models.TextField(_("Purpose"), blank=True)
    # a rubric's copied texts of its own names (the four above are CGPST's): key -> text
    other_texts = models.JSONField(
        default=dict, blank=True, help_text=_("Copied texts the rubric names beyond the four CGPST fields.")
    )
    comments = models.JSONField(default=dict, blank=True, help_text=_("Step comments keyed by step number."))
    totals = models.JSONField(default=dict, blank=True)
    # The sheet's entries as its ItemScore and DimensionScore rows hold them, written by
    # every write of a sheet ({"items": [{"step", "position", "category", ...}], "dims": {key:
    # value}}): a draft's entries live here (its rows are written at submit, and by a
    # correction of a submitted sheet; scoring/services/sheet_rows.py), and a save reads
    # them with the sheet it locks; null for a sheet not written since it was added: its
    # rows are read.
    entry_rows = models.JSONField(null=True, blank=True, editable=False)
    overall = models.PositiveSmallIntegerField(null=True, blank=True)
    last_batch_id = models.CharField(
        max_length=64,
        blank=True,
        help_text=_("Client id of the last applied autosave batch (makes re-sends idempotent)."),
    )
    # SHA-256 of the last batch's changes: a re-sent batch id with other changes is refused
    last_batch_digest = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    # time the rater actively worked on the sheet in the web page (focus and input; idle
    # pauses of a few minutes left out): the scoring cost a lab reports
    active_seconds = models.PositiveIntegerField(_("active time (s)"), default=0)
    # when the page last reported active time: a report adds at most the wall-clock time
    # since then (or since the sheet was opened)
    active_reported_at = models.DateTimeField(null=True, blank=True)

    all_objects = models.Manager()  # judges' work and probes included
    objects = HumanSheetManager()
    rater_work = RaterSheetManager()

    class Meta:
        default_manager_name = "objects"
        verbose_name = _("score sheet")

    def __str__(self) -> str:
        return f"Sheet {self.pk} ({self.status})"

    TEXT_FIELDS = ("condition_phrase", "stem", "kvp", "purpose")  # columns; any other key: other_texts

    def copied_text(self, key: str) -> str:
        """A copied text by its rubric key, wherever the sheet keeps it."""
        if key in self.TEXT_FIELDS:
            return str(getattr(self, key))
        return str((self.other_texts or {}).get(key, ""))

    def copied_text_set(self, key: str, value: str) -> str:
        """Set a copied text by its rubric key; the name of the field it went to (for a save)."""
        if key in self.TEXT_FIELDS:
            setattr(self, key, value)
            return key
        self.other_texts = {**(self.other_texts or {}), key: value}
        return "other_texts"

    @property
    def is_submitted(self) -> bool:
        return self.status == SheetStatus.SUBMITTED


class ItemScore(models.Model):
    """A rater's entry for one item of an ideas step (CGPST's Step 1, 3: classification,
    elaboration, originality) or of a criteria step (Step 4: correctly written, relevance; a
    rubric's item scores of other names in ``other_scores``)."""

    sheet = models.ForeignKey(ScoreSheet, on_delete=models.CASCADE, related_name="item_scores")
    step = models.PositiveSmallIntegerField()
    position = models.PositiveSmallIntegerField()
    category = models.CharField(max_length=60, blank=True)
    invalid_type = models.CharField(max_length=20, blank=True)
    elaboration = models.PositiveSmallIntegerField(null=True, blank=True)
    originality = models.PositiveSmallIntegerField(null=True, blank=True)
    correctly_written = models.PositiveSmallIntegerField(null=True, blank=True)
    relevance = models.PositiveSmallIntegerField(null=True, blank=True)
    other_scores = models.JSONField(
        default=dict,
        blank=True,
        help_text="A criteria item's scores of any other name than the two above, by the rubric's keys.",
    )
    comment = models.TextField(blank=True)

    class Meta:
        ordering = ["sheet", "step", "position"]
        constraints = [
            models.UniqueConstraint(fields=["sheet", "step", "position"], name="item_score_unique")
        ]

    def __str__(self) -> str:
        return f"sheet {self.sheet_id} step {self.step} #{self.position}"


class DimensionScore(models.Model):
    """A directly scored dimension (Step 2, Step 5, Step 6)."""

    sheet = models.ForeignKey(ScoreSheet, on_delete=models.CASCADE, related_name="dimension_scores")
    dimension = models.CharField(max_length=40)
    value = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["sheet", "dimension"]
        constraints = [models.UniqueConstraint(fields=["sheet", "dimension"], name="dimension_score_unique")]

    def __str__(self) -> str:
        return f"sheet {self.sheet_id} {self.dimension}={self.value}"


class EventKind(models.TextChoices):
    CREATE = "create", _("Created")
    CHANGE = "change", _("Changed")
    SUBMIT = "submit", _("Submitted")
    REOPEN = "reopen", _("Reopened")
    CORRECT = "correct", _("Corrected by an admin")
    IMPORT = "import", _("Imported")
    ARCHIVE = "archive", _("Archived")


class SheetEvent(models.Model):
    """The audit trail: every write to a sheet, with who and when. A save (autosave,
    import, correction) is one event holding its list of changes (``changes``: each
    ``{"path", "old", "new"}``), so a whole-sheet save writes one audit row, not one
    per field; a submit records the sheet's overall total as its one change."""

    # indexed by ``sheet_event_by_kind`` (sheet, kind, id), which also serves sheet-only lookups
    sheet = models.ForeignKey(ScoreSheet, on_delete=models.PROTECT, related_name="events", db_index=False)
    # not indexed: only deleting a user (rare: accounts are deactivated) looks events up by actor
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,
    )
    at = models.DateTimeField(auto_now_add=True)
    kind = models.CharField(max_length=10, choices=EventKind.choices)
    changes = models.JSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=0)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["sheet", "id"]
        verbose_name = _("sheet event")
        indexes = [
            # the queue's "reopened" and the page's reopen notice look for a sheet's
            # reopen and submit events among its change events
            models.Index(fields=["sheet", "kind", "id"], name="sheet_event_by_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} v{self.version} ({len(self.changes or [])} changes)"


class FlagResolution(models.TextChoices):
    OPEN = "", _("Open")
    WITHDRAWN = "withdrawn", _("Response withdrawn")
    DISMISSED = "dismissed", _("Dismissed")


class ResponseFlag(models.Model):
    """A rater's report that a response is broken or unreadable; an admin withdraws the
    response from the study (archived, never deleted) or dismisses the report."""

    response = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="flags")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(_("what is wrong"))
    created_at = models.DateTimeField(auto_now_add=True)
    resolution = models.CharField(max_length=10, choices=FlagResolution.choices, blank=True, default="")
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution_note = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("response flag")

    def __str__(self) -> str:
        return f"Flag {self.pk} on response {self.response_id}"
