"""Agreement statistics, calibration decisions and final scores."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from scoring.models import Assignment, ScoreSheet, ScoringGroup
from studies.models import FinalScoreRule, Response, Scenario, Study


class ResponseAgreement(models.Model):
    """PCC between the two primary sheets of a response (23 normalized dimensions)."""

    response = models.OneToOneField(Response, on_delete=models.CASCADE, related_name="agreement")
    sheet_a = models.ForeignKey(
        ScoreSheet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    sheet_b = models.ForeignKey(
        ScoreSheet, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    pcc = models.FloatField(null=True, blank=True)
    p_value = models.FloatField(null=True, blank=True)
    pcc_as_released = models.FloatField(
        null=True,
        blank=True,
        help_text=_("PCC as the release's script normalizes (Purpose / 2); shown beside, never routes."),
    )
    ccc = models.FloatField(
        null=True,
        blank=True,
        help_text=_(
            "Lin's concordance correlation of the same vectors (beyond the study): it falls when one rater is uniformly harsher."
        ),
    )
    reason = models.CharField(max_length=40, blank=True, help_text=_("Why the PCC is undefined, if it is."))
    threshold = models.DecimalField(max_digits=4, decimal_places=3, null=True, blank=True)
    flagged = models.BooleanField(default=False, db_index=True)
    flag_reasons = models.JSONField(
        default=list,
        blank=True,
        help_text=_(
            'Why it is flagged: "pcc" (the study\'s threshold), "ccc" and "total" (the level rule, beyond the '
            'study), "side" (a one-score rubric: the raters on opposite sides of the scale\'s middle).'
        ),
    )
    after_pcc = models.FloatField(
        null=True, blank=True, help_text=_("PCC of the pair used after calibration.")
    )
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("response agreement")

    def __str__(self) -> str:
        return f"PCC {self.response_id}: {self.pcc}"


class GroupAgreement(models.Model):
    """ICC (all six forms) for a scoring group, or for a whole scenario when ``group`` is empty."""

    class Stage(models.TextChoices):
        BEFORE = "before", _("Before calibration")
        AFTER = "after", _("After calibration")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="group_agreements")
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="+")
    group = models.ForeignKey(
        ScoringGroup, null=True, blank=True, on_delete=models.CASCADE, related_name="agreements"
    )
    stage = models.CharField(max_length=8, choices=Stage.choices)
    n_responses = models.PositiveIntegerField(default=0)
    forms = models.JSONField(default=dict, blank=True)
    alpha = models.JSONField(
        default=dict,
        blank=True,
        help_text=_(
            # xgettext:no-python-format
            "Krippendorff's alpha (interval) of the ICC's values with its bootstrap 95% interval (beyond the study)."
        ),
    )
    reason = models.CharField(max_length=80, blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("group agreement")
        constraints = [
            models.UniqueConstraint(
                fields=["study", "scenario", "group", "stage"], name="group_agreement_unique"
            ),
            models.UniqueConstraint(
                fields=["study", "scenario", "stage"],
                condition=models.Q(group__isnull=True),
                name="scenario_agreement_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"ICC {self.scenario_id}/{self.group_id or 'all'} ({self.stage})"


class CalibrationDecision(models.Model):
    """Why and how a flagged response was calibrated; first-pass sheets stay untouched."""

    response = models.OneToOneField(Response, on_delete=models.CASCADE, related_name="calibration_decision")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField(_("reason"), blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("calibration decision")

    def __str__(self) -> str:
        return f"Calibration of {self.response_id}"


class FinalScore(models.Model):
    """The score a response carries into research output, and where it came from."""

    response = models.OneToOneField(Response, on_delete=models.CASCADE, related_name="final_score")
    overall = models.DecimalField(max_digits=6, decimal_places=2)
    steps = models.JSONField(default=dict)
    dimensions = models.JSONField(default=dict)
    rule = models.CharField(max_length=30, choices=FinalScoreRule.choices)
    sheets = models.ManyToManyField(ScoreSheet, blank=True, related_name="+")
    calibrated = models.BooleanField(default=False)
    judge_calibrated = models.BooleanField(
        default=False, help_text=_("The study's opted-in LLM judge was the third (calibrating) rater.")
    )
    note = models.TextField(blank=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("final score")

    def __str__(self) -> str:
        return f"{self.response_id}: {self.overall}"
