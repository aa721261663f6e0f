"""Small conversions shared by the engine, the reports, the command line and
the desktop app, each written once: undefined values to JSON null, rows
of values by name (numbers and rank lists from text, and plain-text grids,
which need no numpy, are :mod:`.number_text`'s).  (The default ranking measure is
:func:`shrec_eval.outputs.report.default_rank_key`.)"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np

__all__ = ["RowMap", "nullable", "nullable_list"]


def nullable(v) -> float | None:
    """A value for JSON and tables: None for None and for NaN (undefined)
    or an infinity (neither is JSON)."""
    if v is None:
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def nullable_list(values) -> list[float | None]:
    """:func:`nullable` of every value of a 1-d array."""
    a = np.asarray(values, dtype=np.float64)
    out = a.tolist()
    if not np.isfinite(a).all():
        for i in np.flatnonzero(~np.isfinite(a)):
            out[i] = None
    return out


class RowMap(Mapping):
    """A large mapping made a group of members at a time: ``keys`` (a
    sequence, distinct) and ``values(start, stop)``, the list of the values
    of ``keys[start:stop]``.  The JSON writer writes it in pieces without
    ever holding it whole (the per-query values and curves of a run: 80,000
    queries' dicts of 59 values are 300 MB); read as a mapping, it makes
    what is read."""

    def __init__(self, keys: Sequence, values: Callable[[int, int], list]) -> None:
        self._keys = keys
        self._values = values
        self._index: dict | None = None

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator:
        return iter(self._keys)

    def __getitem__(self, key):
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self._keys)}
        i = self._index[key]
        return self._values(i, i + 1)[0]

    def items_between(self, start: int, stop: int) -> list[tuple]:
        """The members ``start`` to ``stop`` as (key, value) pairs."""
        return list(zip(self._keys[start:stop], self._values(start, stop)))

    def __repr__(self) -> str:
        return f"RowMap({len(self)} members)"
