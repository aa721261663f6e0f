"""The measure families and their parameters, declared once
(:mod:`shrec_eval.scoring.params` reads their syntax): each :class:`Family`
lists its parameters (allowed values, default) and computes any binding of
them for a block of queries from a :class:`~shrec_eval.scoring.chunk.ChunkContext`.

The registry's measures are bindings of these families under their stable
keys (``ndcg@K`` is ``ndcg@K``, ``ft_psb`` is ``ft``, ``ap_r`` is
``ap(divide=found)``, ``dcg_psb`` is ``ndcg(gain=binary)``): one function
computes a measure whatever name it is asked by, and the registry's keys
give the same bits they gave before they were bindings (the sums are
added in the same order).

Values are float64 per query, NaN where undefined (nothing to find: no
item of the relevance asked for).  Ties are no parameter: the order of a
ranked list is decided when it is read (the reading rules of
docs/profiles.md: trec_eval's tie order, the stable sort of a matrix row).
"""

from __future__ import annotations

import numpy as np

from .chunk import ratio
from .cumulated import f_dcg, f_ndcg
from .family import Family, Param

__all__ = ["BY_NAME", "FAMILY_LIST"]

# ---------------------------------------------------------------------------
# The parameters several families share

REL = Param(
    "rel",
    {"1": "grade >= 1 (relevant)", "top": "grade = the top grade (highly relevant)"},
    "1",
    "the grade from which an item counts as relevant (C, V and hits count those items)",
    grade=True,
)
GAIN = Param(
    "gain",
    {
        "grade": "an item gains its grade",
        "binary": "an item gains 1 if relevant (grade >= 1)",
        "exp2": "an item gains 2^grade - 1",
    },
    "grade",
    "what an item at a rank gains",
)
DISCOUNT = Param(
    "discount",
    {
        "log2_from_2": "rank 1 undiscounted, rank i >= 2 divided by log2(i) (SHREC 2006, PSB)",
        "log2_from_1": "rank i divided by log2(i + 1) from rank 1 (trec_eval, Jarvelin and "
        "Kekalainen, most later work)",
        "none": "no discount: cumulated gain (CG, NCG)",
    },
    "log2_from_2",
    "how a gain at rank i is discounted",
)
IDEAL = Param(
    "ideal",
    {
        "judged": "every judged grade of the query, sorted (the ideal ranking of the collection)",
        "retrieved": "the grades of the retrieved items, sorted (the best order of the list "
        "itself)",
    },
    "judged",
    "the ideal list the DCG is divided by (cut at the same depth)",
)
TIER = Param(
    "tier",
    {"C": "T = C", "C-1": "T = C - 1 (class sizes counted with the query)"},
    "C",
    "the tier size T",
)
PLUS_ONE = Param(
    "plus_one",
    {"false": "the hits as counted", "true": "one more hit than counted (SHREC 2021's script)"},
    "false",
    "whether 1 is added to the hits",
)

# ---------------------------------------------------------------------------
# Small pieces


def _rel(ctx, p) -> tuple[int, np.ndarray]:
    level = ctx.level(p["rel"])
    return level, ctx.relevant(level)


def _depth(C: np.ndarray, at):
    """The depth of a cutoff: K, R (one per query), None for the whole list."""
    return C if at == "R" else at


def f_tp(ctx, p, at=None):
    return ctx.found(ctx.level(p["rel"])).astype(np.float64)


def f_fp(ctx, p, at=None):
    return (ctx.va - ctx.found(ctx.level(p["rel"]))).astype(np.float64)


def f_fn(ctx, p, at=None):
    level, C = _rel(ctx, p)
    return (C - ctx.found(level)).astype(np.float64)


def f_tn(ctx, p, at=None):
    level, C = _rel(ctx, p)
    return (ctx.ds + ctx.found(level) - ctx.va - C).astype(np.float64)


def f_acc(ctx, p, at=None):
    level, C = _rel(ctx, p)
    V = ctx.found(level)
    tp, fp, fn = V, ctx.va - V, C - V
    tn = ctx.ds + V - ctx.va - C
    return ratio(tp + tn, tp + tn + fp + fn)


def f_p(ctx, p, at=None):
    level, C = _rel(ctx, p)
    if at is None:
        return ratio(ctx.found(level), ctx.va)
    if at == "R":
        return ratio(ctx.within(level, C), C, C == 0)
    return ctx.within(level, at) / float(at)


def f_r(ctx, p, at=None):
    level, C = _rel(ctx, p)
    if at is None:
        return ratio(ctx.found(level), C, C == 0)
    return ratio(ctx.within(level, _depth(C, at)), C, C == 0)


def _tier(ctx, p) -> tuple[int, np.ndarray, np.ndarray]:
    level, C = _rel(ctx, p)
    T = C if p["tier"] == "C" else np.maximum(C - 1, 0)
    return level, C, T


def f_ft(ctx, p, at=None):
    level, C, T = _tier(ctx, p)
    count = ctx.within(level, T)
    if p["plus_one"] == "true":
        count = count + 1
    den = T if p["divide"] == "T" else np.minimum(ctx.va, T)
    return ratio(count, den, C == 0)


