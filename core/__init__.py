"""shrec-eval core: the metric engine and the contest file formats.

Pure numpy; never imports Qt (checked by the import-linter contract in
pyproject.toml).  Typical use::

    from shrec_eval import Assessment, RankedRun, evaluate
    a = Assessment.from_judgments({"q1": {"m1": 2, "m2": 1}}, items=["m1", "m2", "m3"])
    run = RankedRun.from_lists("my method", {"q1": ["m2", "m1", "m3"]}, a)
    result = evaluate(a, run)
    print(result.means["ndcg@10"], result.means["ap_trec_r"])
"""

from ._version import __version__
from .engine import (
    Cancelled,
    CurveData,
    QueryDetail,
    RunResult,
    evaluate,
    evaluate_runs,
    query_detail,
)
from .measures import CURVES, MEASURES, Curve, Measure, expand, measure_by_key
from .model import PAD, UNKNOWN, Assessment, AssessmentError, DataWarning, RankedRun, Run
from .options import EvalOptions, OptionsError

__all__ = [
    "Assessment",
    "AssessmentError",
    "Cancelled",
    "CURVES",
    "Curve",
    "CurveData",
    "DataWarning",
    "EvalOptions",
    "MEASURES",
    "Measure",
    "OptionsError",
    "PAD",
    "QueryDetail",
    "RankedRun",
    "Run",
    "RunResult",
    "UNKNOWN",
    "evaluate",
    "evaluate_runs",
    "expand",
    "measure_by_key",
    "query_detail",
    "__version__",
]
