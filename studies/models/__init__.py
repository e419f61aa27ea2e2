"""The study itself: studies, scenarios, model endpoints, conditions and the responses raters score
(and the jobs that import them, ``import_jobs``; the record of changes, ``history``)."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from core.llm.keys import api_key_env_allowed
from studies.condition_labels import condition_label
from studies.rubric import DEFAULT_RUBRIC_VERSION

# Crockford-style alphabet without look-alike characters (0/O, 1/I/L, U).
BLIND_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
BLIND_CODE_LENGTH = 10  # 30**10 ~ 5.9e14 codes: not guessable, not sequential


def new_blind_code() -> str:
    return "".join(secrets.choice(BLIND_ALPHABET) for _ in range(BLIND_CODE_LENGTH))


class HeadlineICC(models.TextChoices):
    ICC1 = "ICC1", "ICC1"
    ICC2 = "ICC2", "ICC2"
    ICC3 = "ICC3", "ICC3"
    ICC1K = "ICC1k", "ICC1k"
    ICC2K = "ICC2k", "ICC2k"
    ICC3K = "ICC3k", "ICC3k"


class FinalScoreRule(models.TextChoices):
    MEAN_OF_PAIR = "mean_of_pair", _("Mean of the two primary raters")
    CALIBRATOR_AND_CLOSER = "calibrator_and_closer", _("Calibrator and the closer primary rater, averaged")
    MEAN_OF_THREE = "mean_of_three", _("Mean of all three raters")
    CALIBRATOR_ONLY = "calibrator_only", _("Calibrator only")
    IMPORTED = "imported", _("Imported final score")


# The rules a study may choose for calibrated responses.
CALIBRATION_RULES = [
    (rule.value, rule.label)
    for rule in (
        FinalScoreRule.CALIBRATOR_AND_CLOSER,
        FinalScoreRule.MEAN_OF_THREE,
        FinalScoreRule.CALIBRATOR_ONLY,
    )
]


ENV_VAR_NAME = RegexValidator(
    r"^[A-Z_][A-Z0-9_]{0,63}$", _("An environment variable name, e.g. TEAMLLM_LLM_KEY_OPENAI.")
)


def validate_api_key_env(name: str) -> None:
    if not api_key_env_allowed(name):
        prefix = settings.LLM_KEY_ENV_PREFIX
        raise ValidationError(
            _(
                "Not allowed: API keys are read only from environment variables whose name starts "
                "with %(prefix)s (e.g. %(prefix)sOPENAI) and does not end in _HOSTS (a key's hosts). "
                "Rename the variable on the workers and name it here."
            )
            % {"prefix": prefix},
            code="api_key_env_not_allowed",
        )


class ModelEndpoint(models.Model):
    """An LLM behind an OpenAI-compatible API. The API key itself is never stored:
    only the NAME of the environment variable that holds it."""

    name = models.CharField(_("display name"), max_length=80, unique=True)
    model_number = models.CharField(
        _("model number"),
        max_length=2,
        unique=True,
        validators=[RegexValidator(r"^[0-9]{2}$", _("Two digits, e.g. 05."))],
        help_text=_("Two digits used in research IDs (A05_FS10)."),
    )
    base_url = models.URLField(
        _("base URL"), blank=True, help_text=_("OpenAI-compatible base URL, e.g. https://api.openai.com/v1")
    )
    model_name = models.CharField(_("model name"), max_length=200, blank=True)
    api_key_env = models.CharField(
        _("API key environment variable"),
        max_length=64,
        blank=True,
        validators=[ENV_VAR_NAME, validate_api_key_env],
        help_text=_(
            "The NAME of the workers' environment variable that holds the key, never the key itself."
        ),
    )
    concurrency_limit = models.PositiveSmallIntegerField(
        _("concurrency limit"), default=4, validators=[MinValueValidator(1), MaxValueValidator(256)]
    )
    timeout_seconds = models.FloatField(_("timeout (s)"), default=120.0, validators=[MinValueValidator(1)])
    # Pacing shared by every worker (core.llm.pacing): a key's or gateway's quota.
    requests_per_minute = models.PositiveIntegerField(
        _("requests per minute"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Calls are spaced out to stay under this, across all workers. Empty: no pacing."),
    )
    tokens_per_minute = models.PositiveIntegerField(
        _("tokens per minute"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_(
            "Prompt and completion tokens; the next call waits until the last ones fit. Empty: none."
        ),
    )
    retry_budget_seconds = models.PositiveIntegerField(
        _("retry budget (s)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(86400)],
        help_text=_(
            "How long one call may spend waiting to retry (rate limits, errors) before its run fails. "
            "Empty: the workers' LLM_RETRY_BUDGET_SECONDS."
        ),
    )
    extra_params = models.JSONField(_("extra request parameters"), default=dict, blank=True)
    is_active = models.BooleanField(_("active"), default=True)
    notes = models.TextField(_("notes"), blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["model_number"]
        verbose_name = _("model endpoint")

    def __str__(self) -> str:
        return f"{self.model_number} {self.name}"

    @property
    def can_generate(self) -> bool:
        return bool(self.base_url and self.model_name)


class Strategy(models.TextChoices):
    SINGLE = "single", _("Single model")
    TEAMLLM = "teamllm", _("TeamLLM (four Belbin roles)")
    ABLATION = "ablation", _("TeamLLM without roles (ablation)")
    LLM_DISCUSSION = "llm_discussion", _("LLM Discussion")
    MAD = "mad", _("Multi-Agent Debate")
    TEAMFUSION = "teamfusion", _("TeamFusion (proxy discussion)")


class TaskKind(models.TextChoices):
    """What a study asks of a model, and so what a response is."""

    CGPST = "cgpst", _("CGPST: six steps on a future scenario")
    TEXT = "text", _("One prompt, one text")
    PAIR = "pair", _("Two texts, one preference")


# How many texts a response of each task holds (kept as its first answers).
TASK_TEXTS: dict[str, int] = {TaskKind.CGPST: 6, TaskKind.TEXT: 1, TaskKind.PAIR: 2}


class Condition(models.Model):
    """A research condition: the letter in research IDs and the strategy that produced it."""

    letter = models.CharField(
        _("letter"),
        max_length=2,
        unique=True,
        validators=[RegexValidator(r"^[A-Z]{1,2}$", _("Capital letters."))],
    )
    name = models.CharField(_("name"), max_length=80)
    strategy = models.CharField(_("strategy"), max_length=20, choices=Strategy.choices)
    parameters = models.JSONField(
        _("parameters"),
        default=dict,
        blank=True,
        help_text=_("Overrides of the strategy's defaults (temperatures, rounds, language)."),
    )
    description = models.TextField(_("description"), blank=True)

    class Meta:
        ordering = ["letter"]
        verbose_name = _("condition")

    def __str__(self) -> str:
        return f"{self.letter} ({condition_label(self.name)})"


class Study(models.Model):
    """One benchmark campaign."""

    class Language(models.TextChoices):
        CHINESE = "zh", _("Chinese")
        ENGLISH = "en", _("English")

    name = models.CharField(_("name"), max_length=120, unique=True)
    description = models.TextField(_("description"), blank=True)
    rubric_version = models.CharField(_("rubric version"), max_length=40, default=DEFAULT_RUBRIC_VERSION)
    # A text task's scenarios are its prompts; a response keeps its one text as its first answer.
    task_kind = models.CharField(
        _("task"), max_length=8, choices=TaskKind.choices, default=TaskKind.CGPST, editable=False
    )
    # A pairwise study compares the responses of a single-text study, two at a time.
    pairs_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="pair_studies",
        editable=False,
        verbose_name=_("pairs from"),
    )
    agreement_threshold = models.DecimalField(
        _("agreement threshold (PCC)"),
        max_digits=4,
        decimal_places=3,
        default="0.650",
        validators=[MinValueValidator(-1), MaxValueValidator(1)],
        help_text=_("Responses whose PCC falls below this go to a calibrating rater."),
    )
    # The second routing criterion (beyond the study; off while both are empty)
    level_ccc_below = models.DecimalField(
        _("also route when the CCC is below"),
        max_digits=4,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text=_("Beyond the study: Lin's concordance of the pair; empty: not used."),
    )
    level_total_over = models.DecimalField(
        _("also route when the totals differ by more than"),
        max_digits=6,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(0)],
        help_text=_("Beyond the study: points between the two overall scores; empty: not used."),
    )
    headline_icc = models.CharField(
        _("headline ICC form"), max_length=6, choices=HeadlineICC.choices, default="ICC3k"
    )
    final_score_rule = models.CharField(
        _("final-score rule"),
        max_length=30,
        choices=CALIBRATION_RULES,
        default=FinalScoreRule.CALIBRATOR_AND_CLOSER,
    )
    response_language = models.CharField(
        _("response language"), max_length=5, choices=Language.choices, default=Language.CHINESE
    )
    calibrating_judge = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("LLM judge counted as third rater"),
        help_text=_(
            "Opt-in (the judge's rater account): its sheet calibrates responses under the threshold "
            "that have no submitted human calibration sheet. Empty: judges never count."
        ),
    )
    is_active = models.BooleanField(_("active"), default=True)
    # The review gate: generated responses wait for an admin's release; responses with parse
    # warnings or names that break the blind (``studies.blind_text``) are held whatever this says.
    responses_need_release = models.BooleanField(
        _("responses need release"),
        default=True,
        help_text=_(
            "Generated responses wait on the held responses page until an administrator releases "
            "them. Generated or imported responses with parse warnings, or whose text names a role, "
            "strategy, condition or model of the study, are held either way."
        ),
    )
    # The study's choice from the catalogue (its pickers'); none offers all (older studies).
    endpoints = models.ManyToManyField(
        ModelEndpoint, blank=True, related_name="studies", verbose_name=_("model endpoints")
    )
    conditions = models.ManyToManyField(
        Condition, blank=True, related_name="studies", verbose_name=_("conditions")
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("study")
        verbose_name_plural = _("studies")

    def __str__(self) -> str:
        return self.name


class Scenario(models.Model):
    """A future scenario. ``study`` is empty for scenarios shared by all studies."""

    study = models.ForeignKey(
        Study, null=True, blank=True, on_delete=models.PROTECT, related_name="scenarios"
    )
    code = models.CharField(
        _("code"),
        max_length=20,
        validators=[RegexValidator(r"^[A-Za-z0-9-]+$", _("Letters, digits and dashes."))],
    )
    theme = models.CharField(_("theme"), max_length=200)
    text = models.TextField(_("scenario text"))
    # Optional Simplified Chinese version: raters whose UI is in Chinese read it when it exists.
    theme_zh = models.CharField(_("theme (Simplified Chinese)"), max_length=200, blank=True)
    text_zh = models.TextField(_("scenario text (Simplified Chinese)"), blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["code"]
        verbose_name = _("scenario")
        constraints = [
            models.UniqueConstraint(fields=["study", "code"], name="scenario_code_unique_in_study"),
            models.UniqueConstraint(
                fields=["code"], condition=Q(study__isnull=True), name="shared_scenario_code_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.code} {self.theme}"

    def theme_for(self, language: str) -> str:
        """The theme in the reader's UI language when that version exists."""
        return self.theme_zh if language.startswith("zh") and self.theme_zh else self.theme

    def text_for(self, language: str) -> str:
        """The text in the reader's UI language when that version exists."""
        return self.text_zh if language.startswith("zh") and self.text_zh else self.text