def f_st(ctx, p, at=None):
    level, C, T = _tier(ctx, p)
    depth = 2 * T
    count = ctx.within(level, depth)
    if p["plus_one"] == "true":
        count = count + 1
    den = {"T": T, "2T": depth, "min_va": np.minimum(ctx.va, depth)}[p["divide"]]
    out = ratio(count, den)
    if p["early_exit"] == "1":
        # SHREC 2021's loop stops at the C-th relevant item and ST keeps its
        # first value, 1.0, unless that item comes at rank 2T or later
        r, c, _, m = ctx.level_hits(level)
        last = np.full(ctx.B, -1, dtype=np.int64)
        at_c = m == C[r]
        last[r[at_c]] = c[at_c]  # the 0-based rank of the C-th hit
        # (an item never retrieved is not retrieved late: 1.0, also when 2T = 0)
        out = np.where((last >= 0) & (last >= depth - 1), out, 1.0)
    out[C == 0] = np.nan
    return out


def f_ap(ctx, p, at=None):
    level, C = _rel(ctx, p)
    depth = _depth(C, at)
    total = ctx.precision_sum_of(level, depth)
    divide = p["divide"]
    if divide == "relevant":
        den = C
    elif divide == "found":
        den = ctx.found(level) if depth is None else ctx.within(level, depth)
    elif divide == "min_k":
        den = np.minimum(C, ctx.va if depth is None else depth)
    else:  # contest_max: the SHREC MATLAB toolkits' row as wide as the largest class
        den = ctx.max_relevant
    return ratio(total, den, C == 0)


def f_e(ctx, p, at=None):
    level, C = _rel(ctx, p)
    k = np.minimum(_depth(C, at), ctx.ds)
    # F1 of P = h/k and R = h/C is 2h / (k + C): exact, and 0 when h = 0
    return ratio(2 * ctx.within(level, k), k + C, C == 0)


# ---------------------------------------------------------------------------
# The families


def _counts(name, label, definition, compute, **kw) -> Family:
    return Family(name, label, "shrec2006_r", definition, (REL,), "", compute, **kw)


FAMILY_LIST: tuple[Family, ...] = (
    _counts("tp", "True Positives", "V: relevant items in the list", f_tp, is_count=True),
    _counts(
        "fp",
        "False Positives",
        "Va - V: retrieved items that are not relevant",
        f_fp,
        higher_is_better=False,
        is_count=True,
    ),
    _counts(
        "tn",
        "True Negatives",
        "Ds + V - Va - C: items neither retrieved nor relevant",
        f_tn,
        is_count=True,
    ),
    _counts(
        "fn",
        "False Negatives",
        "C - V: relevant items not retrieved",
        f_fn,
        higher_is_better=False,
        is_count=True,
    ),
    _counts("acc", "Accuracy", "(TP + TN) / (TP + TN + FP + FN)", f_acc),
    Family(
        "p",
        "Precision",
        "cutoff",
        "relevant items in the first K / K (K even past the end of the list); whole list: "
        "V / Va (0 for an empty list)",
        (REL,),
        "optional",
        f_p,
    ),
    Family(
        "r",
        "Recall",
        "cutoff",
        "relevant items in the first K / C; whole list: V / C",
        (REL,),
        "optional",
        f_r,
    ),
    Family(
        "ft",
        "First Tier",
        "psb",
        "relevant items in the first T / the divisor",
        (
            REL,
            TIER,
            Param(
                "divide",
                {
                    "T": "the tier size T (PSB)",
                    "min_va": "min(Va, T), the part of the tier the list has (SHREC 2006)",
                },
                "T",
                "what the hits are divided by",
            ),
            PLUS_ONE,
        ),
        "",
        f_ft,
    ),
    Family(
        "st",
        "Second Tier",
        "psb",
        "relevant items in the first 2T / the divisor",
        (
            REL,
            TIER,
            Param(
                "divide",
                {
                    "T": "the tier size T: a recall, 1 for a perfect list (PSB)",
                    "2T": "twice the tier size (SHREC 2021's script)",
                    "min_va": "min(Va, 2T), the part of the two tiers the list has (SHREC 2006)",
                },
                "T",
                "what the hits are divided by",
            ),
            PLUS_ONE,
            Param(
                "early_exit",
                {
                    "none": "no early exit: computed as the other parameters say",
                    "1": "1.0 unless the C-th relevant item is retrieved at rank 2T or later "
                    "(SHREC 2021's loop stops at the last relevant item)",
                },
                "none",
                "the value when the list's relevant items end early",
            ),
        ),
        "",
        f_st,
    ),
    Family(
        "ap",
        "Average Precision",
        "shrec2006_r",
        "the sum of the precisions at the ranks of the relevant items retrieved (within "
        "the cutoff) / the divisor",
        (
            REL,
            Param(
                "divide",
                {
                    "relevant": "C, the relevant items (trec_eval, PSB)",
                    "found": "the relevant items retrieved (SHREC 2006)",
                    "min_k": "min(C, K), K the cutoff (the list's length without one)",
                    "contest_max": "the largest number of relevant items (grade >= 1) of "
                    "any query of the contest (the SHREC MATLAB toolkits)",
                },
                "relevant",
                "what the sum is divided by",
            ),
        ),
        "optional",
        f_ap,
    ),
    Family(
        "e",
        "E-Measure",
        "psb",
        "F1 of precision and recall over the first k = min(K, Ds) items: 2 hits / (k + C)",
        (REL,),
        "required",
        f_e,
    ),
    Family(
        "dcg",
        "DCG",
        "cutoff",
        "the discounted cumulated gain of the list (0 past its end)",
        (GAIN, DISCOUNT),
        "optional",
        f_dcg,
    ),
    Family(
        "ndcg",
        "NDCG",
        "cutoff",
        "the DCG of the list / the DCG of the ideal list, both cut at the cutoff",
        (GAIN, DISCOUNT, IDEAL),
        "optional",
        f_ndcg,
    ),
)

BY_NAME: dict[str, Family] = {f.name: f for f in FAMILY_LIST}
