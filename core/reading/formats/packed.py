"""A chunk's tokens packed for the id tables of :mod:`.keys`, without a
Python object per token.

A token is read as its length and its bytes packed into little-endian
uint64 words (zero past its end), so two tokens are equal exactly when
their lengths and words are equal (a NUL byte inside a token cannot be
confused with the padding: the lengths differ); its hash
(:func:`token_hash`) picks its slot in a table.  :class:`Packed` is a
field of one chunk packed (in a reader's worker thread), :class:`Snapshot`
a table as it was when a chunk was handed out, for that thread's probe.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: longest token packed into words; longer ones are coded through a dict
KEY_BYTES = 32
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
    out = np.empty((width, starts.size), dtype=np.uint64)
    # word w of every token: the bytes from 8 * w on read as words (a view
    # at that offset, not the starts moved), masked past each token's end;
    # not at all where every token fills it, by one mask where all are as long
    least, most = (int(lengths.min()), int(lengths.max())) if starts.size else (0, 0)
    for w in range(width):
        words = np.ndarray(
            shape=(n + KEY_BYTES - 8 * w,), dtype="<u8", buffer=pad, offset=8 * w, strides=(1,)
        )
        if least >= 8 * (w + 1):
            out[w] = words[starts]
        elif least == most:
            np.bitwise_and(words[starts], _MASKS[min(least - 8 * w, 8)], out=out[w])
        else:
            left = np.clip(lengths - 8 * w, 0, 8)
            np.bitwise_and(words[starts], _MASKS[left], out=out[w])
    return out


def token_hash(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
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


@dataclass(frozen=True)
class Snapshot:
    """A :class:`~.keys.TokenCodes` table as it was, for a worker thread to probe
    while the calling thread goes on adding tokens: the entries below
    ``size`` never change, a slot holding one of them never changes (a
    larger table is a new array), and a slot read holding a code at or past
    ``size`` (added since) reads as not found."""

    bits: int
    table: np.ndarray
    lengths: np.ndarray
    words: np.ndarray
    size: int


class Packed:
    """The tokens ``data[starts:ends]`` of one field of one chunk, packed
    for :meth:`.keys.TokenCodes.codes` (a pure function of the chunk: readers
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
        self.words = self.hash = self.heads = None
        self.found: np.ndarray | None = None
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
                self.hash = token_hash(words[:, heads], lengths[heads])
                return
        self.hash = token_hash(words, lengths)

    def probe(self, snap: Snapshot) -> None:
        """Codes of the tokens found at their first slot in ``snap`` (-1 for
        the others), in the worker thread: :meth:`.keys.TokenCodes.codes` then
        looks up only the rest.  For fields without runs of one token."""
        if self.words is None or self.heads is not None or self.short is not None:
            return
        if not snap.size or self.hash is None:  # (the hash is made with the words)
            return
        slot = (self.hash >> np.uint64(64 - snap.bits)).astype(np.intp)
        v = snap.table[slot]
        ok = (v >= 0) & (v < snap.size)
        at = np.where(ok, v, 0)
        ok &= snap.lengths[at] == self.lengths
        # equal lengths mean equal widths: the words a token has are compared
        for w in range(min(self.words.shape[0], snap.words.shape[0])):
            ok &= snap.words[w][at] == self.words[w]
        self.found = np.where(ok, v, -1).astype(np.int32)

    def long_tokens(self):
        """(index, bytes) of the tokens too long to pack."""
        if self._long is None or self.short is None:  # (both or neither)
            return []
        idx = np.flatnonzero(np.isin(np.arange(self.size), self.short, invert=True))
        d = self.data
        return [(i, d[a:b]) for i, a, b in zip(idx.tolist(), *(x.tolist() for x in self._long))]
