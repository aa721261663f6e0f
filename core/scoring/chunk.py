"""The chunk context: what the engine hands every measure and curve of a
block of queries (the gain matrix and what derives from it, computed once
on first use).  Owned by the engine (:mod:`shrec_eval.scoring.engine` builds one per
block); the registry's functions (:mod:`shrec_eval.scoring.measures`) read it."""

from __future__ import annotations

from functools import cached_property

import numpy as np

__all__ = ["ChunkContext", "discounts", "ratio", "row_sums"]


def discounts(n: int) -> np.ndarray:
    """1 / log2(i) for ranks i = 1..n, with rank 1 undiscounted (SHREC 2006)."""
    i = np.arange(1, n + 1, dtype=np.float64)
    d = np.ones(n)
    d[1:] = 1.0 / np.log2(i[1:])
    return d


def row_sums(terms: np.ndarray) -> np.ndarray:
    """Each row's terms added left to right, as the evaluators' loops add
    them: zeros after a row's last term change nothing, so the sum does not
    depend on how wide a block of queries is (numpy's pairwise ``sum``
    splits a row where its length says, and the last bit followed)."""
    if not terms.shape[1]:
        return np.zeros(terms.shape[0])
    return np.cumsum(terms, axis=1)[:, -1]


def ratio(num, den, undefined=None) -> np.ndarray:
    """num / den with 0 where den == 0 (nothing retrieved gives 0), NaN where
    ``undefined`` (nothing to find)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)
    if undefined is not None:
        out[undefined] = np.nan
    return out


class ChunkContext:
    """Everything the measures of a block of B queries are computed from.

    The ranked lists come as their hits: ``hits`` = (row, 0-based rank,
    grade) of every retrieved relevant item, in (row, rank) order, and ``W``
    the width of the block's lists (the gain matrix G, grades of the ranked
    items and zero elsewhere, is (B, W); only its prefix is ever made
    dense).  ``va`` are the list lengths, ``ch``/``cm``/``cr``
    the numbers of highly / marginally / all relevant items, ``ds`` the
    collection size per query, ``nge[:, k]`` the number of judged items of
    grade >= ``levels[k]`` (the distinct grades, ascending, the top grade
    last).  Derived arrays are computed once, on first use.

    Cumulative arrays cover only the prefix of the first P ranks that some
    measure looks at (every rank K, the curve length, 32, and 2 Cr); what
    needs the whole list (V, AP, the PSB DCG, where each hit landed) comes
    from the sparse list of the retrieved relevant items, which is short.
    """

    def __init__(
        self,
        hits: tuple[np.ndarray, np.ndarray, np.ndarray],
        W: int,
        va: np.ndarray,
        ch: np.ndarray,
        cm: np.ndarray,
        ds: np.ndarray,
        nge: np.ndarray,
        levels: np.ndarray,
        top: int,
        options,
        max_relevant: int | None = None,
        extra: dict | None = None,
    ) -> None:
        self._hits = hits
        self.va = va.astype(np.int64)
        self.ch = ch.astype(np.int64)
        self.cm = cm.astype(np.int64)
        self.cr = self.ch + self.cm
        self.ds = ds.astype(np.int64)
        self.nge = nge
        self.levels = levels
        self.top = top
        self.options = options
        self.B, self.W = self.va.size, int(W)
        self.rows = np.arange(self.B)
        self.n = max(max(options.ranks), options.curve_length)
        max_cr = int(self.cr.max()) if self.B else 0
        #: the largest Cr of the whole contest (not only of this block)
        self.max_relevant = max_cr if max_relevant is None else int(max_relevant)
        #: per-query arrays a profile prepares for its measures (this block's rows)
        self.extra = extra or {}
        self.P = min(self.W, max(self.n, 32, 2 * max_cr, 1))
        #: what the measures with parameters share within this block (families.py)
        self.cache: dict = {}

    # -- the prefix: relevance masks and cumulative counts ----------------
    def dense(self, width: int) -> np.ndarray:
        """G[:, :width]: the grades of the first ``width`` ranks (0 where an
        item is not relevant or a list has ended), made from the hits."""
        r, c, g = self._hits
        dtype = np.int8 if -128 <= self.top < 128 else np.int32
        out = np.zeros((self.B, min(width, self.W)), dtype=dtype)
        keep = c < out.shape[1]
        out[r[keep], c[keep]] = g[keep]
        return out

    @cached_property
    def Gp(self) -> np.ndarray:
        return self.dense(self.P)

    @cached_property
    def rel(self) -> np.ndarray:
        return self.Gp >= 1

    @cached_property
    def cum_hr(self) -> np.ndarray:
        return np.cumsum(self.Gp == self.top, axis=1, dtype=np.int32)

    @cached_property
    def cum_rel(self) -> np.ndarray:
        return np.cumsum(self.rel, axis=1, dtype=np.int32)

    def at(self, cum: np.ndarray, pos) -> np.ndarray:
        """cum[:, pos-1] per row (the count within the first ``pos`` ranks);
        0 where pos == 0.  Positions past the prefix are only asked for when
        the prefix is the whole width, where nothing more is found."""
        pos = np.broadcast_to(np.asarray(pos, dtype=np.int64), (self.B,))
        assert self.P == self.W or not self.B or pos.max() <= self.P
        col = np.clip(pos - 1, 0, self.P - 1)
        val = cum[self.rows, col].astype(np.int64)
        return np.where(pos > 0, val, 0)

    # -- the whole list: the retrieved relevant items ----------------------
    @cached_property
    def hit_list(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(row, 0-based rank, grade, 1-based index m among the row's hits)
        of every retrieved relevant item, row by row in rank order."""
        r, c, g = self._hits
        r, c, g = r.astype(np.int64), c.astype(np.int64), g.astype(np.int64)
        first = np.searchsorted(r, self.rows)
        m = np.arange(r.size) - first[r] + 1
        return r, c, g, m

    @cached_property
    def vr(self) -> np.ndarray:
        return np.bincount(self.hit_list[0], minlength=self.B).astype(np.int64)

    @cached_property
    def vh(self) -> np.ndarray:
        r, _, g, _ = self.hit_list
        return np.bincount(r[g == self.top], minlength=self.B).astype(np.int64)

    def hits(self, variant: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(cumulative hits in the prefix, visible hits V, relevant count C)."""
        if variant == "hr":
            return self.cum_hr, self.vh, self.ch
        return self.cum_rel, self.vr, self.cr

    @cached_property
    def precision_sum(self) -> dict[str, np.ndarray]:
        """Sum of precision@i over the ranks i of the retrieved hits."""
        r, c, g, m = self.hit_list
        out = {"r": np.bincount(r, weights=m / (c + 1.0), minlength=self.B)}
        sel = g == self.top
        rh, ch = r[sel], c[sel]
        mh = np.arange(rh.size) - np.searchsorted(rh, self.rows)[rh] + 1
        out["hr"] = np.bincount(rh, weights=mh / (ch + 1.0), minlength=self.B)
        return out

    def hit_matrix(self, values: np.ndarray, M: int) -> np.ndarray:
        """(B, M): ``values`` (one per retrieved hit) of the m-th hit of each
        row at column m-1; 0 where a row has fewer than m hits."""
        r, _, _, m = self.hit_list
        out = np.zeros((self.B, M), dtype=values.dtype)
        keep = m <= M
        out[r[keep], m[keep] - 1] = values[keep]
        return out

    @cached_property
    def hit_ranks(self) -> np.ndarray:
        """1-based rank of each retrieved hit, in hit_list order."""
        return self.hit_list[1] + 1

    # -- the items of grade >= a level (a measure's rel= parameter) ---------
    def level(self, rel: str) -> int:
        """The grade a ``rel`` value stands for: ``top`` the top grade."""
        return self.top if rel == "top" else int(rel)

    def _variant(self, level: int) -> str | None:
        """``r`` / ``hr`` where the items of grade >= ``level`` are the relevant /
        the highly relevant ones, whose counts the context keeps anyway."""
        if level <= 1:
            return "r"  # every hit is judged relevant (grade >= 1)
        return "hr" if level == self.top else None

    def relevant(self, level: int) -> np.ndarray:
        """C: the judged items of grade >= ``level`` of each query."""
        v = self._variant(level)
        if v is not None:
            return self.hits(v)[2]
        j = int(np.searchsorted(self.levels, level))
        return self.nge[:, j] if j < self.nge.shape[1] else np.zeros(self.B, dtype=np.int64)

    def level_hits(self, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:attr:`hit_list` of the items of grade >= ``level`` (m numbered among them)."""
        if self._variant(level) == "r":
            return self.hit_list
        key = ("hits", level)
        if key not in self.cache:
            r, c, g, _ = self.hit_list
            sel = g >= level
            r, c, g = r[sel], c[sel], g[sel]
            m = np.arange(r.size) - np.searchsorted(r, self.rows)[r] + 1
            self.cache[key] = (r, c, g, m)
        return self.cache[key]

    def found(self, level: int) -> np.ndarray:
        """V: the items of grade >= ``level`` in each whole list."""
        v = self._variant(level)
        if v is not None:
            return self.hits(v)[1]
        return np.bincount(self.level_hits(level)[0], minlength=self.B).astype(np.int64)

    def within(self, level: int, depth) -> np.ndarray:
        """The items of grade >= ``level`` within the first ``depth`` ranks
        (a number, or one per query): from the prefix when it reaches that
        deep, else from the hits."""
        depth = np.broadcast_to(np.asarray(depth, dtype=np.int64), (self.B,))
        if self.P == self.W or not self.B or depth.max() <= self.P:
            v = self._variant(level)
            if v is not None:
                return self.at(self.hits(v)[0], depth)
            key = ("cum", level)
            if key not in self.cache:
                self.cache[key] = np.cumsum(self.Gp >= level, axis=1, dtype=np.int32)
            return self.at(self.cache[key], depth)
        r, c, _, _ = self.level_hits(level)
        return np.bincount(r[c < depth[r]], minlength=self.B).astype(np.int64)

    def precision_sum_of(self, level: int, depth=None) -> np.ndarray:
        """The sum of precision@i over the ranks i of the items of grade >=
        ``level`` within the first ``depth`` (None: the whole list), added in
        rank order."""
        v = self._variant(level)
        if depth is None and v is not None:
            return self.precision_sum[v]
        r, c, _, m = self.level_hits(level)
        w = m / (c + 1.0)
        if depth is not None:
            depth = np.broadcast_to(np.asarray(depth, dtype=np.int64), (self.B,))
            keep = c < depth[r]
            r, w = r[keep], w[keep]
        return np.bincount(r, weights=w, minlength=self.B)

    # -- gains ------------------------------------------------------------
    @cached_property
    def disc(self) -> np.ndarray:
        return discounts(max(self.W, self.n))

    @cached_property
    def cg(self) -> np.ndarray:
        return np.cumsum(self.Gp, axis=1, dtype=np.int64)

    @cached_property
    def dcg(self) -> np.ndarray:
        return np.cumsum(self.Gp * self.disc[: self.P], axis=1)

    @cached_property
    def ideal(self) -> np.ndarray:
        """Ideal gain vector over the first n ranks: the judged grades sorted
        descending.  I[p] = sum over grade levels l_k (ascending) of
        (l_k - l_{k-1}) * [p < N(>= l_k)]."""
        p = np.arange(self.n)
        step = np.diff(np.concatenate(([0], self.levels)))
        out = np.zeros((self.B, self.n), dtype=np.int64)
        for k in range(self.nge.shape[1]):
            out += step[k] * (p[None, :] < self.nge[:, k, None])
        return out

    @cached_property
    def icg(self) -> np.ndarray:
        return np.cumsum(self.ideal, axis=1)

    @cached_property
    def idcg(self) -> np.ndarray:
        return np.cumsum(self.ideal * self.disc[: self.n], axis=1)

    @cached_property
    def no_rel(self) -> np.ndarray:
        return self.cr == 0
