"""shrec-eval core: the metric engine and the contest file formats.

Pure numpy; never imports Qt (checked by the import-linter contract in
pyproject.toml).  Typical use::

    from shrec_eval import Assessment, RankedRun, evaluate
    a = Assessment.from_judgments({"q1": {"m1": 2, "m2": 1}}, items=["m1", "m2", "m3"])
    run = RankedRun.from_lists("my method", {"q1": ["m2", "m1", "m3"]}, a)
    result = evaluate(a, run)
    print(result.means["ndcg@10"], result.means["ap_trec_r"])

The names below are imported on first use (PEP 562), so that importing the
package for ``shrec-eval --help`` or ``--version`` does not load numpy.
"""

import importlib

from ._version import __version__

#: public name -> the module that defines it (relative to this package)
_EXPORTS = {
    "Cancelled": ".scoring.engine",
    "CurveData": ".scoring.engine",
    "QueryDetail": ".scoring.engine",
    "RunResult": ".scoring.engine",
    "evaluate": ".scoring.engine",
    "evaluate_runs": ".scoring.engine",
    "query_detail": ".scoring.list_views",
    "CURVES": ".scoring.measures",
    "MEASURES": ".scoring.measures",
    "Curve": ".scoring.measures",
    "Measure": ".scoring.measures",
    "expand": ".scoring.measures",
    "measure_by_key": ".scoring.measures",
    "resolve": ".scoring.measures",
    "PAD": ".model.assessment",
    "UNKNOWN": ".model.assessment",
    "Assessment": ".model.assessment",
    "AssessmentError": ".model.assessment",
    "DataWarning": ".model.assessment",
    "RankedRun": ".model.runs",
    "Run": ".model.runs",
    "EvalOptions": ".options",
    "load_assessment": ".profiles",
    "load_run": ".profiles",
    "get_profile": ".profiles",
    "OptionsError": ".options",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'shrec_eval' has no attribute {name!r}")
    # the one late import of the package: its names load numpy on first use
    mod = importlib.import_module(module, __name__)
    value = getattr(mod, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
