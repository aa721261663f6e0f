"""Which differences are real: paired significance tests, bootstrap
confidence intervals and corrections for multiple comparisons, on the
per-query values of one measure.

Built on scipy.stats: ``ttest_rel``, ``wilcoxon``, ``permutation_test``
(paired randomization test), ``bootstrap`` and ``false_discovery_control``
(Benjamini-Hochberg).  Holm and Bonferroni are written out here because
scipy does not have them (statsmodels does, but would be a large dependency
for two short functions).

Queries where the measure is undefined for either run of a pair are left
out of that pair, and the number left out is reported.  scipy is imported on
first use, so that importing this module (the names of the tests) is cheap.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from ..choices import CORRECTIONS, TESTS, UNITS
from ..errors import Cancelled, StatsError
from ..model.values import nullable
from ..profiles import DEFAULT as DEFAULT_PROFILE
from .engine import RunResult
from .measures import measure_by_key


def correct(p: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values for a family of tests (NaN entries stay NaN and are
    not counted in the family)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if m == 0:
        return out
    if method == "none":
        adj = q.copy()
    elif method == "bonferroni":
        adj = np.minimum(q * m, 1.0)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        stepped = (m - np.arange(m)) * q[order]
        adj_sorted = np.minimum(np.maximum.accumulate(stepped), 1.0)
        adj = np.empty(m)
        adj[order] = adj_sorted
    elif method == "bh":
        from scipy import stats

        adj = stats.false_discovery_control(q, method="bh")
    else:
        raise StatsError(f"unknown correction {method!r}; expected one of {', '.join(CORRECTIONS)}")
    out[ok] = adj
    return out


@dataclass
class RunSummary:
    name: str
    mean: float | None
    ci: tuple[float, float] | None
    n: int
    n_undefined: int


@dataclass
class PairResult:
    a: str
    b: str
    n: int
    n_left_out: int
    mean_difference: float | None  # mean of a - b over the queries used
    wins: int  # queries where a > b
    ties: int
    losses: int
    p: dict[str, float | None] = field(default_factory=dict)
    p_corrected: dict[str, float | None] = field(default_factory=dict)


@dataclass
class Comparison:
    measure: str
    label: str
    higher_is_better: bool
    tests: tuple[str, ...]
    correction: str
    alpha: float
    resamples: int
    seed: int
    confidence: float
    runs: list[RunSummary]
    pairs: list[PairResult]
    unit: str = "query"
    profile: str = DEFAULT_PROFILE

    def ranking(self) -> list[RunSummary]:
        sign = -1 if self.higher_is_better else 1
        return sorted(
            self.runs, key=lambda r: (r.mean is None, sign * r.mean if r.mean is not None else 0)
        )

    def pair(self, a: str, b: str) -> PairResult:
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                return _swap(p)
        raise KeyError((a, b))

    def matrix(self, test: str, corrected: bool = True) -> np.ndarray:
        """Runs x runs p-values (NaN on the diagonal), in the order of ``runs``."""
        names = [r.name for r in self.runs]
        m = np.full((len(names), len(names)), np.nan)
        for p in self.pairs:
            i, j = names.index(p.a), names.index(p.b)
            v = (p.p_corrected if corrected else p.p).get(test)
            m[i, j] = m[j, i] = np.nan if v is None else v
        return m

    def significant(self, a: str, b: str, test: str) -> bool:
        v = self.pair(a, b).p_corrected.get(test)
        return v is not None and v < self.alpha

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "label": self.label,
            "profile": self.profile,
            "unit": self.unit,
            "tests": list(self.tests),
            "correction": self.correction,
            "alpha": self.alpha,
            "resamples": self.resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "runs": [
                {
                    "name": r.name,
                    "mean": r.mean,
                    "ci": list(r.ci) if r.ci else None,
                    "queries": r.n,
                    "undefined": r.n_undefined,
                }
                for r in self.ranking()
            ],
            "pairs": [
                {
                    "a": p.a,
                    "b": p.b,
                    "queries": p.n,
                    "left_out": p.n_left_out,
                    "mean_difference": p.mean_difference,
                    "wins": p.wins,
                    "ties": p.ties,
                    "losses": p.losses,
                    "p": p.p,
                    "p_corrected": p.p_corrected,
                }
                for p in self.pairs
            ],
        }


def _swap(p: PairResult) -> PairResult:
    return PairResult(
        p.b,
        p.a,
        p.n,
        p.n_left_out,
        None if p.mean_difference is None else -p.mean_difference,
        p.losses,
        p.ties,
        p.wins,
        dict(p.p),
        dict(p.p_corrected),
    )


def paired_p(
    test: str, a: np.ndarray, b: np.ndarray, *, resamples: int = 10000, seed: int = 0
) -> float | None:
    """Two-sided p-value of one paired test on complete pairs.  None with
    fewer than two pairs; 1.0 when every difference is zero (the runs agree
    on every query: nothing to tell apart)."""
    d = a - b
    if d.size < 2:
        return None
    if not np.any(d):
        return 1.0
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if test == "t":
            return float(stats.ttest_rel(a, b).pvalue)
        if test == "wilcoxon":
            return float(stats.wilcoxon(a, b).pvalue)
        if test == "randomization":
            res = stats.permutation_test(
                (a, b),
                lambda x, y, axis: np.mean(x - y, axis=axis),
                vectorized=True,
                permutation_type="samples",
                n_resamples=resamples,
                alternative="two-sided",
                rng=np.random.default_rng(seed),
            )
            return float(res.pvalue)
    raise StatsError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")


def bootstrap_ci(
    x: np.ndarray, *, confidence: float = 0.95, resamples: int = 10000, seed: int = 0
) -> tuple[float, float] | None:
    """Bootstrap confidence interval of the mean (BCa; percentile where BCa
    is undefined).  None with fewer than two values."""
    if x.size < 2:
        return None
    if np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.bootstrap(
            (x,),
            np.mean,
            confidence_level=confidence,
            n_resamples=resamples,
            rng=np.random.default_rng(seed),
        )
        lo, hi = res.confidence_interval
        if not (np.isfinite(lo) and np.isfinite(hi)):
            res = stats.bootstrap(
                (x,),
                np.mean,
                confidence_level=confidence,
                n_resamples=resamples,
                method="percentile",
                rng=np.random.default_rng(seed),
            )
            lo, hi = res.confidence_interval
    return (float(lo), float(hi))


#: what the runs' values paired are, by the contest's average: the micro
#: average is the mean of the per-query values, the macro average the mean of
#: the class means.  The weighted averages (proportional, reciprocal) are
#: means of no values a paired test can pair: their runs are paired per query,
#: unweighted (:func:`average_note` says so)
AVERAGE_UNITS = {"micro": "query", "macro": "class", "proportional": "query", "reciprocal": "query"}


def average_unit(average: str) -> str:
    """The unit the runs' values are paired in under the contest's ``average``."""
    return AVERAGE_UNITS[average]


def average_note(average: str, unit: str) -> str:
    """In words, what a comparison paired by ``unit`` pairs and which
    average its means are, against the contest's ``average`` (said by the
    Significance tab and by ``compare``)."""
    what = {
        "query": "each query's values paired, the means over queries (micro)",
        "class": "the class means paired, the means over classes (macro)",
    }[unit]
    if (average, unit) in (("micro", "query"), ("macro", "class")):
        return f"the contest's {average} average: {what}"
    if unit == "query" and average in ("proportional", "reciprocal"):
        return (
            f"{what}, not the contest's {average} average: the paired tests weigh every query alike"
        )
    return f"{what}, not the contest's {average} average"


def compare(
    results: Sequence[RunResult],
    measure: str,
    *,
    tests: Sequence[str] = ("t", "wilcoxon", "randomization"),
    correction: str = "holm",
    alpha: float = 0.05,
    resamples: int = 10000,
    seed: int = 0,
    confidence: float = 0.95,
    unit: str | None = None,
    progress=None,
    should_stop=None,
) -> Comparison:
    """Every pair of runs on one measure: the chosen paired tests, corrected
    across the pairs (per test), and each run's bootstrap interval.  With
    ``unit="class"`` the pairs are the runs' class means (macro view); the
    "queries" counts of the result are then classes.  ``unit`` None: the
    unit of the results' average (:func:`average_unit`), so that the runs
    are ranked by the means their tables give."""
    if len(results) < 1:
        raise StatsError("no run to compare")
    if unit is None:
        unit = average_unit(results[0].options.average)
    tests = tuple(tests)
    for t in tests:
        if t not in TESTS:
            raise StatsError(f"unknown test {t!r}; expected one of {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise StatsError(
            f"unknown correction {correction!r}; expected one of {', '.join(CORRECTIONS)}"
        )
    if unit not in UNITS:
        raise StatsError(f"unknown unit {unit!r}; expected one of {', '.join(UNITS)}")
    if not 0 < alpha < 1 or not 0 < confidence < 1 or resamples < 1:
        raise StatsError("alpha and confidence lie between 0 and 1; resamples is positive")
    names = [r.run_name for r in results]
    if len(set(names)) != len(names):
        raise StatsError("two runs have the same name; give them distinct names")
    q = results[0].query_ids
    if any(r.query_ids != q for r in results):
        raise StatsError("the runs were scored against different assessments")
    m = measure_by_key(measure, results[0].options.ranks)
    # queries the means leave out (PSB class cutoff) are left out here too
    cols = (
        _class_columns(results, measure)
        if unit == "class"
        else [np.where(r.included, r.column(measure), np.nan) for r in results]
    )
    total = len(results) + len(results) * (len(results) - 1) // 2
    done = 0

    def step():
        nonlocal done
        if should_stop is not None and should_stop():
            raise Cancelled()
        done += 1
        if progress is not None:
            progress(done, total)

    runs = []
    for name, c in zip(names, cols):
        ok = c[~np.isnan(c)]
        runs.append(
            RunSummary(
                name,
                float(ok.mean()) if ok.size else None,
                bootstrap_ci(ok, confidence=confidence, resamples=resamples, seed=seed),
                int(ok.size),
                int(np.isnan(c).sum()),
            )
        )
        step()
    pairs = []
    for (i, a), (j, b) in combinations(enumerate(cols), 2):
        ok = ~np.isnan(a) & ~np.isnan(b)
        x, y = a[ok], b[ok]
        d = x - y
        pairs.append(
            PairResult(
                names[i],
                names[j],
                int(ok.sum()),
                int((~ok).sum()),
                float(d.mean()) if d.size else None,
                int((d > 0).sum()),
                int((d == 0).sum()),
                int((d < 0).sum()),
                {t: paired_p(t, x, y, resamples=resamples, seed=seed) for t in tests},
            )
        )
        step()
    for t in tests:
        raw = [np.nan if (v := p.p[t]) is None else v for p in pairs]
        for p, v in zip(pairs, correct(raw, correction)):
            p.p_corrected[t] = nullable(v)
    return Comparison(
        measure,
        m.label,
        m.higher_is_better,
        tests,
        correction,
        alpha,
        resamples,
        seed,
        confidence,
        runs,
        pairs,
        unit,
        results[0].profile,
    )


def _class_columns(results: Sequence[RunResult], measure: str) -> list[np.ndarray]:
    """Each run's class means of ``measure``, aligned on the classes of all
    runs (NaN where a run has no defined value for a class)."""
    if results[0].query_classes is None:
        raise StatsError("pairing classes needs query classes; this assessment has none")
    names = list(dict.fromkeys(c for r in results for c in r.per_class))
    out = []
    for r in results:
        means = r.class_means(measure)
        out.append(np.array([np.nan if means.get(c) is None else means[c] for c in names]))
    return out
