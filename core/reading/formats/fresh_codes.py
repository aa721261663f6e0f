"""Codes of a field whose tokens are new as a rule (the documents of a qrels
that judges each one once), added a chunk at a time without the hash
table, which is made once at the end.

A :class:`~.keys.TokenCodes` looks every chunk's tokens up in its table and
puts the new ones in: random reads and writes over a table of millions of
slots (64 MiB for 4 M documents), the cost of coding such a field.  A
:class:`FreshCodes` adds a chunk "fresh" instead (its tokens' codes follow
on, their bytes go into the arrays, their hashes are kept) while the last
chunk's tokens were all new and none of a sample of this one's is in the
table as it was when the fresh chunks began; every other use of the table
(a look-up, a chunk that is not fresh, the file's end: :meth:`settle`)
puts them in, in one pass in the order of their slots.  Only then is it
known whether a fresh token repeats an earlier one (of a fresh chunk, or
one before them that the sample missed: every token's hash is checked): each
such repeat is merged into its first occurrence (the codes after it move
down), and :meth:`take_remap` says how the codes handed out changed (the
reader codes its documents again: ``remap[code]``).  The codes, the
tokens and the table are those :class:`~.keys.TokenCodes` gives.
"""

from __future__ import annotations

import numpy as np

from .keys import TokenCodes, key_with_entries, spare
from .packed import Packed, token_hash

#: tokens still to come (the reader's :meth:`~.keys.TokenCodes.reserve`)
#: for chunks to be added fresh: a small file is coded through the table
FRESH_MIN = 1 << 18
#: tokens of a chunk looked up in the table before it is added fresh
SAMPLE = 1 << 11


