"""The measure registry: every measure and every curve declared once.

Each :class:`Measure` has its stable key (../shared/spec/measures.md section
7), the label people read, its family, a one-line definition, whether higher
is better, and the small function that computes it for a chunk of queries
from a :class:`ChunkContext` (the gain matrix and its cumulative sums).  The
command line, tables, CSV headers and docs all read this table.  The curves
have their registry beside it (:mod:`shrec_eval.curves`, re-exported here):
each :class:`Curve` declares its x values and its compute function.

Values are float64 per query; NaN means *undefined* (nothing to find: the
assessment has no relevant item of that kind for the query).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .chunk import ChunkContext, discounts, ratio, row_sums
from .curves import CURVES, Curve

__all__ = [
    "Measure",
    "MEASURES",
    "CURVES",
    "Curve",
    "expand",
    "measure_by_key",
    "canonical_key",
    "FAMILIES",
]

# ---------------------------------------------------------------------------
# The measures: small functions of a ChunkContext


def _no(ctx: ChunkContext, variant: str) -> np.ndarray:
    return (ctx.ch if variant == "hr" else ctx.cr) == 0


def m_tp(ctx, v, k=None):
    return ctx.hits(v)[1].astype(np.float64)


def m_fp(ctx, v, k=None):
    return (ctx.va - ctx.hits(v)[1]).astype(np.float64)


def m_fn(ctx, v, k=None):
    _, V, C = ctx.hits(v)
    return (C - V).astype(np.float64)


def m_tn(ctx, v, k=None):
    _, V, C = ctx.hits(v)
    return (ctx.ds + V - ctx.va - C).astype(np.float64)


def m_acc(ctx, v, k=None):
    _, V, C = ctx.hits(v)
    tp, fp, fn = V, ctx.va - V, C - V
    tn = ctx.ds + V - ctx.va - C
    return ratio(tp + tn, tp + tn + fp + fn)


def m_prec(ctx, v, k=None):
    return ratio(ctx.hits(v)[1], ctx.va)


def m_rec(ctx, v, k=None):
    _, V, C = ctx.hits(v)
    return ratio(V, C, _no(ctx, v))


def m_ft(ctx, v, k=None):
    cum, _, C = ctx.hits(v)
    d1 = np.minimum(ctx.va, C)
    return ratio(ctx.at(cum, d1), d1, _no(ctx, v))


def m_st(ctx, v, k=None):
    cum, _, C = ctx.hits(v)
    d2 = np.minimum(ctx.va, 2 * C)
    return ratio(ctx.at(cum, d2), d2, _no(ctx, v))


def m_ap(ctx, v, k=None):
    return ratio(ctx.precision_sum[v], ctx.hits(v)[1], _no(ctx, v))


def m_ap_trec(ctx, v, k=None):
    return ratio(ctx.precision_sum[v], ctx.hits(v)[2], _no(ctx, v))


def m_ap_boli(ctx, v=None, k=None):
    # the SHREC MATLAB toolkits' row of precisions is as wide as the largest
    # class of the contest, zero-padded, and its mean is taken
    return ratio(ctx.precision_sum["r"], ctx.max_relevant, ctx.no_rel)


def m_adr(ctx, v=None, k=None):
    q = np.minimum(ctx.va, ctx.cr)
    n = int(q.max()) if ctx.B else 0
    if n == 0:
        return ratio(np.zeros(ctx.B), q, ctx.no_rel)
    i = np.arange(1, n + 1)
    f = np.where(i[None, :] <= ctx.ch[:, None], ctx.cum_hr[:, :n], ctx.cum_rel[:, :n])
    terms = np.where(i[None, :] <= q[:, None], f / i, 0.0)
    return ratio(row_sums(terms), q, ctx.no_rel)


def m_p_at(ctx, v, k):
    return ctx.at(ctx.cum_rel, k) / float(k)


def m_r_at(ctx, v, k):
    return ratio(ctx.at(ctx.cum_rel, k), ctx.cr, ctx.no_rel)


def _prefix_col(ctx, arr, k):
    """Value at rank k of a cumulative array over the prefix; past the end
    of the gain matrix nothing more is gained."""
    return arr[:, min(k, arr.shape[1]) - 1]


def m_cg_at(ctx, v, k):
    return _prefix_col(ctx, ctx.cg, k).astype(np.float64)


def m_dcg_at(ctx, v, k):
    return _prefix_col(ctx, ctx.dcg, k).copy()


def m_ncg_at(ctx, v, k):
    return ratio(_prefix_col(ctx, ctx.cg, k), ctx.icg[:, k - 1], ctx.no_rel)


def m_ndcg_at(ctx, v, k):
    return ratio(_prefix_col(ctx, ctx.dcg, k), ctx.idcg[:, k - 1], ctx.no_rel)


def m_nn(ctx, v=None, k=None):
    return ratio(ctx.rel[:, 0], 1, ctx.no_rel)


def m_ft_psb(ctx, v=None, k=None):
    return ratio(ctx.at(ctx.cum_rel, ctx.cr), ctx.cr, ctx.no_rel)


def m_st_psb(ctx, v=None, k=None):
    return ratio(ctx.at(ctx.cum_rel, 2 * ctx.cr), ctx.cr, ctx.no_rel)


def m_map_at_r(ctx, v=None, k=None):
    # Musgrave et al. 2020: (1/R) sum_{i<=R} P(i) rel(i), R = Cr; the hits'
    # precisions added in rank order (bincount), as precision_sum does
    r, c, _, m = ctx.hit_list
    keep = c < ctx.cr[r]
    s = np.bincount(r[keep], weights=(m / (c + 1.0))[keep], minlength=ctx.B)
    return ratio(s, ctx.cr, ctx.no_rel)


def m_e_measure(ctx, v=None, k=None):
    # F1 of P = h/k and R = h/C is 2h / (k + C): exact, and 0 when h = 0.
    kk = np.minimum(32, ctx.ds)
    return ratio(2 * ctx.at(ctx.cum_rel, kk), kk + ctx.cr, ctx.no_rel)


def m_dcg_psb(ctx, v=None, k=None):
    r, c, _, _ = ctx.hit_list
    dcg = np.bincount(r, weights=ctx.disc[c], minlength=ctx.B)
    n = int(ctx.cr.max()) if ctx.B else 0
    ideal = np.concatenate(([0.0], np.cumsum(discounts(max(n, 1)))))
    return ratio(dcg, ideal[ctx.cr], ctx.no_rel)


# ---------------------------------------------------------------------------
# The registry


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


FAMILIES = {
    "shapenet": "ShapeNet (SHREC 2016/2017)",
    "shrec2006_hr": "SHREC 2006 (highly relevant)",
    "shrec2006_r": "SHREC 2006 (relevant)",
    "shrec2006": "SHREC 2006",
    "cutoff": "At rank K",
    "psb": "PSB / SHREC 2012",
}


@dataclass(frozen=True)
class Measure:
    """One measure.  ``key`` may hold ``{k}`` for a measure at each rank of
    the options (``ndcg@{k}``); :func:`expand` makes the concrete keys."""

    key: str
    label: str
    family: str
    definition: str
    compute: Callable
    variant: str | None = None
    higher_is_better: bool = True
    is_count: bool = False
    #: the profiles that report it (empty: every profile)
    profiles: tuple[str, ...] = ()
    #: other names the command line and the library accept for it (other
    #: tools' names: pytorch-metric-learning's ``r_precision`` ...)
    aliases: tuple[str, ...] = ()

    @property
    def at_rank(self) -> bool:
        return "{k}" in self.key


@dataclass(frozen=True)
class ConcreteMeasure:
    """A registry measure with its rank filled in: what a table column is."""

    key: str
    label: str
    family: str
    definition: str
    higher_is_better: bool
    is_count: bool
    measure: Measure
    k: int | None

    def compute(self, ctx: ChunkContext) -> np.ndarray:
        return self.measure.compute(ctx, self.measure.variant, self.k)


def _twins(
    key: str,
    label: str,
    definition: str,
    fn: Callable,
    *,
    higher_is_better: bool = True,
    is_count: bool = False,
) -> list[Measure]:
    """The highly relevant and relevant variants of a SHREC 2006 measure."""
    out = []
    for v, name, what, c in (
        ("hr", "highly relevant", "grade = top grade", "Ch"),
        ("r", "relevant", "grade >= 1", "Cr"),
    ):
        out.append(
            Measure(
                key=f"{key}_{v}",
                label=f"{label} ({name})",
                family=f"shrec2006_{v}",
                definition=definition.replace("{C}", c).replace("{what}", what),
                compute=fn,
                variant=v,
                higher_is_better=higher_is_better,
                is_count=is_count,
            )
        )
    return out


MEASURES: tuple[Measure, ...] = tuple(
    _twins("tp", "True Positives", "V: items with {what} in the ranked list", m_tp, is_count=True)
    + _twins(
        "fp",
        "False Positives",
        "Va - V: retrieved items without {what}",
        m_fp,
        higher_is_better=False,
        is_count=True,
    )
    + _twins(
        "tn",
        "True Negatives",
        "Ds + V - Va - {C}: items neither retrieved nor with {what}",
        m_tn,
        is_count=True,
    )
    + _twins(
        "fn",
        "False Negatives",
        "{C} - V: items with {what} not retrieved",
        m_fn,
        higher_is_better=False,
        is_count=True,
    )
    + _twins("acc", "Accuracy", "(TP + TN) / (TP + TN + FP + FN)", m_acc)
    + _twins("prec", "Precision", "V / Va (0 for an empty list)", m_prec)
    + _twins("rec", "Recall", "V / {C}", m_rec)
    + _twins("ft", "First Tier", "hits in the first min(Va, {C}) items / min(Va, {C})", m_ft)
    + _twins("st", "Second Tier", "hits in the first min(Va, 2{C}) items / min(Va, 2{C})", m_st)
    + _twins(
        "ap",
        "Average Precision",
        "mean precision at the ranks of the retrieved hits (divides by V, SHREC 2006)",
        m_ap,
    )
    + _twins(
        "ap_trec",
        "Average Precision (trec)",
        "sum of precision at the ranks of the retrieved hits / {C} (trec_eval's AP)",
        m_ap_trec,
    )
    + [
        Measure(
            "ap_boli",
            "Average Precision (SHREC toolkit, / max C)",
            "shrec2006_r",
            "sum of precision at the ranks of the retrieved hits / the largest Cr of the "
            "contest, as the SHREC MATLAB toolkits compute it (their bug; ap_trec_r is "
            "the corrected figure)",
            m_ap_boli,
            profiles=("boli",),
        ),
        Measure(
            "adr",
            "Average Dynamic Recall",
            "shrec2006",
            "(1/q) sum_{i<=q} f_i / i, q = min(Va, Cr); f_i = highly relevant in the "
            "first i if i <= Ch, else relevant in the first i",
            m_adr,
        ),
        Measure(
            "p@{k}",
            "Precision@{k}",
            "cutoff",
            "relevant (grade >= 1) in the first {k} / {k}",
            m_p_at,
        ),
        Measure(
            "r@{k}", "Recall@{k}", "cutoff", "relevant (grade >= 1) in the first {k} / Cr", m_r_at
        ),
        Measure(
            "cg@{k}",
            "CG@{k}",
            "cutoff",
            "cumulated gain: sum of the grades of the first {k}",
            m_cg_at,
        ),
        Measure(
            "dcg@{k}",
            "DCG@{k}",
            "cutoff",
            "discounted cumulated gain: G[1] + sum_{i=2..{k}} G[i] / log2 i",
            m_dcg_at,
        ),
        Measure("ncg@{k}", "NCG@{k}", "cutoff", "CG@{k} / ideal CG@{k}", m_ncg_at),
        Measure("ndcg@{k}", "NDCG@{k}", "cutoff", "DCG@{k} / ideal DCG@{k}", m_ndcg_at),
        Measure(
            "nn",
            "Nearest Neighbour",
            "psb",
            "1 if the first item is relevant, else 0",
            m_nn,
            aliases=("precision_at_1",),
        ),
        Measure(
            "ft_psb",
            "First Tier (PSB)",
            "psb",
            "relevant in the first R / R, R = Cr",
            m_ft_psb,
            aliases=("r_precision",),
        ),
        Measure("st_psb", "Second Tier (PSB)", "psb", "relevant in the first 2R / R", m_st_psb),
        Measure(
            "e_measure",
            "E-Measure",
            "psb",
            "F1 of precision and recall over the first min(32, Ds) items",
            m_e_measure,
        ),
        Measure(
            "dcg_psb",
            "DCG (PSB)",
            "psb",
            "DCG of the whole list (binary gains) / ideal DCG",
            m_dcg_psb,
        ),
        Measure(
            "map@r",
            "MAP@R",
            "psb",
            "(1/R) sum_{i<=R} P(i) rel(i), R = Cr: precision at each hit of the first R, "
            "divided by R (Musgrave et al., A Metric Learning Reality Check, 2020)",
            m_map_at_r,
            aliases=("mean_average_precision_at_r",),
        ),
    ]
    + [
        Measure(key, label, "shapenet", definition, fn, profiles=("shapenet17",))
        for key, label, definition, fn in (
            ("p_at_n", "P@N", "relevant (grade > 0) in the filtered list / its length", m_sn_p),
            (
                "r_at_n",
                "R@N",
                "relevant in the filtered list / min(|synset in split|, 1000)",
                m_sn_r,
            ),
            ("f1_at_n", "F1@N", "2 P@N R@N / (P@N + R@N), 0 when both are 0", m_sn_f1),
            (
                "map_sn",
                "mAP (ShapeNet)",
                "sum of precision at the hits / min(|synset in split|, 1000)",
                m_sn_ap,
            ),
            (
                "ndcg_sn",
                "NDCG (ShapeNet)",
                "DCG of the grades 3/2/1/0 over the first R / DCG of the first R oracle "
                "grades in CSV order, sorted (can exceed 1 for a synset of more than 1000)",
                m_sn_ndcg,
            ),
        )
    ]
)


def expand(ranks: Sequence[int], profile: str | None = "shrec") -> list[ConcreteMeasure]:
    """The concrete measures (table columns) for the given @K ranks, in
    registry order: those of every profile and those of ``profile`` (None:
    every measure of the registry)."""
    out = []
    for m in MEASURES:
        if m.profiles and profile is not None and profile not in m.profiles:
            continue
        for k in ranks if m.at_rank else (None,):
            out.append(
                ConcreteMeasure(
                    _at_rank(m.key, k),
                    _at_rank(m.label, k),
                    m.family,
                    _at_rank(m.definition, k),
                    m.higher_is_better,
                    m.is_count,
                    m,
                    k,
                )
            )
    return out


def _at_rank(text: str, k: int | None) -> str:
    return text if k is None else text.replace("{k}", str(k))


def canonical_key(key: str) -> str:
    """The registry key of a measure named by one of its aliases (any
    other key unchanged)."""
    return _aliases().get(key, key)


@lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    return {alias: m.key for m in MEASURES for alias in m.aliases}


def measure_by_key(key: str, ranks: Sequence[int] = (5, 10, 25, 50, 100)) -> ConcreteMeasure:
    try:
        return _by_key(tuple(ranks))[canonical_key(key)]
    except KeyError:
        raise KeyError(key) from None


@lru_cache(maxsize=32)
def _by_key(ranks: tuple[int, ...]) -> dict[str, ConcreteMeasure]:
    return {cm.key: cm for cm in expand(ranks, None)}
