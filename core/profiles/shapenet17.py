"""``shapenet17``: the SHREC 2016/2017 ShapeNet Core55 evaluator (Node.js,
2017-02-23 revision; docs/profiles.md).

The assessment is the taxonomy CSV ``id,synsetId,subSynsetId,modelId,split``;
a run is a method folder of dataset folders ``{test,val,train}_{normal,
perturbed}``, each scored on its own (one result per dataset, named
``method/dataset``).  Per dataset (split = the folder name before ``_``):

* queries: the files, met in the order Node enumerates the keys of an
  object (ids that are array indices, i.e. digits without a leading zero,
  ascending; then the others in byte order of their file names); file names
  and ids are zero-padded to 6 and cut to their last 6 characters, a later
  file with the same id replaces the earlier one; unknown queries and those
  of another split are ignored (noted);
* each list: its first 1000 entries, then repeats removed (first kept), then
  unknown ids and ids of another split dropped (noted);
* grades 3 (same sub-synset), 2 (the result's sub-synset is the query's
  synset), 1 (same synset otherwise), 0; the query itself is kept;
* R = min(|synset in split|, 1000); the measures ``p_at_n``, ``r_at_n``,
  ``f1_at_n``, ``map_sn``, ``ndcg_sn`` of the registry and the padded P and R
  vectors (curves ``sn_p``, ``sn_r``, 1000 points).  The ideal DCG is built
  from the first R oracle grades in CSV order, so NDCG can exceed 1 for a
  synset of more than 1000 models (reproduced: published numbers carry it).

Native files: ``<method>.summary.csv`` and ``<method>.pr.csv``, with the
evaluator's sums (in its query order, times 1 / n) and numbers written as
JavaScript writes them.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..model.assessment import Assessment
from ..reading.readers import distinct_names
from ..scoring.base_measures import Measure
from ..scoring.chunk import ratio
from ..scoring.curves import Curve
from .hooks import ContestReader, NativeHook
from .shapenet_data import (
    CUTOFF,
    DATASETS,
    Taxonomy,
    js_key_order,
    pad6,
    read_dataset,
    read_method,
    read_taxonomy,
)

__all__ = [
    "CUTOFF",
    "DATASETS",
    "NATIVE",
    "READER",
    "SUMMARY_KEYS",
    "Taxonomy",
    "js_key_order",
    "js_number",
    "pad6",
    "read_dataset",
    "read_method",
    "read_taxonomy",
    "method_names",
]

SUMMARY_KEYS = ("p_at_n", "r_at_n", "f1_at_n", "map_sn", "ndcg_sn")


def method_names(sources) -> list[str]:
    """Each source's method name (its name, else its folder's name), made
    distinct as run names are: two folders ``teamA/meth`` and ``teamB/meth``
    are ``meth (teamA)`` and ``meth (teamB)`` (their results and native
    files never merge)."""
    names = [s.name or Path(os.path.abspath(s.path)).name for s in sources]
    parents = [str(Path(os.path.abspath(s.path)).parent) for s in sources]
    return distinct_names(names, parents)


def read_contest(taxonomy, sources):
    """The profile's own reading of a contest: every dataset folder of every
    method folder, each with the assessment of its split and queries, as
    (index of the source, assessment, run); a run is named
    ``method/dataset`` (the method a source's name, else its folder's, made
    distinct)."""
    tax = read_taxonomy(taxonomy)
    methods = method_names(sources)  # teamA/meth and teamB/meth never merge
    for i, source in enumerate(sources):
        for assessment, run in read_method(tax, source.path):
            run.name = f"{methods[i]}/{run.name.rpartition('/')[2]}"
            yield i, assessment, run


# -- the engine's side: R, the oracle's ideal DCG, the padded vectors ----------------------


def _dcg(x: np.ndarray) -> float:
    """x_1 + sum_{i>=2} x_i / log2 i, added in order as the evaluator does."""
    if not x.size:
        return 0.0
    terms = x.astype(np.float64)
    terms[1:] = (1.0 / np.log2(np.arange(2, x.size + 1, dtype=np.float64))) * terms[1:]
    return float(np.cumsum(terms)[-1])


def _sn_empty(ctx) -> np.ndarray:
    # the ShapeNet evaluator's vectors of an empty list are empty: NaN there
    return ctx.va == 0


def _sn_pr(ctx) -> tuple[np.ndarray, np.ndarray]:
    """P and R at the end of the list: S_n / n, S_n / R, R = min(|oracle|, 1000)."""
    R = ctx.extra["R"]
    return ratio(ctx.vr, ctx.va, _sn_empty(ctx)), ratio(ctx.vr, R, _sn_empty(ctx))


def m_sn_p(ctx, v=None, k=None):
    return _sn_pr(ctx)[0]


def m_sn_r(ctx, v=None, k=None):
    return _sn_pr(ctx)[1]


def m_sn_f1(ctx, v=None, k=None):
    p, r = _sn_pr(ctx)
    with np.errstate(invalid="ignore"):
        return np.where(p + r == 0, 0.0, 2 * p * r / np.where(p + r == 0, 1.0, p + r))


def m_sn_ap(ctx, v=None, k=None):
    return ratio(ctx.precision_sum["r"], ctx.extra["R"])


def m_sn_ndcg(ctx, v=None, k=None):
    # DCG(x, R) = x_1 + sum_{i=2..min(R, n)} x_i / log2 i, summed in rank order
    r, c, g, _ = ctx.hit_list
    keep = c < ctx.extra["R"][r]
    w = np.ones(c.size)
    w[c > 0] = 1.0 / np.log2(c[c > 0] + 1.0)
    dcg = np.bincount(r[keep], weights=(w * g)[keep], minlength=ctx.B)
    out = ratio(dcg, ctx.extra["idcg"])
    out[_sn_empty(ctx)] = np.nan
    return out


#: the evaluator's five measures
MEASURES = tuple(
    Measure(key, label, "shapenet", definition, fn, short=short)
    for key, label, short, definition, fn in (
        (
            "p_at_n",
            "P@N",
            "P@N",
            "relevant (grade > 0) in the filtered list / its length",
            m_sn_p,
        ),
        (
            "r_at_n",
            "R@N",
            "R@N",
            "relevant in the filtered list / min(|synset in split|, 1000)",
            m_sn_r,
        ),
        ("f1_at_n", "F1@N", "F1@N", "2 P@N R@N / (P@N + R@N), 0 when both are 0", m_sn_f1),
        (
            "map_sn",
            "mAP (ShapeNet)",
            "mAP-SN",
            "sum of precision at the hits / min(|synset in split|, 1000)",
            m_sn_ap,
        ),
        (
            "ndcg_sn",
            "NDCG (ShapeNet)",
            "NDCG-SN",
            "DCG of the grades 3/2/1/0 over the first R / DCG of the first R oracle "
            "grades in CSV order, sorted (can exceed 1 for a synset of more than 1000)",
            m_sn_ndcg,
        ),
    )
)


def query_data(a: Assessment, options) -> dict[str, np.ndarray]:
    """R = min(|oracle|, 1000) and the ideal DCG of the first R oracle
    grades in CSV order, sorted descending, per query."""
    counts = np.diff(a.indptr)
    R = np.minimum(counts, CUTOFF)
    idcg = np.zeros(a.n_queries)
    memo: dict[bytes, float] = {}
    for q in range(a.n_queries):
        g = a.judged_grades[a.indptr[q] : a.indptr[q] + R[q]]
        key = g.tobytes()
        if key not in memo:
            memo[key] = _dcg(np.sort(g)[::-1])
        idcg[q] = memo[key]
    return {"R": R, "idcg": idcg}


def _padded(ctx) -> tuple[np.ndarray, np.ndarray]:
    n = ctx.va
    W = min(ctx.W, CUTOFF)
    hits = np.cumsum(ctx.dense(W) > 0, axis=1) if W else np.zeros((ctx.B, 1), np.int64)
    pos = np.minimum(np.arange(1, CUTOFF + 1)[None, :], np.maximum(n, 1)[:, None])
    S = np.take_along_axis(hits, np.clip(pos - 1, 0, hits.shape[1] - 1), axis=1)
    P = S / pos
    Rv = S / ctx.extra["R"][:, None]
    P[n == 0] = np.nan
    Rv[n == 0] = np.nan
    return P, Rv


def _padded_p(ctx, o) -> np.ndarray:
    return _padded(ctx)[0]


def _padded_r(ctx, o) -> np.ndarray:
    return _padded(ctx)[1]


def _x(o) -> np.ndarray:
    return np.arange(1, CUTOFF + 1, dtype=np.float64)


CURVES = (
    Curve(
        "sn_p",
        "Precision at rank (ShapeNet, padded)",
        "Rank",
        "Precision",
        "S_i / i over the filtered list, padded to 1000 with its last value",
        _x,
        _padded_p,
    ),
    Curve(
        "sn_r",
        "Recall at rank (ShapeNet, padded)",
        "Rank",
        "Recall",
        "S_i / min(|synset in split|, 1000), padded to 1000 with its last value",
        _x,
        _padded_r,
    ),
)


# -- native files ------------------------------------------------------------------------------


def js_number(x) -> str:
    """A number as JavaScript's String(x) writes it: the shortest digits that
    read back to the same double, in JavaScript's layout."""
    x = float(x)
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mant, _, exp = repr(abs(x)).partition("e")
    ip, _, fp = mant.partition(".")
    e = int(exp or 0)
    if ip != "0":
        n = len(ip) + e
    else:
        n = e - (len(fp) - len(fp.lstrip("0")))
    digits = (ip + fp).lstrip("0").rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        ex = n - 1
        body = (
            digits[0] + ("." + digits[1:] if k > 1 else "")
        ) + f"e{'+' if ex > 0 else '-'}{abs(ex)}"
    return sign + body


