"""Where each exported number comes from: the release's scripts (file and line, as kept at
``shared/reference/teamllm-release/code/``), the paper, or the product's own reading. Written
under every results workbook's "About" sheet (pure: reads only the study's settings)."""

from __future__ import annotations

from typing import Any

from calibration.statistics import icc_beside, icc_label
from core.numbers import plain_number

PCC_NOTE = (
    "PCC: the 23 dimension scores of each sheet divided by their maxima on the sheet (Purpose 3); "
    "it flags and routes responses. 'As the release's script': Extract_Scores.py divides Purpose by 2 "
    "(steps_dimensions_max_wo_integrity, line 73), shown for comparison only. The release's A05_FS10: "
    "0.863 with the sheet's maxima, 0.8534 as the release's script. CCC: Lin's concordance correlation "
    "of the same vectors (beyond the study; Lin 1989), which falls when one rater is uniformly harsher."
)
ALPHA_NOTE = (
    "Beyond the study: Krippendorff's alpha, interval level (Hayes & Krippendorff 2007), on the values "
    "the ICC uses (each rater's mean of the 23 normalized scores of a response); the 95% interval is a "
    "percentile bootstrap over responses, 1000 draws, seeded (the same data give the same bounds)."
)


def _level_rule(study: Any) -> str:
    parts = []
    if study.level_ccc_below is not None:
        parts.append(f"CCC below {plain_number(study.level_ccc_below)}")
    if study.level_total_over is not None:
        parts.append(f"overall scores more than {plain_number(study.level_total_over)} points apart")
    return "on: " + "; ".join(parts) if parts else "off: the PCC threshold alone routes, as the study"


def number_sources(*, study: Any) -> list[list[str]]:
    """Rows of (number, source, where): release file and line, paper, or ours."""
    headline = study.headline_icc
    return [
        ["Final score", f"rule: {study.get_final_score_rule_display()}",
         "mean of two sheets as released (Extract_Scores.py pairwise_average, line 332); after a "
         "calibration which sheets: the rule's provenance (Consistency sheet)"],
        ["PCC (sheet's maxima)", "the paper's method with the sheet's maxima; flags and routes",
         "Extract_Scores.py corr, lines 390-401, with Purpose / 3"],
        ["PCC as the release's script", "shown only (PCC per response sheet)",
         "Extract_Scores.py line 73: Purpose / 2"],
        ["Threshold", f"{study.agreement_threshold}: a response passes only when r > threshold, as released",
         "Extract_Scores.py calcu, line 452; the paper's text says 0.70"],
        ["Second routing criterion", _level_rule(study),
         "beyond the study (docs/researchers.md): Lin's CCC of the pair, or the overall scores' difference"],
        ["Headline ICC", icc_label(headline, headline),
         "; ".join(icc_label(f, headline) for f in icc_beside(headline)) + " beside it in Table 6; the "
         "release's ICC input divides Purpose by 2, ours by 3"],
        ["Table 4 marks", "** p < 0.01 as the paper prints them; * p < 0.05 is our option",
         "Wilcoxon signed-rank, two-sided, scipy defaults (the release imports wilcoxon, never calls it)"],
        ["Diversity, as released", "the release's Self-BLEU on the text as stored (imported or generated)",
         "Extract_Answer.py list_challenge_and_solution line 123, compute_step1_or_3_selfbleu line 140"],
        ["Diversity, cleaned tokens", "ours: whitespace tokens dropped", "research/diversity.py"],
        ["Efficiency", "ours: the mean of per-response ratios over responses with Fluency > 0",
         "the paper gives the ratios, not how they are averaged; research/group_tables.py line 121"],
        ["Blank items (Table 5)", "the raters' Blank choices as released; their mean where they disagree is ours",
         "Extract_Scores.py get_blank line 462, check_blank line 491"],
        ["Figures 6/7", "per model mean as the release plots them; per response is ours",
         "Extract_Answer.py cal_step_similarity, lines 159-165"],
        ["Model names", "DeepSeek models are named DeepSeek-V3-0324 / deepseek-r1 (the paper's Table 3)",
         "the release calls deepseek-chat / deepseek-reasoner (experiment.py lines 53-54)"],
        ["Replies", "a leading <think>...</think> block is moved to the turn's reasoning (ours)",
         "the release keeps the reply as the provider returns it (agents.py lines 18-35)"],
    ]  # fmt: skip
