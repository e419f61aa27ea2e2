"""Training: the training set and qualification rule of a study, raters' qualifications, and a
study's own rubric versions (its admin's edits of guidelines and level texts)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.models import ScoreSheet
from studies.models import Response, Study


class RubricRevision(models.Model):
    """A rubric version stored for a study: made by editing texts of another one, or imported
    from a rubric file. Never changed afterwards: sheets keep the version they were opened
    with, so their texts stay."""

    class Origin(models.TextChoices):
        EDITED = "edited", _("texts edited")
        IMPORTED = "imported", _("imported from a file")

    version = models.CharField(_("rubric version"), max_length=40, unique=True)
    study = models.ForeignKey(Study, on_delete=models.PROTECT, related_name="+")
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.EDITED)
    file_name = models.CharField(max_length=200, blank=True, help_text=_("The imported file's name."))
    based_on = models.CharField(max_length=40, blank=True)
    data = models.JSONField()
    changes = models.JSONField(default=list, help_text=_("[path, old text, new text] of every edit."))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["study", "created_at", "id"]
        verbose_name = _("rubric revision")

    def __str__(self) -> str:
        return self.version


class TrainingSettings(models.Model):
    """A study's qualification rule: the PCC a training sheet must reach (empty: the
    study's agreement threshold) on how many different training responses."""

    study = models.OneToOneField(Study, on_delete=models.CASCADE, related_name="training_settings")
    threshold = models.DecimalField(
        _("qualification threshold (PCC)"),
        max_digits=4,
        decimal_places=3,
        null=True,
        blank=True,
        help_text=_("Empty: the study's agreement threshold."),
    )
    required_sheets = models.PositiveSmallIntegerField(_("training sheets required"), default=1)
    # test-retest probes (beyond the study): this share of each rater's submitted responses is
    # served to them again, under a new blind code, once the sheet is this many days old
    retest_percent = models.PositiveSmallIntegerField(
        # xgettext:no-python-format
        _("test-retest probes (% of submitted sheets)"),
        default=0,
    )
    retest_after_days = models.PositiveSmallIntegerField(_("probe after (days)"), default=14)
    retest_alarm_below = models.DecimalField(
        _("drift alarm below intra-rater ICC(3,1)"), max_digits=4, decimal_places=3, default=0.5
    )

    class Meta:
        verbose_name = _("training settings")
        verbose_name_plural = _("training settings")

    def __str__(self) -> str:
        return f"Training settings of {self.study_id}"


# the stored note of a reference that is the mean of expert sheets, in English (the product's
# language for stored text); pages say it in the reader's (``reference_label``)
REFERENCE_MEAN_OF = "mean of "


class TrainingResponse(models.Model):
    """A response of a study's training set: a copy of a scored response that is never
    live (status Withdrawn, so assignment, agreement, final scores and research output
    leave it out), with the reference scores trainees are compared with."""

    study = models.ForeignKey(Study, on_delete=models.PROTECT, related_name="training_responses")
    response = models.OneToOneField(Response, on_delete=models.PROTECT, related_name="training")
    source = models.ForeignKey(Response, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # {"dimensions": {key: float}, "steps": {"1": float, ...}, "overall": float}
    reference = models.JSONField()
    reference_note = models.CharField(_("reference"), max_length=200, blank=True)
    reference_sheets = models.ManyToManyField(ScoreSheet, blank=True, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study", "created_at", "id"]
        verbose_name = _("training response")

    def __str__(self) -> str:
        return f"Training {self.response_id}"

    @property
    def reference_label(self) -> str:
        """The note ("mean of H01, H02", stored in English) in the reader's language."""
        raters = self.reference_note.removeprefix(REFERENCE_MEAN_OF)
        if raters == self.reference_note:
            return self.reference_note
        return gettext("mean of %(raters)s") % {"raters": raters}


class RaterQualification(models.Model):
    """Whether a rater may score a study's live responses: qualified on its training set,
    or let through by an admin (who, when and why are kept)."""

    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="+")
    passed = models.PositiveSmallIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)
    qualified_at = models.DateTimeField(null=True, blank=True)
    override_reason = models.TextField(_("reason"), blank=True)
    override_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    override_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("rater qualification")
        constraints = [models.UniqueConstraint(fields=["rater", "study"], name="one_qualification_per_rater")]

    def __str__(self) -> str:
        return f"{self.rater_id} in {self.study_id}"

    @property
    def may_score_live(self) -> bool:
        return self.qualified_at is not None or self.override_at is not None