class _Summed:
    """The evaluator's SummedMetrics: sums in the order values arrive, NaN
    propagating in the scalars and counting 0 in the vectors."""

    def __init__(self) -> None:
        self.scalars = [0.0] * 5
        self.p = np.zeros(0)
        self.r = np.zeros(0)
        self.num = 0

    def add(self, scalars, p, r, count: int = 1) -> None:
        self.scalars = [s + float(v) for s, v in zip(self.scalars, scalars)]
        self.p = _add_vec(self.p, p)
        self.r = _add_vec(self.r, r)
        self.num += count

    def averages(self):
        norm = 1 / self.num if self.num else float("inf")
        return [s * norm for s in self.scalars], self.p * norm, self.r * norm


def _add_vec(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = max(x.size, y.size)
    a = np.zeros(n)
    b = np.zeros(n)
    a[: x.size] = np.nan_to_num(x, nan=0.0)
    b[: y.size] = np.nan_to_num(y, nan=0.0)
    return a + b


def native(results: list, assessment: Assessment) -> dict:
    """<method>.summary.csv and <method>.pr.csv of a method's datasets."""
    method = results[0].run_name.rpartition("/")[0]
    summary = ["class,P@N,R@N,F1@N,mAP,NDCG,dataset,method\n"]
    pr = ["class,P,R,dataset,method\n"]
    for res in results:
        dataset = res.run_name.rpartition("/")[2]
        cols = np.stack([res.column(k) for k in SUMMARY_KEYS], axis=1)
        P, R = res.curves["sn_p"].per_query, res.curves["sn_r"].per_query
        groups = {"microALL": _Summed()}
        for q in range(len(res.query_ids)):
            syn = res.query_classes[q]
            for g in ("microALL", syn):
                groups.setdefault(g, _Summed()).add(cols[q], P[q], R[q])
        macro = _Summed()
        for syn in js_key_order(k for k in groups if k != "microALL"):
            s, p, r = groups[syn].averages()
            macro.add(s, p, r)
        # the evaluator adds macroALL to the object before its loop over the
        # synsets, so the loop also adds macroALL's own averages, once, last
        macro.add(*macro.averages())
        groups["macroALL"] = macro
        # ``for (var id in avgs)``: synset ids that are array indices come
        # first, before microALL; the other keys in insertion order
        for g in js_key_order(groups):
            s, p, r = groups[g].averages()
            summary.append(",".join([g, *map(js_number, s), dataset, method]) + "\n")
            if g in ("microALL", "macroALL"):
                pr.extend(
                    f"{g},{js_number(a)},{js_number(b)},{dataset},{method}\n" for a, b in zip(p, r)
                )
    # the method's name made one file name where the names are made (outputs.native)
    return {("*.summary.csv", method): "".join(summary), ("*.pr.csv", method): "".join(pr)}


def method_of(result) -> str:
    """The native files of a method's datasets go together."""
    return result.run_name.rpartition("/")[0] or result.run_name


#: the hooks its evaluator file names (builtin/shapenet17.toml)
READER = ContestReader(read_contest, "TAXONOMY.csv METHOD/...", method_names, method_of)
NATIVE = NativeHook(("*.summary.csv", "*.pr.csv"), native)