class ResponseSource(models.TextChoices):
    GENERATED = "generated", _("Generated")
    IMPORTED = "imported", _("Imported")
    PAIRED = "paired", _("Paired from two responses")  # a pairwise study's unit (``services.pairs``)


class ResponseStatus(models.TextChoices):
    READY = "ready", _("Ready for scoring")
    SCORING = "scoring", _("Being scored")
    CALIBRATION = "calibration", _("Awaiting calibration")
    FINAL = "final", _("Final score available")
    WITHDRAWN = "withdrawn", _("Withdrawn")


def shown_text(text: str) -> str:
    """A stored text as shown: trailing whitespace of every line and surrounding blank lines trimmed."""
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


class Response(models.Model):
    """One model's six-step answer to one scenario under one condition. Raters only ever see
    ``blind_code``; ``research_id`` (A05_FS10), the model and the condition are for the others."""

    study = models.ForeignKey(Study, on_delete=models.PROTECT, related_name="responses")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="responses")
    model = models.ForeignKey(ModelEndpoint, on_delete=models.PROTECT, related_name="responses")
    condition = models.ForeignKey(Condition, on_delete=models.PROTECT, related_name="responses")
    research_id = models.CharField(_("research ID"), max_length=64)
    blind_code = models.CharField(
        _("blind code"), max_length=16, unique=True, default=new_blind_code, editable=False
    )
    STEP_FIELDS = ("step1", "step2", "step3", "step4", "step5", "step6")  # the six answers, in order
    step1 = models.TextField(_("Step 1 answer"), blank=True)
    step2 = models.TextField(_("Step 2 answer"), blank=True)
    step3 = models.TextField(_("Step 3 answer"), blank=True)
    step4 = models.TextField(_("Step 4 answer"), blank=True)
    step5 = models.TextField(_("Step 5 answer"), blank=True)
    step6 = models.TextField(_("Step 6 answer"), blank=True)
    source = models.CharField(_("source"), max_length=10, choices=ResponseSource.choices)
    # A training set's copy (``training``): never live; here so that scoring can leave it out.
    is_training_copy = models.BooleanField(default=False, editable=False)
    status = models.CharField(
        _("status"), max_length=12, choices=ResponseStatus.choices, default=ResponseStatus.READY
    )
    # The review gate: held, no rater gets it until released (why: ``studies.review``'s reasons).
    held = models.BooleanField(_("held for review"), default=False)
    hold_reasons = models.JSONField(default=list, blank=True)
    # the blind-text check's spans per step of the shown text ({"2": [[start, end, kind, term]]}), as
    # last checked: the held page shows them without checking again (None: never stored, older rows)
    blind_spans = models.JSONField(null=True, blank=True, editable=False)
    released_at = models.DateTimeField(_("released at"), null=True, blank=True)
    released_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    step1_blank_items = models.PositiveSmallIntegerField(default=0)
    step3_blank_items = models.PositiveSmallIntegerField(default=0)
    grid = models.JSONField(_("Step-5 grid"), null=True, blank=True)
    grid_errors = models.JSONField(_("Step-5 grid errors"), default=list, blank=True)
    implied_correctly_used = models.PositiveSmallIntegerField(null=True, blank=True)
    parse_notes = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["study", "research_id"]
        verbose_name = _("response")
        constraints = [
            models.UniqueConstraint(fields=["study", "research_id"], name="research_id_unique_in_study")
        ]
        indexes = [models.Index(fields=["study", "scenario", "condition"])]

    def __str__(self) -> str:
        return self.research_id

    @property
    def is_text_task(self) -> bool:
        return self.study.task_kind == TaskKind.TEXT

    @property
    def is_pair(self) -> bool:
        """A pairwise study's unit: text A of one response and text B of another (``pair``)."""
        return self.study.task_kind == TaskKind.PAIR

    @property
    def whole_texts(self) -> list[tuple[str, str]]:
        """The texts read whole, each with what it is: a single-text response's ("response", text),
        a pair's ("a", text A) and ("b", text B); none for a CGPST response (read step by step)."""
        if self.is_pair:
            return [("a", self.shown_answer(1)), ("b", self.shown_answer(2))]
        if self.is_text_task:
            return [("response", self.shown_answer(1))]
        return []

    def answer(self, step: int) -> str:
        """The step's text exactly as generated or imported (trailing spaces included:
        the release's Self-BLEU counts them, see ``research.diversity``)."""
        return getattr(self, f"step{step}")

    @property
    def answers(self) -> list[str]:
        return [self.answer(n) for n in range(1, 7)]

    def shown_answer(self, step: int) -> str:
        """The step's text as read: trailing whitespace of lines and text trimmed (not stored)."""
        return shown_text(self.answer(step))

    @property
    def shown_answers(self) -> list[str]:
        return [self.shown_answer(n) for n in range(1, 7)]


