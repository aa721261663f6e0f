"""The measures every profile computes, declared once as data: each
:class:`Measure` (key, label, family, definition, direction and the small
function that computes it for a chunk of queries from a
:class:`~shrec_eval.scoring.chunk.ChunkContext`), the other tools' names for
them (:class:`Alias`), and :func:`concrete`, a list of measures at @K ranks
as table columns.  Most measures are bindings of a measure family with
parameters (:class:`Bound`: ``ft_r`` is ``ft(divide=min_va)``; the families
are :mod:`shrec_eval.scoring.families`).  A profile declares its own
measures with these types; the registry across profiles
(:func:`~shrec_eval.scoring.measures.expand`, ``resolve``...) is
:mod:`shrec_eval.scoring.measures`.

Values are float64 per query; NaN means *undefined* (nothing to find: the
assessment has no relevant item of that kind for the query).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .chunk import ChunkContext, ratio, row_sums
from .params import parse

# ---------------------------------------------------------------------------
# The measures: bindings of the families (families.py), and two functions


class Bound:
    """The compute function of a registry measure that is a binding of a
    family (:mod:`shrec_eval.scoring.families`): ``Bound("ap(divide=found)")``,
    ``Bound("ndcg@{k}")`` (the rank filled at each call).  Called as a
    measure's function ``(ctx, variant, k)`` or as a profile's override
    ``(ctx)`` / ``(ctx, k)``: the last argument is the rank."""

    __slots__ = ("form", "_binding")

    def __init__(self, form: str) -> None:

        self._binding = parse(form)
        self.form = self._binding.name()

    @property
    def binding(self):
        return self._binding

    def __call__(self, ctx: ChunkContext, *rest) -> np.ndarray:
        return self._binding.at_rank(rest[-1] if rest else None).compute(ctx)

    def __eq__(self, other) -> bool:
        return isinstance(other, Bound) and other.form == self.form

    def __hash__(self) -> int:
        return hash(self.form)

    def __repr__(self) -> str:
        return f"Bound({self.form!r})"


def m_adr(ctx, v=None, k=None):
    q = np.minimum(ctx.va, ctx.cr)
    n = int(q.max()) if ctx.B else 0
    if n == 0:
        return ratio(np.zeros(ctx.B), q, ctx.no_rel)
    i = np.arange(1, n + 1)
    f = np.where(i[None, :] <= ctx.ch[:, None], ctx.cum_hr[:, :n], ctx.cum_rel[:, :n])
    terms = np.where(i[None, :] <= q[:, None], f / i, 0.0)
    return ratio(row_sums(terms), q, ctx.no_rel)


def m_nn(ctx, v=None, k=None):
    return ratio(ctx.rel[:, 0], 1, ctx.no_rel)


# ---------------------------------------------------------------------------
# The registry


FAMILIES = {
    "shapenet": "ShapeNet (SHREC 2016/2017)",
    "shrec2006_hr": "SHREC 2006 (highly relevant)",
    "shrec2006_r": "SHREC 2006 (relevant)",
    "shrec2006": "SHREC 2006",
    "cutoff": "At rank K",
    "psb": "PSB / SHREC 2012",
    "trec": "trec_eval",
    "params": "With parameters",
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
    #: the short column head of printed tables and figures (NN, FT, mAP, NDCG@{k})
    short: str = ""

    @property
    def at_rank(self) -> bool:
        return "{k}" in self.key

    @property
    def binding(self):
        """The family binding (:mod:`shrec_eval.scoring.params`) this measure
        is, None for a function of its own (``adr``, a profile's)."""
        return self.compute.binding if isinstance(self.compute, Bound) else None


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
    short: str = ""

    def compute(self, ctx: ChunkContext) -> np.ndarray:
        return self.measure.compute(ctx, self.measure.variant, self.k)


def _twins(
    key: str,
    label: str,
    definition: str,
    form: str,
    *,
    higher_is_better: bool = True,
    is_count: bool = False,
    short: str,
    short_r: str | None = None,
) -> list[Measure]:
    """The highly relevant and relevant variants of a SHREC 2006 measure
    (short heads ``short-hr`` and ``short-r``, or ``short_r``): the
    binding ``form`` with ``rel=top`` and ``rel=1`` in its ``{rel}``."""
    out = []
    for v, name, what, c in (
        ("hr", "highly relevant", "grade = top grade", "Ch"),
        ("r", "relevant", "grade >= 1", "Cr"),
    ):
        out.append(
            Measure(
                key=f"{key}_{v}",
                # "Average Precision (trec, relevant)", not "(trec) (relevant)"
                label=f"{label[:-1]}, {name})" if label.endswith(")") else f"{label} ({name})",
                family=f"shrec2006_{v}",
                definition=definition.replace("{C}", c).replace("{what}", what),
                compute=Bound(form.replace("{rel}", "top" if v == "hr" else "1")),
                variant=v,
                higher_is_better=higher_is_better,
                is_count=is_count,
                short=short_r if v == "r" and short_r else f"{short}-{v}",
            )
        )
    return out


#: the measures every profile computes; a profile's own measures (trec_eval's
#: rr and iprec, boli's ap_boli...) are declared in its module
#: (``Profile.measures``) and come after these in :data:`MEASURES`
BASE_MEASURES: tuple[Measure, ...] = tuple(
    _twins(
        "tp",
        "True Positives",
        "V: items with {what} in the ranked list",
        "tp(rel={rel})",
        is_count=True,
        short="TP",
    )
    + _twins(
        "fp",
        "False Positives",
        "Va - V: retrieved items without {what}",
        "fp(rel={rel})",
        higher_is_better=False,
        is_count=True,
        short="FP",
    )
    + _twins(
        "tn",
        "True Negatives",
        "Ds + V - Va - {C}: items neither retrieved nor with {what}",
        "tn(rel={rel})",
        is_count=True,
        short="TN",
    )
    + _twins(
        "fn",
        "False Negatives",
        "{C} - V: items with {what} not retrieved",
        "fn(rel={rel})",
        higher_is_better=False,
        is_count=True,
        short="FN",
    )
    + _twins("acc", "Accuracy", "(TP + TN) / (TP + TN + FP + FN)", "acc(rel={rel})", short="Acc")
    + _twins("prec", "Precision", "V / Va (0 for an empty list)", "p(rel={rel})", short="Prec")
    + _twins("rec", "Recall", "V / {C}", "r(rel={rel})", short="Rec")
    + _twins(
        "ft",
        "First Tier",
        "hits in the first min(Va, {C}) items / min(Va, {C})",
        "ft(rel={rel},divide=min_va)",
        short="Tier1",
    )
    + _twins(
        "st",
        "Second Tier",
        "hits in the first min(Va, 2{C}) items / min(Va, 2{C})",
        "st(rel={rel},divide=min_va)",
        short="Tier2",
    )
    + _twins(
        "ap",
        "Average Precision",
        "mean precision at the ranks of the retrieved hits (divides by V, SHREC 2006)",
        "ap(rel={rel},divide=found)",
        short="AP",
    )
    + _twins(
        "ap_trec",
        "Average Precision (trec)",
        "sum of precision at the ranks of the retrieved hits / {C} (trec_eval's AP)",
        "ap(rel={rel})",
        short="mAP",
        short_r="mAP",
    )
    + [
        Measure(
            "adr",
            "Average Dynamic Recall",
            "shrec2006",
            "(1/q) sum_{i<=q} f_i / i, q = min(Va, Cr); f_i = highly relevant in the "
            "first i if i <= Ch, else relevant in the first i",
            m_adr,
            short="ADR",
        ),
        Measure(
            "p@{k}",
            "Precision@{k}",
            "cutoff",
            "relevant (grade >= 1) in the first {k} / {k}",
            Bound("p@{k}"),
            short="P@{k}",
        ),
        Measure(
            "r@{k}",
            "Recall@{k}",
            "cutoff",
            "relevant (grade >= 1) in the first {k} / Cr",
            Bound("r@{k}"),
            short="R@{k}",
        ),
        Measure(
            "cg@{k}",
            "CG@{k}",
            "cutoff",
            "cumulated gain: sum of the grades of the first {k}",
            Bound("dcg(discount=none)@{k}"),
            short="CG@{k}",
        ),
        Measure(
            "dcg@{k}",
            "DCG@{k}",
            "cutoff",
            "discounted cumulated gain: G[1] + sum_{i=2..{k}} G[i] / log2 i",
            Bound("dcg@{k}"),
            short="DCG@{k}",
        ),
        Measure(
            "ncg@{k}",
            "NCG@{k}",
            "cutoff",
            "CG@{k} / ideal CG@{k}",
            Bound("ndcg(discount=none)@{k}"),
            short="NCG@{k}",
        ),
        Measure(
            "ndcg@{k}",
            "NDCG@{k}",
            "cutoff",
            "DCG@{k} / ideal DCG@{k}",
            Bound("ndcg@{k}"),
            short="NDCG@{k}",
        ),
        Measure(
            "nn",
            "Nearest Neighbour",
            "psb",
            "1 if the first item is relevant, else 0",
            m_nn,
            short="NN",
        ),
        Measure(
            "ft_psb",
            "First Tier (PSB)",
            "psb",
            "relevant in the first R / R, R = Cr",
            Bound("ft"),
            short="FT",
        ),
        Measure(
            "st_psb",
            "Second Tier (PSB)",
            "psb",
            "relevant in the first 2R / R",
            Bound("st"),
            short="ST",
        ),
        Measure(
            "e_measure",
            "E-Measure",
            "psb",
            "F1 of precision and recall over the first min(32, Ds) items",
            Bound("e@32"),
            short="E",
        ),
        Measure(
            "dcg_psb",
            "DCG (PSB)",
            "psb",
            "DCG of the whole list (binary gains) / ideal DCG",
            Bound("ndcg(gain=binary)"),
            short="DCG",
        ),
        Measure(
            "map@r",
            "MAP@R",
            "psb",
            "(1/R) sum_{i<=R} P(i) rel(i), R = Cr: precision at each hit of the first R, "
            "divided by R (Musgrave et al., A Metric Learning Reality Check, 2020)",
            Bound("ap@R"),
            short="MAP@R",
        ),
    ]
)


# ---------------------------------------------------------------------------
# Names other tools give the registry's measures


@dataclass(frozen=True)
class Alias:
    """Another tool's name for a registry measure.  ``name`` and ``key`` may
    hold ``{k}`` (a rank: ``P_{k}`` -> ``p@{k}``).  A profile's own aliases
    (``Profile.aliases``: trec_eval's and ir_measures' names) give exactly
    the tool's number under that profile; ``strict``: refused under the
    other profiles, because the registry's measure of that key is defined
    differently there.  ``note`` says what differs where it does not hold."""

    name: str
    key: str
    tool: str
    strict: bool = False
    note: str = ""


_SHREC = "SHREC toolkits / psbTable"
_PML = "pytorch-metric-learning"

#: the names of every profile; each profile's own come after them in :data:`ALIASES`
BASE_ALIASES: tuple[Alias, ...] = (
    Alias("NN", "nn", _SHREC),
    Alias("FT", "ft_psb", _SHREC),
    Alias("ST", "st_psb", _SHREC),
    Alias("E", "e_measure", _SHREC),
    Alias("DCG", "dcg_psb", _SHREC),
    # pytorch-metric-learning's AccuracyCalculator
    Alias("mean_average_precision_at_r", "map@r", _PML),
    Alias("r_precision", "ft_psb", _PML),
    Alias("precision_at_1", "nn", _PML),
)


def concrete(ranks: Sequence[int], measures: Sequence[Measure]) -> list[ConcreteMeasure]:
    """The concrete measures (table columns) of ``measures`` at the given @K
    ranks, in their order."""
    out = []
    for m in measures:
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
                    _at_rank(m.short, k),
                )
            )
    return out


def _at_rank(text: str, k: int | None) -> str:
    return text if k is None else text.replace("{k}", str(k))
