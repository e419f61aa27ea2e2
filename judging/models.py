"""An LLM judge: a model endpoint that scores responses with the study's rubric as a
non-human rater, and the batches, tasks and calls that run it.

A judge's sheets are ordinary ``scoring.ScoreSheet`` rows on ``Assignment`` rows of role
``judge`` held by the judge's own user (inactive, no password). The default managers of
Assignment and ScoreSheet leave them out, so no human page, statistic or export sees
them unless it asks for ``all_objects``."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from generation.models import BatchStatus, EngineBatch, EngineJob, RunStatus
from studies.models import ModelEndpoint, Response, Scenario, Study


class Judge(models.Model):
    """A model endpoint plus a versioned judge prompt and its sampling settings."""

    name = models.CharField(_("name"), max_length=80, unique=True)
    endpoint = models.ForeignKey(ModelEndpoint, on_delete=models.PROTECT, related_name="judges")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="judge",
        help_text=_("The non-human rater whose sheets hold this judge's scores."),
    )
    prompt_version = models.CharField(_("prompt version"), max_length=40)
    temperature = models.FloatField(
        _("temperature"), default=0.0, validators=[MinValueValidator(0), MaxValueValidator(2)]
    )
    samples = models.PositiveSmallIntegerField(
        _("samples per response"),
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
        help_text=_("With more than one, the stored sheet is the mean of the samples."),
    )
    structured_output = models.BooleanField(
        _("structured output"),
        default=True,
        help_text=_("Send the sheet's JSON schema as response_format (when the endpoint supports it)."),
    )
    provider_family = models.CharField(
        _("provider family"),
        max_length=80,
        blank=True,
        help_text=_(
            "e.g. 'openai' or 'qwen': responses of models of this family are reported apart (self-preference)."
        ),
    )
    is_active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("LLM judge")

    def __str__(self) -> str:
        return self.name


# A judge batch and its tasks run on the LLM batch engine: the same statuses.
JudgeBatchStatus = BatchStatus
JudgeTaskStatus = RunStatus


class JudgeBatch(EngineBatch):
    """One judge scoring the (non-withdrawn) responses of a study, or of one scenario.
    The settings are copied here so a later change of the judge does not rewrite history."""

    study = models.ForeignKey(Study, on_delete=models.PROTECT, related_name="judge_batches")
    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="batches")
    scenario = models.ForeignKey(Scenario, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    prompt_version = models.CharField(max_length=40)
    # the endpoint's model when the batch was launched: the gate tests sheets of the current one
    model_name = models.CharField(max_length=200, blank=True)
    temperature = models.FloatField()
    samples = models.PositiveSmallIntegerField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("judge batch")
        verbose_name_plural = _("judge batches")

    def __str__(self) -> str:
        return f"{self.judge} on {self.study} #{self.pk}"


class JudgeTask(EngineJob):
    """One response scored by the batch's judge: ends with a stored, submitted sheet
    or as failed with its reason (the raw output stays on its calls)."""

    batch = models.ForeignKey(JudgeBatch, on_delete=models.CASCADE, related_name="tasks")
    response = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="+")
    sheet = models.OneToOneField(
        "scoring.ScoreSheet", null=True, blank=True, on_delete=models.SET_NULL, related_name="judge_task"
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("judge task")
        constraints = [
            models.UniqueConstraint(fields=["batch", "response"], name="judge_task_unique_per_batch")
        ]

    def __str__(self) -> str:
        return f"Judge task {self.pk} ({self.status})"


class JudgeCall(models.Model):
    """One provider call of a task, persisted as soon as it completes, with the raw
    output and what validation found. ``attempt`` 2 is the re-ask with the errors."""

    task = models.ForeignKey(JudgeTask, on_delete=models.CASCADE, related_name="calls")
    sample = models.PositiveSmallIntegerField()
    attempt = models.PositiveSmallIntegerField()
    messages = models.JSONField(help_text=_("The exact messages sent."))
    request_params = models.JSONField(default=dict, blank=True)
    raw_output = models.TextField(blank=True)
    parsed = models.JSONField(null=True, blank=True, help_text=_("The validated sheet entries, when valid."))
    errors = models.JSONField(default=list, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    # provider attempts (retries + 1), time waited before the answer (pacing, retry backoff)
    # and attempts answered HTTP 429
    provider_attempts = models.PositiveSmallIntegerField(default=1)
    wait_ms = models.PositiveIntegerField(default=0)
    rate_limited = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task", "sample", "attempt"]
        verbose_name = _("judge call")
        constraints = [
            models.UniqueConstraint(
                fields=["task", "sample", "attempt"], name="judge_call_unique_per_attempt"
            )
        ]

    def __str__(self) -> str:
        return f"{self.task_id} sample {self.sample} attempt {self.attempt}"

    @property
    def is_valid(self) -> bool:
        return self.parsed is not None


class JudgeQualification(models.Model):
    """One run of the gate a judge must pass before it may count as a study's third rater: the
    leave-one-rater-out alternative annotator test (``judging.alt_test``) on the study's
    double-scored responses, for the judge's prompt version and model at the time."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="qualifications")
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="+")
    prompt_version = models.CharField(max_length=40)
    model_name = models.CharField(max_length=200)

    class Unrun(models.TextChoices):
        """Why the test could not be run (it is then not passed)."""

        TOO_FEW = "too_few", _("too few double-scored responses")
        NO_RATER = "no_rater", _("no rater with enough responses")

    passed = models.BooleanField()
    unrun = models.CharField(max_length=10, blank=True, choices=Unrun.choices)
    responses = models.PositiveIntegerField(help_text=_("Double-scored responses the judge also scored."))
    min_responses = models.PositiveIntegerField(help_text=_("The double-scored responses the test needed."))
    winning_rate = models.FloatField(null=True, blank=True)
    advantage_probability = models.FloatField(null=True, blank=True)
    epsilon = models.FloatField()
    comparisons = models.JSONField(default=list, blank=True)  # one per rater compared
    skipped = models.JSONField(default=list, blank=True)  # raters with too few responses
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("judge qualification")

    def __str__(self) -> str:
        return f"{self.judge} on {self.study}: {'passed' if self.passed else 'not passed'}"

    def unrun_text(self) -> str:
        """Why the test could not be run, in the reader's language ("" when it ran)."""
        if self.unrun == self.Unrun.TOO_FEW:
            return _(
                "%(n)s double-scored responses scored by the judge with its present prompt and model; "
                "the test needs at least %(needed)s."
            ) % {"n": self.responses, "needed": self.min_responses}
        if self.unrun == self.Unrun.NO_RATER:
            return str(_("No rater scored enough of these responses beside another."))
        return ""
