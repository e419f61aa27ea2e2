from .benchmark import FinalScoreRule, Response, ResponseItem, ResponseSource, ResponseStatus, Scenario, Study  # noqa: F401
from .calibration import (  # noqa: F401
    CalibrationDecision,
    ExportJob,
    FinalScore,
    GroupAgreement,
    ResponseAgreement,
)
from .sheets import (  # noqa: F401
    Assignment,
    AssignmentRole,
    DimensionScore,
    EventKind,
    ItemScore,
    RaterProfile,
    ScoreSheet,
    ScoringGroup,
    SheetEvent,
    SheetSource,
    SheetStatus,
)
