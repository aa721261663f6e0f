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

from ._version import __version__

#: public name -> the module that defines it
_EXPORTS = {
    "Cancelled": "engine",
    "CurveData": "engine",
    "QueryDetail": "engine",
    "RunResult": "engine",
    "evaluate": "engine",
    "evaluate_runs": "engine",
    "query_detail": "engine",
    "CURVES": "measures",
    "MEASURES": "measures",
    "Curve": "measures",
    "Measure": "measures",
    "expand": "measures",
    "measure_by_key": "measures",
    "resolve": "measures",
    "PAD": "model",
    "UNKNOWN": "model",
    "Assessment": "model",
    "AssessmentError": "model",
    "DataWarning": "model",
    "RankedRun": "runs",
    "Run": "runs",
    "EvalOptions": "options",
    "load_assessment": "profiles",
    "load_run": "profiles",
    "get_profile": "profiles",
    "OptionsError": "options",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'shrec_eval' has no attribute {name!r}")
    # literal imports, so that freezing tools (PyInstaller) see the modules
    if module == "engine":
        from .scoring import engine as mod
    elif module == "measures":
        from .scoring import measures as mod
    elif module == "model":
        from .model import assessment as mod
    elif module == "runs":
        from .model import runs as mod
    elif module == "profiles":
        from . import profiles as mod
    else:
        from . import options as mod
    value = getattr(mod, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
