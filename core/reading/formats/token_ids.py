"""Ids kept in a :class:`~.keys.TokenCodes` table, read as strings only when
asked for: the collection of a qrels file that judges millions of
documents (:attr:`Assessment.item_ids` and its index) costs the table's
arrays, not a Python string and a dict entry per id (600 MB for 4 M ids).

:class:`TokenIds` is a sequence of the ids (``decode_token`` of each
token, as the readers decode them), equal to a tuple or list of the same
strings; :class:`TokenIndex` finds an id's position among them as the
dict ``{id: position}`` would, by looking its bytes up in the table, one id
or many at once (:meth:`TokenIndex.codes`)."""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from .keys import TokenCodes

_BLOCK = 1 << 16


def decode_all(raws: list[bytes]) -> list[str]:
    """``decode_token`` of every token (all at once when all are ASCII)."""
    joined = b"\n".join(raws)
    if joined.isascii():
        return joined.decode("ascii").split("\n") if raws else []
    return [r.decode("utf-8", "surrogateescape") for r in raws]


class TokenIds(Sequence):
    """The tokens of ``table`` as ids (str), in code order or in the order
    ``order`` (id ``i`` is the token of code ``order[i]``)."""

    def __init__(self, table: TokenCodes, order: np.ndarray | None = None) -> None:
        self._table = table
        self._order = order
        self._n = len(table) if order is None else int(order.size)

    def _codes(self, positions: np.ndarray) -> np.ndarray:
        return positions if self._order is None else self._order[positions]

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.texts(np.arange(self._n)[i])
        i = operator.index(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("id index out of range")
        code = i if self._order is None else int(self._order[i])
        return self._table.token(code).decode("utf-8", "surrogateescape")

    def texts(self, positions: np.ndarray) -> list[str]:
        """The ids at ``positions``, made a block at a time."""
        out: list[str] = []
        for at in range(0, positions.size, _BLOCK):
            out += decode_all(self._table.tokens(self._codes(positions[at : at + _BLOCK])))
        return out

    def __iter__(self):
        for at in range(0, self._n, _BLOCK):
            yield from self.texts(np.arange(at, min(at + _BLOCK, self._n)))

    def __eq__(self, other) -> bool:
        if other is self:
            return True
        if isinstance(other, (str, bytes)) or not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other):
        return tuple(self) + tuple(other)

    def __radd__(self, other):
        return tuple(other) + tuple(self)

    def __repr__(self) -> str:
        head = ", ".join(repr(t) for t in self.texts(np.arange(min(self._n, 5))))
        return f"TokenIds({head}{', ...' if self._n > 5 else ''}; {self._n} ids)"

    def index(self) -> TokenIndex:  # type: ignore[override]
        """The position of each id, as ``{id: position}`` gives it."""
        where = None
        if self._order is not None:
            where = np.full(len(self._table), -1, dtype=np.int64)
            where[self._order] = np.arange(self._n)
        return TokenIndex(self._table, self._n, where)


class TokenIndex:
    """``{id: position}`` of a :class:`TokenIds`, answered from its table:
    ``get``, ``in``, ``[]``, ``len`` as a dict's, and :meth:`codes` for
    many ids at once."""

    def __init__(self, table: TokenCodes, n: int, where: np.ndarray | None) -> None:
        self._table, self._n, self._where = table, n, where

    def __len__(self) -> int:
        return self._n

    def codes(self, ids: Sequence[str], missing: int = -1) -> np.ndarray:
        """The position of each of ``ids`` (``missing`` where it is not one
        of them), int64."""
        raws, bad = [], []
        for i, ident in enumerate(ids):
            try:
                raws.append(ident.encode("utf-8", "surrogateescape"))
            except (AttributeError, UnicodeEncodeError):  # not an id a file can hold
                raws.append(b"")
                bad.append(i)
        codes = self._table.find(raws).astype(np.int64)
        found = codes >= 0
        if self._where is None:
            found &= codes < self._n
        else:  # from the table's code to the position
            codes[found] = self._where[codes[found]]
            found &= codes >= 0
        if bad:
            found[bad] = False
        return np.where(found, codes, missing)

    def get(self, ident, default=None):
        code = int(self.codes([ident])[0])
        return default if code < 0 else code

    def __contains__(self, ident) -> bool:
        return self.get(ident) is not None

    def __getitem__(self, ident) -> int:
        code = self.get(ident)
        if code is None:
            raise KeyError(ident)
        return code