class FreshCodes(TokenCodes):
    """A :class:`~.keys.TokenCodes` whose new tokens may be added fresh
    (:meth:`fresh_codes`)."""

    def __init__(self) -> None:
        super().__init__()
        #: the hashes of the tokens added fresh (codes from ``_fresh_from``
        #: on, not in the table), chunk by chunk; None: none
        self._fresh: list[np.ndarray] | None = None
        self._fresh_from = 0
        #: how the codes handed out changed at the last settle (None: not)
        self._remap: np.ndarray | None = None

    def fresh_codes(self, packed: Packed) -> np.ndarray | None:
        """The codes of a chunk added fresh, or None when it cannot be (the
        tokens added fresh so far are then still pending: :meth:`codes`
        settles them first)."""
        h = packed.hash
        if (
            packed.words is None
            or h is None
            or packed.heads is not None
            or packed.short is not None
            or (packed.found is not None and (packed.found >= 0).any())
        ):
            return None
        if self._fresh is None and (
            self._share < 1.0 or not self._n or self._expect - self._coded < FRESH_MIN
        ):
            return None
        # a sample of the chunk looked up in the table (an earlier chunk's
        # tokens, not fresh): a field that repeats them stops being fresh (a
        # repeat the sample misses, or of a fresh token, is merged at the end)
        at = slice(None, None, max(1, h.size // SAMPLE))
        words = packed.words[:, at]
        if self._lookup(packed.lengths[at], words, h[at])[1].size < words.shape[1]:
            return None
        base, k = self._n, h.size
        n = base + k
        if self._fresh is None:
            self._fresh, self._fresh_from = [], base
        width = packed.words.shape[0]
        self._reserve(n, width)
        self._len[base:n] = packed.lengths
        self._words[:width, base:n] = packed.words
        self._words[width:, base:n] = 0
        self._n = n
        self._coded += k
        self._share, self._chunk = 1.0, k
        self._fresh.append(h)
        return np.arange(base, n, dtype=np.int32)

    def _made_if_distinct(self, n: int, hashes: np.ndarray) -> bool:
        """:meth:`~.keys.TokenCodes._rebuild` of the first ``n`` entries, every
        token packed, from their ``hashes`` (overwritten; a table of at most
        2**32 slots), told distinct by the table's own sort: the entries are
        sorted by their hash's top 32 bits (the home slot first: any order
        within a home is linear probing's), which brings equal hashes
        together, and the table is made only if no two are equal (the tokens
        then are distinct): False, with the table as it was, when two are
        (one sort for both, where the check sorted a copy of the hashes)."""
        # the hash's top bits (the home slot first), made in place: the
        # caller's hashes are let go to this (no second array of 8 bytes a token)
        key = hashes
        del hashes
        key &= np.uint64(0xFFFFFFFF00000000)
        key_with_entries(key, None)
        key.sort()
        top = key.view(np.uint32)[int(np.little_endian) :: 2]  # each key's high half (a view)
        runs = np.flatnonzero(top[1:] == top[:-1])
        if runs.size:  # the few entries whose top bits are another's: their whole hashes
            alike = np.zeros(key.size, dtype=bool)
            alike[runs] = alike[runs + 1] = True
            e = (key[alike] & np.uint64(0xFFFFFFFF)).astype(np.intp)
            h = np.sort(token_hash(self._words[:, e], self._len[e]))
            if (h[1:] == h[:-1]).any():
                return False
        del top
        place = (key >> np.uint64(64 - self._bits)).view(np.int64)
        key &= np.uint64(0xFFFFFFFF)
        entries = key.astype(np.int32)
        del key
        self._place(place, entries)
        return True

    def settle(self, *, last: bool = False) -> None:
        """The tokens added fresh put in the table (each repeat of an earlier
        one merged into it: :meth:`take_remap`); ``last``: the file is read,
        the table is for looking up other files' ids (a run's documents) and
        is made half full (32 MiB for 4 M documents, not 64)."""
        if self._fresh is None:
            return
        # every token's hash: the fresh ones against each other and against
        # those before them (a repeat of one of those the sample missed)
        hashes = [self._hashes()]
        # (a token too long to pack has a placeholder's hash, never a fresh
        # token's bytes: left out, or two of them would look like a repeat)
        packed = self._len[: self._n] >= 0
        chosen = None if packed.all() else packed
        n, before = self._n, self._bits
        want = n if last else min(n + max(self._expect - self._coded, 0), 8 * n)
        while (2 if last else spare(want)) * want > (1 << self._bits):
            self._bits += 1
        # (the rule): the table made once; (no name here holds the hashes: let
        # go in the table's making)
        if chosen is None and self._bits <= 32:  # told distinct by the table's own sort
            if self._made_if_distinct(n, hashes.pop()):
                return
        elif _distinct(hashes[0], chosen):
            self._rebuild(n, hashes.pop())
            return
        self._bits = before
        del hashes
        # a repeat: the fresh tokens coded again through the table, in order
        base, n = self._fresh_from, self._n
        ln, words = self._len[base:n].copy(), self._words[:, base:n].copy()
        self._n = base
        codes = self._codes(ln, words, token_hash(words, ln))
        remap = np.concatenate((np.arange(base, dtype=np.int32), codes.astype(np.int32)))
        self._remap = remap if self._remap is None else remap[self._remap]

    def _hashes(self) -> np.ndarray:
        """The hash of every token (those before the fresh ones made again),
        the fresh ones' kept hashes let go as they are copied (one array of
        8 bytes a token at a time beside the table's own: a 4 M-line qrels'
        peak)."""
        assert self._fresh is not None
        fresh, self._fresh = self._fresh, None
        base, n = self._fresh_from, self._n
        hashes = np.empty(n, dtype=np.uint64)
        hashes[:base] = token_hash(self._words[:, :base], self._len[:base])
        at = base
        fresh.reverse()
        while fresh:
            h = fresh.pop()
            hashes[at : at + h.size] = h
            at += h.size
            del h
        return hashes

    def take_remap(self) -> np.ndarray | None:
        """How the codes handed out before the last settles changed (``new =
        remap[old]``), once; None when none did."""
        remap, self._remap = self._remap, None
        return remap

    # every other use of the table settles the fresh tokens first
    def codes(self, packed: Packed) -> np.ndarray:
        self.settle()
        return super().codes(packed)

    def find(self, toks) -> np.ndarray:
        self.settle()
        return super().find(toks)

    def snapshot(self):
        self.settle()
        return super().snapshot()

    def trim(self) -> None:
        self.settle()
        super().trim()


def _distinct(hashes: np.ndarray, chosen: np.ndarray | None = None) -> bool:
    """Whether ``hashes`` (those ``chosen``) are distinct (a sorted copy):
    then so are their tokens; a repeat (or two tokens of one hash) is told
    by the table."""
    s = np.sort(hashes) if chosen is None else hashes[chosen]
    if chosen is not None:
        s.sort()
    return not (s[1:] == s[:-1]).any()
