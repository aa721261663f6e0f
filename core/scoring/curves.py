"""The curve registry: every curve declared once, with its x values and its
compute function, like the measures of :mod:`shrec_eval.scoring.measures` (which
re-exports it).  The engine computes, for each block of queries, whatever
:data:`CURVES` lists; the GUI's curve picker and the JSON read it too.
Adding a curve is adding its function and one :class:`Curve` here.

Values are float64, one row per query; NaN means undefined for that query.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .chunk import ChunkContext, ratio

__all__ = ["Curve", "CURVES", "RECALL_PERCENT_LEVELS", "PSB_PR_LEVELS"]


#: recall levels (%) of the average (D)CG vs recall curves
RECALL_PERCENT_LEVELS = np.arange(10, 101, 10)
#: recall levels j/20, j = 1..20, of psbPlot / the SHREC MATLAB scripts
PSB_PR_LEVELS = 20


def x_ranks(o) -> np.ndarray:
    """Ranks 1..curve_length."""
    return np.arange(1, o.curve_length + 1, dtype=np.float64)


def x_recall_levels(o) -> np.ndarray:
    """The interpolated precision-recall curve's recall levels."""
    if o.pr_interpolation in ("psb", "psbplot"):
        return np.arange(1, PSB_PR_LEVELS + 1) / PSB_PR_LEVELS
    return np.arange(o.pr_levels) / (o.pr_levels - 1)


def x_recall_percent(o) -> np.ndarray:
    return RECALL_PERCENT_LEVELS.astype(np.float64)


def _undefined_rows(ctx: ChunkContext, n: int) -> np.ndarray:
    return np.broadcast_to(ctx.no_rel[:, None], (ctx.B, n))


def c_cg(ctx, o):
    return ctx.cg[:, : o.curve_length].astype(np.float64)


def c_dcg(ctx, o):
    return ctx.dcg[:, : o.curve_length].copy()


def c_ncg(ctx, o):
    n = o.curve_length
    return ratio(ctx.cg[:, :n], ctx.icg[:, :n], _undefined_rows(ctx, n))


def c_ndcg(ctx, o):
    n = o.curve_length
    return ratio(ctx.dcg[:, :n], ctx.idcg[:, :n], _undefined_rows(ctx, n))


def c_f(ctx, o):
    n = o.curve_length
    b2 = o.f_beta**2
    k = np.arange(1, n + 1)
    h = ctx.cum_rel[:, :n].astype(np.float64)
    f = (1 + b2) * h / (b2 * ctx.cr[:, None] + k[None, :])
    f[ctx.no_rel] = np.nan
    return f


def _hit_precisions(ctx: ChunkContext, M: int) -> np.ndarray:
    """(B, M): precision m / rank at the m-th relevant hit, 0 if not retrieved."""
    m = ctx.hit_list[3]
    return ctx.hit_matrix(m / ctx.hit_ranks, M)


def c_pr(ctx, o):
    if o.pr_interpolation == "psbplot":
        return _pr_psbplot(ctx)
    return _pr_psb(ctx) if o.pr_interpolation == "psb" else _pr_max(ctx, o.pr_levels)


def _pr_psbplot(ctx: ChunkContext) -> np.ndarray:
    """psbPlot's precision-recall curve (Princeton Shape Benchmark, C), at
    r = j/20, j = 1..20, computed in float32 as the program does:

    * the query counts as relevant: C = its class with itself; a query left
      out of its own list (``remove_self``) is put back first (its distance
      to itself is its row's least, as in the PSB matrices), so hit m of the
      list is hit m + 1 at rank + 1;
    * P_m = m / rank of the m-th hit (0 for a hit the list never reaches);
    * xx = r * C - 1, P(r) = P[x1] (1 - dx) + P[x2] dx with x1 = (int) xx,
      x2 = x1 + 1 (both clamped to 0..C-1), dx = xx - x1;
    * a level below 1/C (C < 20 / j) and a query of C < 2 left out (NaN).
    """
    f32 = np.float32
    selfs = ctx.extra.get("self_removed")
    s = np.zeros(ctx.B, dtype=np.int64) if selfs is None else selfs.astype(np.int64)
    C = ctx.cr + s
    M = int(C.max()) if ctx.B else 0
    P = np.zeros((ctx.B, max(M, 1)), dtype=f32)
    P[s == 1, 0] = f32(1)  # the query, first in its list
    m, ranks = ctx.hit_list[3], ctx.hit_ranks
    row = ctx.hit_list[0]
    col = m - 1 + s[row]
    P[row, col] = (m + s[row]).astype(f32) / (ranks + s[row]).astype(f32)
    j = np.arange(1, PSB_PR_LEVELS + 1, dtype=f32)
    index = j / f32(PSB_PR_LEVELS)
    xx = index[None, :] * C[:, None].astype(f32) - f32(1)
    x1 = xx.astype(np.int64)  # C's (int): toward zero
    dx = (xx - x1.astype(f32)).astype(f32)
    hi = np.maximum(C - 1, 0)[:, None]
    x2 = np.clip(x1 + 1, 0, hi)
    x1 = np.clip(x1, 0, hi)
    val = np.take_along_axis(P, x1, axis=1) * (f32(1) - dx) + np.take_along_axis(P, x2, axis=1) * dx
    out = val.astype(np.float64)
    skip = (C[:, None].astype(f32) < f32(PSB_PR_LEVELS) / j[None, :]) | (C < 2)[:, None]
    out[skip] = np.nan
    return out


