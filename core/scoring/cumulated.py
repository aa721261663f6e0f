"""The cumulated-gain families ``dcg`` and ``ndcg`` of
:mod:`shrec_eval.scoring.families`: the gain of a grade (``gain``), the
discount of a rank (``discount``), the ideal list (``ideal``) and the depth
(a cutoff K, R or the whole list).

Down to a rank K within the context's prefix (every rank of the options)
the sums are read from cumulative arrays over the prefix, one per gain and
discount (the default ones are the context's own ``dcg``, ``idcg``...);
deeper, from the retrieved relevant items, added in rank order, and the
ideal from the counts of judged items of each grade and the cumulated
discounts.  Both add the terms of a list in rank order, so a registry key
gives the bits it gave as its own function (``dcg_psb``, trec_eval's
``ndcg_cut``, SHREC 2021's NDCG).
"""

from __future__ import annotations

import numpy as np

from .chunk import discounts, ratio

__all__ = ["f_dcg", "f_ndcg"]


def _depth(C: np.ndarray, at):
    """The depth of a cutoff: K, R (one per query), None for the whole list."""
    return C if at == "R" else at


def _gains(g: np.ndarray, gain: str) -> np.ndarray:
    """What grades ``g`` gain (0 stays 0)."""
    if gain == "grade":
        return g
    if gain == "binary":
        return (g >= 1).astype(np.int8)
    return np.exp2(g.astype(np.float64)) - 1.0


def _disc(ctx, discount: str) -> np.ndarray | None:
    """The discount of each 0-based rank over the context's widest list (None: no discount)."""
    if discount == "none":
        return None
    if discount == "log2_from_2":
        return ctx.disc
    key = ("disc", discount)
    if key not in ctx.cache:
        n = max(ctx.W, ctx.n)
        ctx.cache[key] = 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))
    return ctx.cache[key]


def _disc_at(discount: str, ctx, c: np.ndarray) -> np.ndarray | None:
    """The discount at 0-based ranks ``c``."""
    if discount == "log2_from_1":
        return 1.0 / np.log2(c + 2.0)
    d = _disc(ctx, discount)
    return None if d is None else d[c]


def _weighted(gain: str, g: np.ndarray, w: np.ndarray | None):
    """The terms gain x discount of items of grades ``g`` at discounts ``w``."""
    if gain == "binary":  # every hit gains 1
        return w
    gains = _gains(g, gain)
    return gains if w is None else gains * w


def _sum_rows(ctx, r: np.ndarray, terms) -> np.ndarray:
    """Each row's terms added in rank order (a count without terms)."""
    if terms is None:
        return np.bincount(r, minlength=ctx.B).astype(np.float64)
    return np.bincount(r, weights=terms, minlength=ctx.B)


def _prefix(ctx, which: str, gain: str, discount: str) -> np.ndarray:
    """The cumulated (discounted) gain at each rank of the prefix (``list``)
    or of the ideal vector over the first n ranks (``ideal``)."""
    if gain == "grade" and discount in ("log2_from_2", "none"):
        plain = discount == "none"
        if which == "list":
            return ctx.cg if plain else ctx.dcg
        return ctx.icg if plain else ctx.idcg
    key = (which, gain, discount)
    if key not in ctx.cache:
        grades = ctx.Gp if which == "list" else ctx.ideal
        terms = _gains(grades, gain)
        d = _disc(ctx, discount)
        if d is not None:
            terms = terms * d[: grades.shape[1]]
        ctx.cache[key] = np.cumsum(terms, axis=1)
    return ctx.cache[key]


def _column(arr: np.ndarray, k: int) -> np.ndarray:
    """The value at rank k of a cumulative array; past its end nothing more is gained."""
    return arr[:, min(k, arr.shape[1]) - 1]


def _dcg(ctx, gain: str, discount: str, at) -> np.ndarray:
    """The (discounted) cumulated gain of each list down to the cutoff."""
    if isinstance(at, int) and at <= ctx.n:
        return np.array(_column(_prefix(ctx, "list", gain, discount), at), dtype=np.float64)
    r, c, g, _ = ctx.hit_list
    depth = _depth(ctx.cr, at)
    if depth is not None:
        keep = c < np.broadcast_to(np.asarray(depth, dtype=np.int64), (ctx.B,))[r]
        r, c, g = r[keep], c[keep], g[keep]
    return _sum_rows(ctx, r, _weighted(gain, g, _disc_at(discount, ctx, c)))


def _cum_disc(ctx, discount: str) -> np.ndarray:
    """D[j] = the sum of the first j discounts, j = 0..max Cr (added in order)."""
    key = ("cumdisc", discount)
    if key not in ctx.cache:
        n = max(int(ctx.cr.max()) if ctx.B else 0, 1)
        if discount == "log2_from_2":
            d = discounts(n)
        elif discount == "log2_from_1":
            d = 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))
        else:
            d = np.ones(n)
        ctx.cache[key] = np.concatenate(([0.0], np.cumsum(d)))
    return ctx.cache[key]


def _ideal(ctx, gain: str, discount: str, ideal: str, at) -> np.ndarray:
    """The (discounted) cumulated gain of the ideal list down to the cutoff."""
    if ideal == "judged" and isinstance(at, int) and at <= ctx.n:
        return _column(_prefix(ctx, "ideal", gain, discount), at)
    depth = _depth(ctx.cr, at)
    if depth is not None:
        depth = np.broadcast_to(np.asarray(depth, dtype=np.int64), (ctx.B,))
    if ideal == "retrieved":
        # the list's own relevant items, best grades first
        r, _, g, m = ctx.hit_list
        order = np.lexsort((-g, r))
        r, g, pos = r[order], g[order], m - 1  # rows stay in place: position m - 1
        if depth is not None:
            keep = pos < depth[r]
            r, g, pos = r[keep], g[keep], pos[keep]
        return _sum_rows(ctx, r, _weighted(gain, g, _disc_at(discount, ctx, pos)))
    # judged: the grade at position p is the highest level l with p < N(>= l), so the
    # sum is that of each level's gain step over the discounts of its first N(>= l)
    D = _cum_disc(ctx, discount)
    total = np.zeros(ctx.B)
    before = 0.0
    for j, level in enumerate(ctx.levels):
        now = float(_gains(np.array([level]), gain)[0])
        step, before = now - before, now
        if step == 0:
            continue
        n = ctx.nge[:, j] if depth is None else np.minimum(ctx.nge[:, j], depth)
        total = total + step * D[n]
    return total


def f_dcg(ctx, p, at=None):
    return _dcg(ctx, p["gain"], p["discount"], at)


def f_ndcg(ctx, p, at=None):
    gain, discount = p["gain"], p["discount"]
    dcg = _dcg(ctx, gain, discount, at)
    return ratio(dcg, _ideal(ctx, gain, discount, p["ideal"], at), ctx.no_rel)
