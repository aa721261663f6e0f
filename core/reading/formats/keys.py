"""Ids of many tokens at once: every distinct token of a field gets a code,
in order of first occurrence across all the chunks of a file, without a
Python object per token.

A token is read as its length and its bytes packed into little-endian
uint64 words (zero past its end), so two tokens are equal exactly when
their lengths and words are equal (a NUL byte inside a token cannot be
confused with the padding: the lengths differ).  A :class:`TokenCodes`
keeps the distinct tokens seen so far in an open-addressing hash table
held in numpy arrays: a chunk's tokens are looked up all at once (a hash
picks the slot, the length and words are then compared, so a hash
collision costs a probe, never a wrong id), and only the tokens not seen
before are added, deduplicated with numpy.  Runs of the same token (a
TREC file's query ids, its run tag) are looked up once per run.

Hand-written because numpy has no hash table and the one of pandas
(``factorize``) would bring pandas back for this alone; a sorted vocabulary
with ``searchsorted`` was measured twice as slow on unsorted ids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: longest token packed into words; longer ones are coded through a dict
KEY_BYTES = 32
_WORDS = KEY_BYTES // 8
_MASKS = np.array([(1 << (8 * i)) - 1 for i in range(8)] + [2**64 - 1], dtype=np.uint64)
_ODD = np.array(
    [0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x2545F4914F6CDD1D, 0x9FB21C651E98DF25],
    dtype=np.uint64,
)
_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def padded(buf: np.ndarray) -> np.ndarray:
    """``buf`` followed by :data:`KEY_BYTES` zero bytes (so a word may be
    read at any token start)."""
    out = np.zeros(buf.size + KEY_BYTES + 8, dtype=np.uint8)
    out[: buf.size] = buf
    return out


def token_words(pad: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int):
    """(width, tokens) uint64: the bytes of each token (at most
    ``8 * width`` long) packed little-endian, zero past its end."""
    n = pad.size - KEY_BYTES - 8
    words = np.ndarray(shape=(n + KEY_BYTES,), dtype="<u8", buffer=pad, strides=(1,))
    out = np.empty((width, starts.size), dtype=np.uint64)
    for w in range(width):
        left = np.clip(lengths - 8 * w, 0, 8)
        np.bitwise_and(words[starts + 8 * w], _MASKS[left], out=out[w])
    return out


def _hash(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each token; zero words (past a token's end) change
    nothing, so the hash does not depend on how many words a chunk uses."""
    h = lengths.astype(np.uint64) * _MIX[0]
    for w in range(words.shape[0]):
        h ^= words[w] * _ODD[w]
    h ^= h >> np.uint64(31)
    h *= _MIX[1]
    h ^= h >> np.uint64(29)
    h *= _MIX[2]
    h ^= h >> np.uint64(32)
    return h


