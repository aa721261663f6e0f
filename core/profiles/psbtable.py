"""``psbtable``: the Princeton Shape Benchmark's ``psbTable`` (C), as read
from its source (docs/profiles.md).

* Ranking: the query's own entry is set to FLT_MAX, so it sorts last but
  holds a position; ties go to the lower index.  Removing the query from its
  list (``remove_self``) leaves exactly ranks 1..N-1 of psbTable's list, so
  the engine's matrix ranking is used as it is.
* The models of the class named ``-1`` (PSBClaParse's MISC_CLASS) are not
  queries; classes of at most 2 models leave the class table and both
  averages (``psb_class_cutoff``).
* NN, FT, ST, E and DCG as psbTable computes them, in float32, with 0 where
  the class has one model; E's K = min(32, N-1); DCG over ranks 1..N-1.
* Native files: what psbTable prints with no flag, ``-macro``, ``-class``
  and ``-model`` are layouts of its evaluator file (``builtin/psbtable.toml``);
  with ``pr_interpolation="psbplot"`` also what psbPlot prints with no flag
  and ``-macro`` (:func:`psbplot_files`, code).

This module holds what the evaluator file names as code (hooks): the
float32 measures, the class -1 and psbPlot's files.

Known psbTable bug, documented and not reproduced: when the ``-1`` class is
not the last class of the file, the class rows after it average the wrong
models (its model counter does not skip the ``-1`` models).
"""

from __future__ import annotations

import numpy as np

from ..model.assessment import Assessment, make_warning
from .hooks import NativeHook

MISC_CLASS = "-1"
CUTOFF = 2
K = 32
#: psbTable's column order
COLUMNS = ("nn", "ft_psb", "st_psb", "e_measure", "dcg_psb")
F32 = np.float32


def scored(assessment: Assessment, options):
    """Every model is a query except those of the class named -1."""
    classes = assessment.query_classes
    if classes is None:
        return np.ones(assessment.n_queries, dtype=bool), []
    misc = np.array([c == MISC_CLASS for c in classes], dtype=bool)
    notes = []
    if misc.any():
        notes.append(
            make_warning(
                "misc_class",
                "models of the miscellaneous class -1 are not queries (psbTable); "
                "they stay targets",
                [q for q, m in zip(assessment.query_ids, misc) if m],
            )
        )
    cla = assessment.classification
    if misc.any() and cla is not None:
        filled = [c.name for c in cla.classes if c.models]
        if filled and filled[-1] != MISC_CLASS:
            notes.append(
                make_warning(
                    "misc_class_not_last",
                    "the class -1 is not the last class of the .cla: psbTable's own class "
                    "table and macro average would average the wrong models after it "
                    "(its bug, not reproduced here)",
                    [c for c in filled[filled.index(MISC_CLASS) + 1 :]],
                )
            )
    return ~misc, notes


def _log2(x: np.ndarray) -> np.ndarray:
    """psbTable's own log2: log10(x) / 0.3010299957, in double."""
    return np.log10(x) / 0.3010299957


def _gain_terms(n: int) -> np.ndarray:
    """(float)(1 / log2(rank)) for ranks 1..n, rank 1 counting 1."""
    r = np.arange(1, n + 1, dtype=np.float64)
    t = np.ones(n, dtype=np.float64)
    t[1:] = 1.0 / _log2(r[1:])
    return t.astype(F32)


def f32_nn(ctx) -> np.ndarray:
    return ctx.rel[:, 0].astype(F32).astype(np.float64)


def _tier(ctx, depth) -> np.ndarray:
    C = ctx.cr
    count = ctx.at(ctx.cum_rel, depth).astype(F32)
    out = np.zeros(ctx.B, dtype=F32)
    ok = C > 0
    out[ok] = count[ok] / C[ok].astype(F32)
    return out.astype(np.float64)


def f32_ft(ctx) -> np.ndarray:
    return _tier(ctx, ctx.cr)


def f32_st(ctx) -> np.ndarray:
    # secondTier = 2C < N ? 2C : N-1, with N-1 = the list without the query
    return _tier(ctx, np.minimum(2 * ctx.cr, ctx.ds))


