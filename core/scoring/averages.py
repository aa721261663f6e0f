"""The four ways a run's per-query values become one figure (profiles.md,
"Averages for every measure and curve"), and the per-class means.

* ``micro``: mean over the queries;
* ``macro``: mean over the classes of the class means;
* ``proportional``: mean weighted by n_q, the number of relevant targets of
  the query; ``reciprocal``: weighted by 1 / n_q (the "proportionally /
  reciprocally weighted" figures of the SHREC 2014 large-scale tracks; no
  reference code is known for them).  A query without relevant target
  (n_q = 0) has no weight in either.

Every average skips the values that are undefined (NaN) and the queries the
profile leaves out (``included`` False).  Works on any (queries, columns)
array: the measures of a run, or a curve's per-query points.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..options import AVERAGES
from .rows import QueryRows

__all__ = ["AVERAGES", "ClassGroups", "average_all", "weighted_mean"]


class ClassGroups:
    """The classes of the included queries, in order of first appearance."""

    def __init__(self, classes: Sequence[str] | None, included: np.ndarray) -> None:
        self.names: list[str] = []
        self.codes = np.full(included.size, -1, dtype=np.int64)
        if classes is None:
            return
        index: dict[str, int] = {}
        for q, (c, inc) in enumerate(zip(classes, included)):
            if inc:
                self.codes[q] = index.setdefault(c, len(index))
        self.names = list(index)

    @property
    def n(self) -> int:
        return len(self.names)

    def counts(self) -> np.ndarray:
        """Included queries per class."""
        return np.bincount(self.codes[self.codes >= 0], minlength=self.n)

    def means(self, values: np.ndarray | QueryRows) -> np.ndarray:
        """(classes, columns): each class's mean over its included queries
        where the value is defined (NaN where none is)."""
        values = np.asarray(values, dtype=np.float64)
        sel = np.flatnonzero(self.codes >= 0)
        # the queries of each class side by side, then one sum per class
        order = sel[np.argsort(self.codes[sel], kind="stable")]
        v = values[order]
        ok = ~np.isnan(v)
        starts = np.searchsorted(self.codes[order], np.arange(self.n))
        sums = np.add.reduceat(np.where(ok, v, 0.0), starts, axis=0)
        cnt = np.add.reduceat(ok.astype(np.int64), starts, axis=0)
        return np.divide(sums, cnt, out=np.full(sums.shape, np.nan), where=cnt > 0)


def _mean(filled: np.ndarray, ok: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Column means of the defined values (``filled`` = values with 0 where
    undefined, ``ok`` = defined), weighted per row unless ``weights`` is
    None; NaN where no weight remains.  The weighted sums are numpy's own
    loops (``einsum``), not BLAS (``@``): the same sums on every machine,
    whatever its BLAS and thread count, and no BLAS threads left spinning
    beside the readers' and the engine's."""
    if weights is None:
        s, tot = filled.sum(axis=0), ok.sum(axis=0)
    else:
        s, tot = np.einsum("i,ij->j", weights, filled), np.einsum("i,ij->j", weights, ok)
    return np.divide(s, tot, out=np.full(np.shape(s), np.nan), where=tot > 0)


def weighted_mean(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Column means of ``values`` (rows = queries) over the defined values of
    each column, weighted per row when ``weights`` are given."""
    values = np.asarray(values, dtype=np.float64)
    ok = ~np.isnan(values)
    return _mean(np.where(ok, values, 0.0), ok, weights)


def average_all(
    values: np.ndarray | QueryRows,
    included: np.ndarray,
    groups: ClassGroups,
    n_relevant: np.ndarray,
) -> dict[str, np.ndarray | None]:
    """Every average of the columns of ``values``; ``macro`` is None when
    the assessment has no classes.  One copy of the included rows is made
    (an array's, or a curve's rows held once, ``QueryRows``, from its table)
    and its undefined values set to 0 in place: a curve of 80,000 queries x
    100 points is 64 MB a copy."""
    rows = values if isinstance(values, (np.ndarray, QueryRows)) else np.asarray(values)
    included = np.asarray(included, dtype=bool)  # a mask: what it picks is a copy
    filled = np.asarray(rows[included], dtype=np.float64)
    n = np.asarray(n_relevant, dtype=np.float64)[included]
    recip = np.divide(1.0, n, out=np.zeros_like(n), where=n > 0)
    undefined = np.isnan(filled)
    filled[undefined] = 0.0
    ok = np.logical_not(undefined, out=undefined).astype(np.float64)
    del undefined
    out: dict[str, np.ndarray | None] = {
        "micro": _mean(filled, ok, None),
        "macro": None,
        "proportional": _mean(filled, ok, n),
        "reciprocal": _mean(filled, ok, recip),
    }
    if groups.n:
        cm = groups.means(values)
        out["macro"] = weighted_mean(cm)
    assert tuple(out) == AVERAGES
    return out
