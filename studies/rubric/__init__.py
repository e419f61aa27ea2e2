"""The CGPST rubric as data, and the ONE function that computes every total.

- ``schema``: the rubric's types (steps, dimensions, labels, categories)
- ``loader``: ``load_rubric`` reads and validates the versioned JSON file next to it
- ``totals``: a sheet's raw entries and ``sheet_totals`` (every total comes from there)

Pure: nothing here imports Django or the ORM. The names below are re-exported so
``from studies.rubric import X`` keeps working.
"""

from studies.rubric.loader import (
    DEFAULT_RUBRIC_VERSION,
    RUBRIC_DIR,
    available_rubric_versions,
    load_rubric,
    parse_rubric,
)
from studies.rubric.schema import (
    INVALID_PREFIX,
    Category,
    CommentRule,
    InvalidType,
    Label,
    Level,
    Rubric,
    RubricError,
    ScoreSpec,
    Step,
    TextSpec,
)
from studies.rubric.totals import (
    RELEASE_SCRIPT_MAXIMA,
    CriterionEntry,
    IdeaEntry,
    Missing,
    SheetEntries,
    SheetTotals,
    integrity_score,
    integrity_sum,
    normalized_vector,
    release_script_vector,
    sheet_totals,
)

__all__ = [
    "CommentRule",
    "DEFAULT_RUBRIC_VERSION",
    "RELEASE_SCRIPT_MAXIMA",
    "INVALID_PREFIX",
    "RUBRIC_DIR",
    "Category",
    "CriterionEntry",
    "IdeaEntry",
    "InvalidType",
    "Label",
    "Level",
    "Missing",
    "Rubric",
    "RubricError",
    "ScoreSpec",
    "SheetEntries",
    "SheetTotals",
    "Step",
    "TextSpec",
    "available_rubric_versions",
    "integrity_score",
    "integrity_sum",
    "load_rubric",
    "normalized_vector",
    "release_script_vector",
    "parse_rubric",
    "sheet_totals",
]
