"""Ids kept in a :class:`~.keys.TokenCodes` table, read as strings only when
asked for: the collection of a qrels file that judges millions of
documents (:attr:`Assessment.item_ids` and its index) costs the table's
arrays, not a Python string and a dict entry per id (600 MB for 4 M ids).

* :class:`TokenIds`: its tokens (:class:`.token_list.TokenList`) as ids
  (``decode_token`` of each, as the readers decode them), equal to a tuple
  or list of the same strings;
* :class:`TokenIndex`: an id's position among them as the dict
  ``{id: position}`` gives it, by looking its bytes up in the table, one id
  or many at once (:meth:`TokenIndex.codes`);
* :class:`IdCodes`: the codes of the (normalised) ids of one field of a
  file read a chunk at a time (the TREC readers), in the table while every
  id is its token as written.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from .fresh_codes import FreshCodes
from .ids import IdNormalizer
from .keys import TokenCodes
from .packed import Packed

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
        if (
            isinstance(other, TokenIds)
            and len(other) == len(self)
            and _same_tokens(self._table, other._table)
        ):  # one table's tokens twice (an assessment and its copy sent to a
            # cluster's worker): the same ids exactly when in the same order
            every = np.arange(self._n)
            return bool(np.array_equal(self._codes(every), other._codes(every)))
        if isinstance(other, (str, bytes)) or not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a list is

    def __add__(self, other):
        return tuple(self) + tuple(other)

    def __radd__(self, other):
        return tuple(other) + tuple(self)

    def __repr__(self) -> str:
        head = ", ".join(repr(t) for t in self.texts(np.arange(min(self._n, 5))))
        return f"TokenIds({head}{', ...' if self._n > 5 else ''}; {self._n} ids)"

    def index(self) -> TokenIndex:  # type: ignore[override]  # not Sequence.index: the ids' index
        """The position of each id, as ``{id: position}`` gives it."""
        where = None
        if self._order is not None:
            where = np.full(len(self._table), -1, dtype=np.int64)
            where[self._order] = np.arange(self._n)
        return TokenIndex(self._table, self._n, where)


def _same_tokens(a: TokenCodes, b: TokenCodes) -> bool:
    """Whether two tables hold the same tokens under the same codes."""
    n = len(a)
    if len(b) != n or a._long_raw != b._long_raw:
        return False
    rows = min(a._words.shape[0], b._words.shape[0])
    return bool(
        np.array_equal(a._len[:n], b._len[:n])
        and np.array_equal(a._words[:rows, :n], b._words[:rows, :n])
        and not a._words[rows:, :n].any()
        and not b._words[rows:, :n].any()
    )


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
        if isinstance(ids, TokenIds) and ids._order is None and len(ids) == len(ids._table):
            # ids read from another table (a run's): looked up from its words
            found = self._table.find(ids._table).astype(np.int64)
            return self._positions(found, missing)
        raws, bad = [], []
        for i, ident in enumerate(ids):
            try:
                raws.append(ident.encode("utf-8", "surrogateescape"))
            except (AttributeError, UnicodeEncodeError):  # not an id a file can hold
                raws.append(b"")
                bad.append(i)
        codes = self._table.find(raws).astype(np.int64)
        if bad:
            codes[bad] = -1
        return self._positions(codes, missing)

    def _positions(self, codes: np.ndarray, missing: int) -> np.ndarray:
        """The positions of the ids of table codes ``codes`` (-1: none)."""
        found = codes >= 0
        if self._where is None:
            found &= codes < self._n
        else:  # from the table's code to the position
            codes[found] = self._where[codes[found]]
            found &= codes >= 0
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


class IdCodes:
    """Codes of the (normalised) ids of one field across a file's chunks:
    every distinct raw token gets a code in a :class:`TokenCodes` table.
    While every id is its token as written (ids kept as written, or none
    changed by the normaliser: the usual case) the id codes are the token
    codes and :attr:`ids` reads them from the table (:class:`TokenIds`: no
    Python object per id); from the first id the normaliser changes, every
    distinct id (after normalisation) gets its code in a dict."""

    def __init__(self, norm: IdNormalizer, *, fresh: bool = False) -> None:
        self.norm = norm
        #: ``fresh``: a field whose ids are new as a rule (a qrels' documents),
        #: its chunks added fresh while they can be (:mod:`.fresh_codes`)
        self.tokens: TokenCodes = FreshCodes() if fresh else TokenCodes()
        #: how the codes handed out changed (:meth:`take_remap`)
        self._remap: np.ndarray | None = None
        #: the ids as strings, made when the normaliser first changes one
        #: (None: every id is its token, read from the table)
        self._ids: list[str] | None = None
        #: tokens given their id code so far
        self._known = 0
        self._code: dict[str, int] = {}
        self._of_token = np.zeros(0, dtype=np.int32)
        #: every token its own id so far (no two spellings of one id)
        self._same = True
        #: every id so far spelt as its token (none changed by the normaliser)
        self._verbatim = True

    @property
    def ids(self) -> Sequence[str]:
        """The distinct ids in code order."""
        return TokenIds(self.tokens) if self._ids is None else self._ids

    @property
    def as_written(self) -> bool:
        """Whether every id is its token as written (:attr:`ids` is then a
        :class:`TokenIds` of :attr:`tokens`)."""
        return self._ids is None

    def codes(self, packed: Packed) -> np.ndarray:
        """The id code of every token of ``packed``."""
        return self.id_codes(self.token_codes(packed))

    def token_codes(self, packed: Packed) -> np.ndarray:
        """The raw-token code of every token of ``packed`` (codes of the
        ids as written, in order of first occurrence)."""
        tokens = self.tokens
        raw = None
        if isinstance(tokens, FreshCodes) and self._ids is None and self._kept(packed):
            raw = tokens.fresh_codes(packed)
        if raw is None:
            raw = tokens.codes(packed)
        self._moved()
        n = len(tokens)
        if n > self._known and self._ids is None:
            # only an id that starts with a zero or an m / model_ prefix can
            # change (formats.ids): the others are their tokens as written
            if self.norm.enabled:
                first = self.tokens.first_bytes(self._known, n)
                maybe = np.flatnonzero((first == 48) | (first == 77) | (first == 109))
                texts = decode_all(self.tokens.tokens(maybe + self._known))
                if any([self.norm(t) != t for t in texts]):
                    # the ids as strings from here on
                    self._ids = decode_all(self.tokens.tokens(np.arange(self._known)))
                    self._code = dict(zip(self._ids, range(self._known)))
                    self._of_token = np.arange(self._known, dtype=np.int32)
            if self._ids is None:
                self._known = n
        if n > self._known:
            self._new_ids(self._known, n)
            self._known = n
        return raw

    def _kept(self, packed: Packed) -> bool:
        """Whether the normaliser changes none of the tokens of ``packed``
        (none starts with a zero or an m / model_ prefix, formats.ids)."""
        if not self.norm.enabled:
            return True
        if packed.words is None:
            return False
        first = packed.words[0] & np.uint64(0xFF)
        return not ((first == 48) | (first == 77) | (first == 109)).any()

    def _moved(self) -> None:
        """The codes handed out changed (fresh tokens that repeated earlier
        ones merged into them): the tokens known, and the remap kept for
        :meth:`take_remap` (while every id is its token, as a fresh field's
        are, the id codes are the token codes)."""
        tokens = self.tokens
        moved = tokens.take_remap() if isinstance(tokens, FreshCodes) else None
        if moved is None:
            return
        self._known = int(moved[: self._known].max()) + 1 if self._known else 0
        self._remap = moved if self._remap is None else moved[self._remap]

    def settle(self) -> None:
        """Every token added fresh put in the table, the file read."""
        if isinstance(self.tokens, FreshCodes):
            self.tokens.settle(last=True)
            self._moved()

    def take_remap(self) -> np.ndarray | None:
        """How the id codes handed out so far changed (``new = remap[old]``:
        a token added fresh repeated an earlier one), once; None when none
        did."""
        remap, self._remap = self._remap, None
        return remap

    def _new_ids(self, known: int, n: int) -> None:
        """Id codes of the tokens ``known`` to ``n`` (new in this chunk)."""
        norm, by_id, ids = self.norm, self._code, self._ids
        assert ids is not None
        # only an id that starts with a zero or an m / model_ prefix can
        # change (formats.ids): the others skip the normaliser while no
        # two spellings of one id have been seen
        every = not self._same
        decoded = decode_all(self.tokens.tokens(np.arange(known, n)))
        texts = [norm(t) if every or t[:1] in "0mM" else t for t in decoded]
        # every id so far its token as written: the new tokens (distinct,
        # and none of them seen before) are new, distinct ids
        self._verbatim = self._verbatim and not every and texts == decoded
        if not every and (
            self._verbatim or (by_id.keys().isdisjoint(texts) and len(set(texts)) == len(texts))
        ):
            # new ids all (the usual case): codes in order, made at once
            by_id.update(zip(texts, range(len(ids), len(ids) + len(texts))))
            ids.extend(texts)
            codes = np.arange(known, known + len(texts), dtype=np.int32)
        else:
            codes = np.array(
                [by_id.setdefault(ident, len(by_id)) for ident in texts], dtype=np.int32
            )
            for ident in list(by_id)[len(ids) :]:  # the ids met for the first time
                ids.append(ident)
            self._same = self._same and bool((codes == np.arange(known, known + codes.size)).all())
        if not self._same and not every:
            # two spellings of one id: the normaliser learns every
            # spelling seen (its hint names them all)
            for text in decode_all(list(self.tokens.raw)):
                norm(text)
        self._of_token = np.concatenate((self._of_token, codes))

    def id_codes(self, token_codes: np.ndarray) -> np.ndarray:
        """Id codes of raw-token codes (the same numbers while no two
        spellings of one id have been seen)."""
        return token_codes if self._same else self._of_token[token_codes]