def pieces(data: bytes, starts: np.ndarray, ends: np.ndarray) -> list[bytes]:
    """``data[a:b]`` for every (a, b) of ``starts``, ``ends``: gathered into
    one buffer, a newline after each, and split once (twice as fast as
    slicing one at a time for 100,000 ids); pieces that hold a newline
    themselves are sliced one at a time."""
    n = int(starts.size)
    if n < 64:
        return [data[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
    starts = starts.astype(np.int64, copy=False)
    lengths = ends - starts
    total = int(lengths.sum())
    at = np.arange(total, dtype=np.int64)
    out = np.full(total + n, 10, dtype=np.uint8)
    out[at + np.repeat(np.arange(n, dtype=np.int64), lengths)] = np.frombuffer(data, np.uint8)[
        at + np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    ]
    got = out[:-1].tobytes().split(b"\n")
    if len(got) != n:
        return [data[a:b] for a, b in zip(starts.tolist(), ends.tolist())]
    return got


@dataclass(frozen=True)
class Snapshot:
    """A :class:`TokenCodes` table as it was, for a worker thread to probe
    while the calling thread goes on adding tokens: the table's slots only
    ever go from empty to a code (a larger table is a new array), and a code
    at or past ``size`` is not in the arrays held here, so it reads as not
    found."""

    bits: int
    table: np.ndarray
    lengths: np.ndarray
    words: np.ndarray
    size: int


class Packed:
    """The tokens ``data[starts:ends]`` of one field of one chunk, packed
    for :meth:`TokenCodes.codes` (a pure function of the chunk: readers
    pack chunks in worker threads, then code them in file order).  With
    ``runs`` (a field whose tokens come in runs of one, as query ids do) the
    runs are found and only their first tokens hashed (:attr:`heads`; then
    :attr:`hash` holds theirs); a field probed in a worker (documents) has
    none to look for."""

    def __init__(
        self,
        data: bytes,
        pad: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        *,
        runs: bool = True,
    ):
        self.data = data
        self.size = n = starts.size
        lengths = ends - starts
        longer = lengths > KEY_BYTES
        self.short = np.flatnonzero(~longer) if n and longer.any() else None
        self._long = (starts[longer], ends[longer]) if self.short is not None else None
        if self.short is not None:
            starts, lengths = starts[self.short], lengths[self.short]
        self.starts, self.lengths = starts, lengths
        self.words = self.hash = self.heads = self.found = None
        if not starts.size:
            return
        width = max(int(lengths.max() + 7) // 8, 1)
        self.words = words = token_words(pad, starts, lengths, width)
        if runs:
            # runs of one token (query ids, run tags) are looked up once: only
            # the first token of each run (its head) is hashed
            change = lengths[1:] != lengths[:-1]
            for w in range(width):
                change |= words[w, 1:] != words[w, :-1]
            if (np.count_nonzero(change) + 1) * 4 < starts.size:
                self.heads = heads = np.concatenate(([0], np.flatnonzero(change) + 1))
                self.hash = _hash(words[:, heads], lengths[heads])
                return
        self.hash = _hash(words, lengths)

    def probe(self, snap: Snapshot) -> None:
        """Codes of the tokens found at their first slot in ``snap`` (-1 for
        the others), in the worker thread: :meth:`TokenCodes.codes` then
        looks up only the rest.  For fields without runs of one token."""
        if self.words is None or self.heads is not None or self.short is not None:
            return
        if not snap.size:
            return
        slot = (self.hash >> np.uint64(64 - snap.bits)).astype(np.intp)
        v = snap.table[slot]
        ok = (v >= 0) & (v < snap.size)
        at = np.where(ok, v, 0)
        ok &= snap.lengths[at] == self.lengths
        for w in range(self.words.shape[0]):
            ok &= snap.words[w][at] == self.words[w]
        self.found = np.where(ok, v, -1).astype(np.int32)

    def long_tokens(self):
        """(index, bytes) of the tokens too long to pack."""
        if self._long is None:
            return []
        idx = np.flatnonzero(np.isin(np.arange(self.size), self.short, invert=True))
        d = self.data
        return [(i, d[a:b]) for i, a, b in zip(idx.tolist(), *(x.tolist() for x in self._long))]


class TokenCodes:
    """Codes of the distinct tokens of one field across a file's chunks, in
    order of first occurrence; :attr:`raw` lists the tokens (bytes) in code
    order."""

    def __init__(self) -> None:
        self.raw: list[bytes] = []
        self._bits = 10
        self._table = np.full(1 << self._bits, -1, dtype=np.int32)
        self._hash = np.zeros(0, dtype=np.uint64)
        self._len = np.zeros(0, dtype=np.int64)
        self._words = np.zeros((_WORDS, 0), dtype=np.uint64)
        self._long: dict[bytes, int] = {}

    def __len__(self) -> int:
        return len(self.raw)

    def snapshot(self) -> Snapshot:
        """The table as it is now, for :meth:`Packed.probe`."""
        return Snapshot(self._bits, self._table, self._len, self._words, self._len.size)

    def codes(self, packed: Packed) -> np.ndarray:
        """The code of every token of ``packed`` (new tokens added)."""
        out = np.empty(packed.size, dtype=np.int32)
        if not packed.size:
            return out
        base = len(self.raw)
        data, short = packed.data, packed.short
        if packed.found is not None:  # probed in a worker thread: the rest here
            s, ln, words, h = packed.starts, packed.lengths, packed.words, packed.hash
            codes = packed.found
            rest = np.flatnonzero(codes < 0)
            if rest.size:
                codes = codes.copy()
                codes[rest] = self._codes(data, s[rest], ln[rest], words[:, rest], h[rest])
            return codes
        if packed.words is not None:
            s, ln, words, h = packed.starts, packed.lengths, packed.words, packed.hash
            heads = packed.heads
            if heads is not None:
                codes = self._codes(data, s[heads], ln[heads], words[:, heads], h)
                codes = np.repeat(codes, np.diff(np.append(heads, s.size)))
            else:
                codes = self._codes(data, s, ln, words, h)
            if short is None:
                return codes
            out[short] = codes
        for i, tok in packed.long_tokens():
            out[i] = self._long_code(tok)
        if len(self.raw) > base:
            self._first_occurrence_order(out, base)
        return out

    def _first_occurrence_order(self, out: np.ndarray, base: int) -> None:
        """Renumber the codes new in this chunk by first occurrence (the
        long tokens were coded after the short ones)."""
        new = np.flatnonzero(out >= base)
        codes, first = np.unique(out[new], return_index=True)
        order = codes[np.argsort(first, kind="stable")]
        if (order == np.arange(base, base + order.size)).all():
            return
        to = np.arange(len(self.raw))
        to[order] = np.arange(base, base + order.size)
        out[new] = to[out[new]]
        back = np.arange(len(self.raw))
        back[to] = np.arange(len(self.raw))
        self.raw[base:] = [self.raw[i] for i in back[base:].tolist()]
        self._hash, self._len = self._hash[back], self._len[back]
        self._words = self._words[:, back]
        used = self._table >= 0
        self._table[used] = to[self._table[used]]
        self._long = {t: int(to[c]) for t, c in self._long.items()}

    def _long_code(self, tok: bytes) -> int:
        code = self._long.get(tok)
        if code is None:
            code = self._long[tok] = self._append(
                [tok], np.zeros(1, np.uint64), np.full(1, -1, np.int64), None
            )[0]
        return code

    def _codes(self, data, starts, lengths, words, h) -> np.ndarray:
        while True:
            codes, missing = self._lookup(lengths, words, h)
            if not missing.size:
                return codes
            # the new tokens, one per distinct hash, in order of first occurrence
            _, first = np.unique(h[missing], return_index=True)
            new = missing[np.sort(first)]
            raws = pieces(data, starts[new], starts[new] + lengths[new])
            self._append(raws, h[new], lengths[new], words[:, new])

    def _lookup(self, lengths, words, h):
        """(codes, indices of the tokens not in the table)."""
        if not self._len.size:
            return np.full(h.size, -1, dtype=np.int32), np.arange(h.size)
        slot = (h >> np.uint64(64 - self._bits)).astype(np.intp)
        # first probe of every token at once (where nearly all are found)
        v = self._table[slot]
        same = self._len[np.maximum(v, 0)] == lengths
        same &= v >= 0
        for w in range(words.shape[0]):
            same &= self._words[w][v] == words[w]
        if same.all():
            return v, np.zeros(0, dtype=np.intp)
        codes = np.where(same, v, -1)
        todo = np.flatnonzero(~same)
        slot = slot[todo]
        missing = []
        mask = (1 << self._bits) - 1
        while todo.size:
            v = self._table[slot]
            empty = v < 0
            if empty.any():
                missing.append(todo[empty])
                keep = ~empty
                todo, slot, v = todo[keep], slot[keep], v[keep]
            # the hash picks the slot; the length and the words decide
            same = self._len[v] == lengths[todo]
            for w in range(words.shape[0]):
                same &= self._words[w][v] == words[w][todo]
            codes[todo[same]] = v[same]
            todo, slot = todo[~same], slot[~same]
            slot = (slot + 1) & mask
        miss = np.concatenate(missing) if missing else np.zeros(0, np.intp)
        return codes, np.sort(miss)

    def _append(self, raws, h, lengths, words) -> list[int]:
        """Add tokens (not yet known) with their hashes; their codes."""
        base = len(self.raw)
        codes = list(range(base, base + len(raws)))
        self.raw.extend(raws)
        self._hash = np.concatenate((self._hash, h))
        self._len = np.concatenate((self._len, lengths))
        full = np.zeros((_WORDS, len(raws)), dtype=np.uint64)
        if words is not None:
            full[: words.shape[0]] = words
        self._words = np.concatenate((self._words, full), axis=1)
        if words is None:  # a long token: kept out of the table (length -1)
            return codes
        # sparse, so that nearly every token is found at the first probe
        # (each further probe is a round of numpy calls over the few left):
        # a sixteenth full for small vocabularies, half full past 4 M tokens
        n = len(self.raw)
        spare = 16 if n < 1 << 16 else 8 if n < 1 << 20 else 4 if n < 1 << 22 else 2
        if spare * len(self.raw) > self._table.size:
            while spare * len(self.raw) > (1 << self._bits):
                self._bits += 1
            self._table = np.full(1 << self._bits, -1, dtype=np.int32)
            self._insert(np.flatnonzero(self._len >= 0))
        else:
            self._insert(np.arange(base, base + len(raws)))
        return codes

    def _insert(self, entries: np.ndarray) -> None:
        mask = np.int64((1 << self._bits) - 1)
        slot = (self._hash[entries] >> np.uint64(64 - self._bits)).astype(np.int64)
        while entries.size:
            free = self._table[slot] < 0
            # one entry per free slot this round (the first of those wanting it)
            cand = np.flatnonzero(free)
            _, first = np.unique(slot[cand], return_index=True)
            won = cand[first]
            self._table[slot[won]] = entries[won]
            left = np.ones(entries.size, dtype=bool)
            left[won] = False
            entries, slot = entries[left], slot[left]
            blocked = self._table[slot] >= 0
            slot = np.where(blocked, (slot + 1) & mask, slot)