def _pr_max(ctx: ChunkContext, levels: int) -> np.ndarray:
    """Interpolated precision P(r) = max precision at any rank whose recall
    is >= r, at r = j / (levels - 1); 0 where no rank reaches r."""
    M = max(int(ctx.vr.max()) if ctx.B else 0, 1)
    sufmax = np.maximum.accumulate(_hit_precisions(ctx, M)[:, ::-1], axis=1)[:, ::-1]
    j = np.arange(levels)
    n = levels - 1
    need = np.maximum((j[None, :] * ctx.cr[:, None] + n - 1) // n, 1)  # ceil(r * Cr), >= 1
    val = np.take_along_axis(sufmax, np.clip(need - 1, 0, M - 1), axis=1)
    val = np.where(need <= ctx.vr[:, None], val, 0.0)
    val[ctx.no_rel] = np.nan
    return val


def _pr_psb(ctx: ChunkContext) -> np.ndarray:
    """psbPlot / SHREC MATLAB interpolation at r = j/20, j = 1..20: precision
    k / rank_k of the k-th hit, linear in recall between consecutive hits;
    a level below 1/C is left out for that query (NaN); a hit the list never
    reaches has precision 0."""
    C = ctx.cr
    M = int(ctx.vr.max()) if ctx.B else 0
    # column M is a zero column: the precision of a hit the list never reaches
    P = _hit_precisions(ctx, M + 1)
    j = np.arange(1, PSB_PR_LEVELS + 1)
    x = j[None, :] * C[:, None]
    k = x // PSB_PR_LEVELS
    d = (x % PSB_PR_LEVELS) / PSB_PR_LEVELS
    hi = np.maximum(C[:, None], 1)
    k1 = np.minimum(np.clip(k, 1, hi) - 1, M)
    k2 = np.minimum(np.clip(k + 1, 1, hi) - 1, M)
    val = np.take_along_axis(P, k1, axis=1) * (1 - d) + np.take_along_axis(P, k2, axis=1) * d
    val[(x < PSB_PR_LEVELS) | ctx.no_rel[:, None]] = np.nan
    return val


def _gain_at_recall(ctx: ChunkContext, gain: np.ndarray) -> np.ndarray:
    """(D)CG at the first rank reaching 10%, ..., 100% recall: the rank of
    the m-th hit, m = ceil(level * Cr); (D)CG there sums the gains
    (``gain``, one per retrieved hit) of hits 1..m; NaN where not reached."""
    m = (RECALL_PERCENT_LEVELS[None, :] * ctx.cr[:, None] + 99) // 100
    reached = (m >= 1) & (m <= ctx.vr[:, None])
    M = max(int(ctx.vr.max()) if ctx.B else 0, 1)
    at_hit = np.cumsum(ctx.hit_matrix(gain, M), axis=1)
    v = np.take_along_axis(at_hit, np.clip(m - 1, 0, M - 1), axis=1)
    v[~reached] = np.nan
    return v


def c_cg_recall(ctx, o):
    return _gain_at_recall(ctx, ctx.hit_list[2].astype(np.float64))


def c_dcg_recall(ctx, o):
    _, c, g, _ = ctx.hit_list
    return _gain_at_recall(ctx, g * ctx.disc[c])


@dataclass(frozen=True)
class Curve:
    """One curve: ``x(options)`` its x values, ``compute(ctx, options)`` its
    (B, len(x)) values for a chunk of queries (NaN = undefined)."""

    key: str
    label: str
    x_label: str
    y_label: str
    definition: str
    x: Callable
    compute: Callable


CURVES: tuple[Curve, ...] = (
    Curve(
        "pr",
        "Precision-recall",
        "Recall",
        "Precision",
        "interpolated precision at fixed recall levels (mean over queries)",
        x_recall_levels,
        c_pr,
    ),
    Curve("cg", "CG vs rank", "Rank", "CG", "cumulated gain at ranks 1..N", x_ranks, c_cg),
    Curve(
        "dcg",
        "DCG vs rank",
        "Rank",
        "DCG",
        "discounted cumulated gain at ranks 1..N",
        x_ranks,
        c_dcg,
    ),
    Curve(
        "ncg",
        "NCG vs rank",
        "Rank",
        "NCG",
        "normalized cumulated gain at ranks 1..N",
        x_ranks,
        c_ncg,
    ),
    Curve(
        "ndcg",
        "NDCG vs rank",
        "Rank",
        "NDCG",
        "normalized discounted cumulated gain at ranks 1..N",
        x_ranks,
        c_ndcg,
    ),
    Curve(
        "f",
        "F-measure vs rank",
        "Rank",
        "F",
        "F-measure (weight beta) of the first k items",
        x_ranks,
        c_f,
    ),
    Curve(
        "cg_recall",
        "Average CG vs % recall",
        "Recall (%)",
        "CG",
        "CG at the first rank reaching 10%, ..., 100% recall, over the queries reaching it",
        x_recall_percent,
        c_cg_recall,
    ),
    Curve(
        "dcg_recall",
        "Average DCG vs % recall",
        "Recall (%)",
        "DCG",
        "DCG at the first rank reaching 10%, ..., 100% recall, over the queries reaching it",
        x_recall_percent,
        c_dcg_recall,
    ),
)