def f32_e(ctx) -> np.ndarray:
    kpos = np.minimum(ctx.ds, K)
    count = ctx.at(ctx.cum_rel, kpos).astype(F32)
    C = ctx.cr.astype(F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = count / C
        precision = count / kpos.astype(F32)
        e = F32(2.0) / (F32(1.0) / recall + F32(1.0) / precision)
    e = np.where((recall == 0) | (precision == 0) | (ctx.cr == 0), F32(0.0), e)
    return e.astype(F32).astype(np.float64)


def f32_dcg(ctx) -> np.ndarray:
    r, c, _, _ = ctx.hit_list
    n = max(ctx.W, int(ctx.cr.max()) if ctx.B else 0, 1)
    terms = _gain_terms(n)
    ideal = np.cumsum(terms, dtype=F32)  # 1 + sum_{i=2..C} 1/log2 i, summed in float32
    out = np.zeros(ctx.B, dtype=F32)
    starts = np.searchsorted(r, np.arange(ctx.B + 1))
    for q in range(ctx.B):
        C = int(ctx.cr[q])
        if C == 0:
            continue
        total = np.cumsum(terms[c[starts[q] : starts[q + 1]]], dtype=F32)
        tot = total[-1] if total.size else F32(0.0)
        out[q] = F32(tot) / ideal[C - 1]
    return out.astype(np.float64)


# -- psbPlot's files (code: its float32 means per recall level) ---------------------------


def _mean32(rows: np.ndarray) -> np.ndarray:
    """psbPlot's means per level: a float32 sum in row order over the rows
    that have the level, over their count; NaN where none has it."""
    out = np.full(rows.shape[1], np.nan)
    for j in range(rows.shape[1]):
        acc, valid = F32(0), 0
        for v in rows[:, j]:
            if v == v:
                acc = F32(acc + F32(v))
                valid += 1
        if valid:
            out[j] = F32(acc / F32(valid))
    return out


def psbplot_files(result, assessment: Assessment) -> dict[str, str]:
    """psbPlot's own files from a result scored with
    ``pr_interpolation="psbplot"``: ``psbplot.plot`` (no flag: the mean over
    models of their curves) and ``psbplot.macro.plot`` (``-macro``: the mean
    over the classes of more than 2 models, but ``-1``, of their models'
    mean), 20 lines ``%f\t%f`` (recall, precision), float32 sums in
    ``.cla`` order, 0 where no model or class has the level."""
    pr = result.curves["pr"].per_query
    classes = np.asarray(assessment.query_classes, dtype=object)
    names, counts = np.unique(classes, return_counts=True)
    size = dict(zip(names.tolist(), counts.tolist()))
    class_rows = [
        _mean32(pr[classes == name])
        for name in dict.fromkeys(classes.tolist())
        if name != MISC_CLASS and size[name] > CUTOFF
    ]
    macro = _mean32(np.array(class_rows)) if class_rows else np.full(pr.shape[1], np.nan)
    levels = [F32(j + 1) / F32(pr.shape[1]) for j in range(pr.shape[1])]

    def text(values) -> str:
        return "".join(
            "%f\t%f\n" % (float(x), 0.0 if v != v else float(v)) for x, v in zip(levels, values)
        )

    return {"psbplot.plot": text(_mean32(pr)), "psbplot.macro.plot": text(macro)}


def psbplot_native(results: list, assessment: Assessment) -> dict[str, str]:
    """psbPlot's files of a run scored with ``pr_interpolation="psbplot"``
    (none otherwise): the native hook ``psbtable.psbplot``."""
    result = results[0]
    if result.options.pr_interpolation != "psbplot":
        return {}
    return psbplot_files(result, assessment)


#: the hooks an evaluator file names (shrec_eval.profiles.hooks)
OVERRIDES = {
    "nn": f32_nn,
    "ft_psb": f32_ft,
    "st_psb": f32_st,
    "e_measure": f32_e,
    "dcg_psb": f32_dcg,
}
PSBPLOT = NativeHook(("psbplot.plot", "psbplot.macro.plot"), psbplot_native)