class ResponsePair(models.Model):
    """Which responses of the study's source (``Study.pairs_from``) a pairwise unit shows: ``left``
    as text A, ``right`` as text B (the order drawn at random when the pair was built)."""

    response = models.OneToOneField(Response, on_delete=models.CASCADE, related_name="pair")
    left = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="+")
    right = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="+")

    class Meta:
        verbose_name = _("response pair")

    def __str__(self) -> str:
        return f"{self.response_id}: {self.left_id} vs {self.right_id}"


class ResponseItem(models.Model):
    """A numbered item parsed from a response: Steps 1 and 3 (up to 8) and 4 (five criteria)."""

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="items")
    step = models.PositiveSmallIntegerField(choices=[(1, "1"), (3, "3"), (4, "4")])
    position = models.PositiveSmallIntegerField()
    text = models.TextField()

    class Meta:
        ordering = ["response", "step", "position"]
        constraints = [
            models.UniqueConstraint(fields=["response", "step", "position"], name="item_unique_position")
        ]

    def __str__(self) -> str:
        return f"{self.response_id} step {self.step} #{self.position}"


from studies.models.history import AuditEvent as AuditEvent  # noqa: E402
from studies.models.history import ResponseTextChange as ResponseTextChange  # noqa: E402
from studies.models.history import ScenarioTextChange as ScenarioTextChange  # noqa: E402
from studies.models.import_jobs import ResponseImportJob as ResponseImportJob  # noqa: E402
