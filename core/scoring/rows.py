"""A curve's per-query rows held once per distinct row.

The queries a run does not answer share a few rows (one per kind:
:mod:`.missing`); 80,000 queries x 541 curve points are 350 MB of float64
when every query's row is held, a few MB when those rows are held once.
:class:`QueryRows` is the (queries, points) array of a curve as a table of
rows and the row of each query.  It reads as that array: ``np.asarray``
makes it, indexing gives its rows (``rows[q]``, ``rows[mask]``, ``rows[a:b]``),
numpy's functions and operators take it, ``shape``/``dtype`` are the
array's; the JSON writer reads it a few rows at a time (:meth:`block`).
Setting every row of a mask to one value (the engine's queries left out)
adds that row to the table.
"""

from __future__ import annotations

import numpy as np

__all__ = ["QueryRows", "joined_rows"]


class QueryRows(np.lib.mixins.NDArrayOperatorsMixin):
    """The (queries, points) array whose row ``q`` is ``table[which[q]]``."""

    __slots__ = ("table", "which")

    def __init__(self, table: np.ndarray, which: np.ndarray) -> None:
        self.table = table
        self.which = which

    @classmethod
    def of(cls, array: np.ndarray) -> QueryRows:
        """Every row of ``array`` its own row of the table."""
        return cls(array, np.arange(array.shape[0]))

    # -- as the array -------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        return (self.which.size, self.table.shape[1])

    @property
    def dtype(self) -> np.dtype:
        return self.table.dtype

    @property
    def ndim(self) -> int:
        return 2

    @property
    def size(self) -> int:
        return self.which.size * self.table.shape[1]

    def __len__(self) -> int:
        return self.which.size

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self.table[self.which]
        return out if dtype is None else out.astype(dtype, copy=False)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = tuple(np.asarray(x) if isinstance(x, QueryRows) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        def plain(x):
            if isinstance(x, QueryRows):
                return np.asarray(x)
            if isinstance(x, (list, tuple)):
                return type(x)(plain(v) for v in x)
            return x

        return func(*plain(args), **{k: plain(v) for k, v in kwargs.items()})

    def __getattr__(self, name: str):
        # the array's other attributes and methods (T, mean, copy...)
        if name.startswith("__") or name in QueryRows.__slots__:
            raise AttributeError(name)
        return getattr(np.asarray(self), name)

    def __getitem__(self, key):
        if not _picks_rows(key):  # a mask of values (rows[~np.isnan(rows)]): the array's
            return np.asarray(self)[key]
        if isinstance(key, tuple):
            first, rest = key[0], key[1:]
            if not all(isinstance(k, (int, np.integer, slice)) for k in rest):
                return np.asarray(self)[key]  # indices in both axes go together
            picked = self.which[first]
            return self.table[picked][(slice(None),) * np.ndim(picked) + rest]
        return self.table[self.which[key]]

    def __iter__(self):
        return iter(np.asarray(self))

    def __repr__(self) -> str:
        return f"QueryRows({self.which.size} queries, {self.table.shape[0]} distinct rows)"

    def block(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start`` to ``stop`` as one C-ordered array."""
        return np.ascontiguousarray(self.table[self.which[start:stop]])

    def __setitem__(self, key, value) -> None:
        """``rows[mask] = v``: every row of ``mask`` (or of indices) set to
        the one value ``v`` (a number or one row); anything else makes
        every row its own."""
        value = np.asarray(value, dtype=self.table.dtype)
        if isinstance(key, tuple) or value.ndim > 1 or not _picks_rows(key):
            full = np.asarray(self)
            full[key] = value
            self.table, self.which = full, np.arange(full.shape[0])
            return
        if not np.size(self.which[key]):
            return
        row = np.broadcast_to(value, (1, self.table.shape[1]))
        self.table = np.concatenate((self.table, row))
        # a copy: the curves of a part share the array they were made with
        self.which = self.which.copy()
        self.which[key] = self.table.shape[0] - 1


def _picks_rows(key) -> bool:
    """Whether ``key`` indexes the first axis only or first (a row, rows,
    a slice, a mask of queries), not the values themselves (a mask or
    indices of two or more dimensions)."""
    if isinstance(key, tuple):
        return not key or _picks_rows(key[0])
    if key is None or key is Ellipsis or isinstance(key, (int, np.integer, slice)):
        return True
    return np.ndim(key) <= 1


def joined_rows(parts: list[QueryRows]) -> QueryRows:
    """The rows of ``parts`` one after another (the part itself when there
    is one)."""
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [p.table.shape[0] for p in parts[:-1]])
    table = np.concatenate([p.table for p in parts])
    which = np.concatenate([p.which + off for p, off in zip(parts, offsets)])
    return QueryRows(table, which)
