"""A :class:`~.keys.TokenCodes` table's tokens (bytes) in code order, as a
sequence made from the table's words when read: what the table gives as
its ``raw`` tokens, and what the ids of :mod:`.token_ids` are decoded from."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the table makes these lists of itself: no import when running
    from .keys import TokenCodes


class TokenList(Sequence):
    """The first ``n`` tokens of a :class:`TokenCodes` in code order (bytes),
    made from the table's words when read (a block at a time when iterated);
    equal to any sequence of the same bytes."""

    def __init__(self, table: TokenCodes, n: int) -> None:
        self._table, self._n = table, n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self._table.tokens(np.arange(self._n)[i])
        i = operator.index(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("token code out of range")
        return self._table.token(i)

    def __iter__(self):
        step = 1 << 16
        for at in range(0, self._n, step):
            yield from self._table.tokens(np.arange(at, min(at + step, self._n)))

    def __eq__(self, other) -> bool:
        if isinstance(other, (str, bytes)) or not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a list is

    def __repr__(self) -> str:
        return f"TokenList({list(self)!r})"
