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

Hand-written: numpy has no hash table, pandas' (``factorize``) would bring
pandas back for it alone, a sorted vocabulary was twice as slow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .token_list import TokenList

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


def _spare(n: int) -> int:
    """How many slots the hash table keeps per token of ``n``: sparse, so
    that nearly every token is found at the first probe (each further probe
    is a round of numpy calls over the few left): a sixteenth full for small
    vocabularies, a quarter full, half full past 4 M tokens (4 to 8 bytes a
    token: 32 and more, and the table held more memory than the tokens)."""
    return 16 if n < 1 << 12 else 4 if n < 1 << 22 else 2


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
                self.hash = _hash(words[:, heads], lengths[heads])
                return
        self.hash = _hash(words, lengths)

    def probe(self, snap: Snapshot) -> None:
        """Codes of the tokens found at their first slot in ``snap`` (-1 for
        the others), in the worker thread: :meth:`TokenCodes.codes` then
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


class TokenCodes:
    """Codes of the distinct tokens of one field across a file's chunks, in
    order of first occurrence; :attr:`raw` lists the tokens (bytes) in code
    order.  Only numbers are held per token (its words, which are its bytes,
    length and hash, in arrays grown by doubling; the few longer than
    :data:`KEY_BYTES` kept whole): no Python object per id."""

    def __init__(self) -> None:
        self._n = 0
        self._bits = 10
        self._table = np.full(1 << self._bits, -1, dtype=np.int32)
        # arrays of a capacity: entries [0, _n) are the tokens
        self._len: np.ndarray = np.zeros(0, dtype=np.int32)
        self._words = np.zeros((1, 0), dtype=np.uint64)
        #: tokens too long to pack (length -1 in the arrays): by bytes, by code
        self._long: dict[bytes, int] = {}
        self._long_raw: dict[int, bytes] = {}
        #: tokens expected in all (:meth:`reserve`), tokens coded so far, and
        #: the share of new ones in the last look-up: how large the table
        #: grows when it must (:meth:`_append`)
        self._expect = 0
        self._coded = 0
        self._share = 1.0

    def __len__(self) -> int:
        return self._n

    @property
    def raw(self) -> Sequence[bytes]:
        """The tokens in code order (bytes), as a sequence made from the
        table when read (:class:`.token_list.TokenList`)."""
        return TokenList(self, self._n)

    def token(self, code: int) -> bytes:
        """The token of one code."""
        n = int(self._len[code])
        if n < 0:
            return self._long_raw[code]
        return self._words[: (n + 7) // 8, code].astype("<u8").tobytes()[:n]

    def tokens(self, codes: np.ndarray) -> list[bytes]:
        """The tokens of ``codes`` (bytes), made a block at a time."""
        codes = np.asarray(codes, dtype=np.intp)
        out: list[bytes] = []
        for at in range(0, codes.size, 1 << 16):
            out += self._tokens(codes[at : at + (1 << 16)])
        return out

    def _tokens(self, codes: np.ndarray) -> list[bytes]:
        # every token's words as bytes, a newline after each, the bytes past
        # its length left out; then one split (as :func:`pieces` does)
        k, width = codes.size, self._words.shape[0]
        if k < 16:
            return [self.token(c) for c in codes.tolist()]
        lens = self._len[codes]
        rows = np.empty((k, 8 * width + 1), dtype=np.uint8)
        rows[:, :-1] = (
            np.ascontiguousarray(self._words[:, codes].T, dtype="<u8").view(np.uint8).reshape(k, -1)
        )
        keep = np.arange(8 * width + 1) < lens[:, None]
        keep[:, -1] = True
        rows[:, -1] = 10
        got = rows[keep].tobytes().split(b"\n")[:-1]
        if len(got) != k:  # a token holding a newline
            return [self.token(c) for c in codes.tolist()]
        for j in np.flatnonzero(lens < 0).tolist():
            got[j] = self._long_raw[int(codes[j])]
        return got

    def first_bytes(self, start: int, stop: int) -> np.ndarray:
        """The first byte of the tokens of codes ``start`` to ``stop``."""
        first = (self._words[0, start:stop] & np.uint64(0xFF)).astype(np.uint8)
        for c in np.flatnonzero(self._len[start:stop] < 0).tolist():
            first[c] = self._long_raw[start + c][0]
        return first

    def find(self, toks: Sequence[bytes] | TokenCodes) -> np.ndarray:
        """The code of each token of ``toks``, -1 for those not in the table
        (nothing added); ``toks`` may be another table (its tokens in code
        order, looked up from its words: no bytes object made)."""
        n = len(toks)
        out = np.full(n, -1, dtype=np.int32)
        if not n or not self._n:
            return out
        if isinstance(toks, TokenCodes):
            ln, words = toks._len[:n], toks._words[:, :n]
            packed = np.flatnonzero(ln >= 0)
            if packed.size:
                ln, words = ln[packed], words[:, packed]
                out[packed] = self._lookup(ln, words, _hash(words, ln))[0]
            for c, tok in toks._long_raw.items():
                out[c] = self._long.get(tok, -1)
            return out
        lengths = np.fromiter(map(len, toks), np.int64, n)
        starts = np.cumsum(lengths) - lengths
        short = np.flatnonzero(lengths <= KEY_BYTES)
        if short.size:
            pad = padded(np.frombuffer(b"".join(toks), dtype=np.uint8))
            s, ln = starts[short], lengths[short]
            words = token_words(pad, s, ln, max(int(ln.max() + 7) // 8, 1))
            out[short] = self._lookup(ln, words, _hash(words, ln))[0]
        for i in np.flatnonzero(lengths > KEY_BYTES).tolist():
            out[i] = self._long.get(toks[i], -1)
        return out

    def snapshot(self) -> Snapshot:
        """The table as it is now, for :meth:`Packed.probe`."""
        return Snapshot(self._bits, self._table, self._len, self._words, self._n)

    def probe_snapshot(self) -> Snapshot | None:
        """:meth:`snapshot` for a chunk to come, or None when the last
        look-up found under a tenth of its tokens in the table: ids new as a
        rule (a qrels judging each document once), which a worker's probe
        would look for in vain before they are looked up again here."""
        return self.snapshot() if self._share < 0.9 else None

    def codes(self, packed: Packed) -> np.ndarray:
        """The code of every token of ``packed`` (new tokens added)."""
        out = np.empty(packed.size, dtype=np.int32)
        if not packed.size:
            return out
        self._coded += packed.size
        base = self._n
        short = packed.short
        if packed.found is not None and packed.words is not None and packed.hash is not None:
            ln, words, h = packed.lengths, packed.words, packed.hash
            codes = packed.found  # probed in a worker thread: the rest here
            rest = np.flatnonzero(codes < 0)
            if rest.size == codes.size:  # none found (new tokens, as a rule)
                return self._codes(ln, words, h)
            if rest.size:
                codes = codes.copy()
                codes[rest] = self._codes(ln[rest], words[:, rest], h[rest])
            return codes
        if packed.words is not None and packed.hash is not None:  # (made together)
            ln, words, h = packed.lengths, packed.words, packed.hash
            heads = packed.heads
            if heads is not None:
                codes = self._codes(ln[heads], words[:, heads], h)
                codes = np.repeat(codes, np.diff(np.append(heads, ln.size)))
            else:
                codes = self._codes(ln, words, h)
            if short is None:
                return codes
            out[short] = codes
        for i, tok in packed.long_tokens():
            out[i] = self._long_code(tok)
        if self._n > base:
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
        n = self._n
        to = np.arange(n)
        to[order] = np.arange(base, base + order.size)
        out[new] = to[out[new]]
        back = np.arange(n)
        back[to] = np.arange(n)
        # only the new entries move (a snapshot handed out holds none of them)
        moved = back[base:]
        self._len[base:n] = self._len[moved]
        self._words[:, base:n] = self._words[:, moved]
        used = self._table >= base
        self._table[used] = to[self._table[used]]
        self._long = {t: int(to[c]) for t, c in self._long.items()}
        self._long_raw = {int(to[c]): t for c, t in self._long_raw.items()}

    def _long_code(self, tok: bytes) -> int:
        code = self._long.get(tok)
        if code is None:
            code = self._n
            self._reserve(code + 1, 1)
            self._len[code], self._words[:, code] = -1, 0
            self._n += 1
            self._long[tok], self._long_raw[code] = code, tok
        return code

    def reserve(self, n: int) -> None:
        """Room for ``n`` tokens at once (a reader that knows how many lines
        come; the room no token takes is never touched), and the number
        expected in all: the hash table then grows at once to the size the
        tokens still to come need, when as many of them are new as in the
        chunk that made it grow (at most eight times the tokens it holds,
        not by doubling: each growth places every token again); see
        :meth:`trim`."""
        self._reserve(n, self._words.shape[0])
        self._expect = max(self._expect, n)

    def trim(self) -> None:
        """The hash table made no larger than its tokens need (once a file is
        read: :meth:`reserve`'s guess of the new tokens to come was too
        high, as for a file whose first lines name most of its ids)."""
        n = self._n
        bits = 10
        while _spare(n) * n > (1 << bits):
            bits += 1
        if bits < self._bits:
            self._bits = bits
            self._rebuild(n)

    def _reserve(self, n: int, width: int) -> None:
        """Room for ``n`` tokens of ``width`` words (capacity doubled: the
        copies cost as much as the tokens, not their square)."""
        cap, rows = self._len.size, self._words.shape[0]
        if n <= cap and width <= rows:
            return
        if n > cap:
            cap = max(n, 2 * cap, 1024)
        m = self._n
        ln = np.empty(cap, dtype=np.int32)
        ln[:m] = self._len[:m]
        words = np.empty((max(width, rows), cap), dtype=np.uint64)
        words[:rows, :m] = self._words[:, :m]
        words[rows:, :m] = 0
        # new arrays: a snapshot handed out keeps the old ones
        self._len, self._words = ln, words

    def _codes(self, lengths, words, h) -> np.ndarray:
        codes, missing, empty = self._lookup(lengths, words, h)
        self._share = missing.size / max(h.size, 1)
        while missing.size:
            hm = h[missing]
            s = np.sort(hm)
            if (s[1:] != s[:-1]).all():  # distinct new tokens (the usual case)
                codes[missing] = self._append(hm, lengths[missing], words[:, missing], empty)
                break
            # the new tokens, one per distinct hash, in order of first occurrence
            _, first = np.unique(hm, return_index=True)
            new = missing[np.sort(first)]
            self._append(h[new], lengths[new], words[:, new])
            found, left, _ = self._lookup(lengths[missing], words[:, missing], hm)
            codes[missing] = found
            missing = missing[left]
        return codes

    def _lookup(self, lengths, words, h):
        """(codes, -1 for the tokens not in the table; their indices in
        order; the empty slot where the probe of each of those ended, or
        None)."""
        if not self._n:
            return np.full(h.size, -1, dtype=np.int32), np.arange(h.size), None
        # equal lengths mean equal widths: the words a token has are compared
        rows = range(min(words.shape[0], self._words.shape[0]))
        slot = self._home(h)
        # first probe of every token at once (where nearly all are found, or
        # meet an empty slot: not in the table)
        v = self._table[slot]
        empty = v < 0
        taken = np.flatnonzero(~empty)
        if 2 * taken.size > v.size:  # mostly tokens seen before: all compared
            at = np.maximum(v, 0)
            same = self._len[at] == lengths
            for w in rows:
                same &= self._words[w][at] == words[w]
            same &= ~empty
        else:  # mostly new tokens: only those meeting a token compared
            at = v[taken]
            hit = self._len[at] == lengths[taken]
            for w in rows:
                hit &= self._words[w][at] == words[w][taken]
            same = np.zeros(v.size, dtype=bool)
            same[taken[hit]] = True
        if same.all():
            return v, np.zeros(0, dtype=np.intp), None
        codes = np.where(same, v, -1).astype(np.int32, copy=False)
        missing = np.flatnonzero(empty)
        ended = slot[missing]
        # where the probes of tokens missing after more probes ended, by
        # token (then read in token order: no sort of the missing ones)
        ended_at: np.ndarray | None = None
        todo = np.flatnonzero(~(same | empty))
        mask = (1 << self._bits) - 1
        slot = (slot[todo] + 1) & mask
        while todo.size:
            v = self._table[slot]
            empty = v < 0
            if empty.any():
                if ended_at is None:
                    ended_at = np.empty(h.size, dtype=np.intp)
                    ended_at[missing] = ended
                ended_at[todo[empty]] = slot[empty]
                keep = ~empty
                todo, slot, v = todo[keep], slot[keep], v[keep]
            # the hash picks the slot; the length and the words decide
            same = self._len[v] == lengths[todo]
            for w in rows:
                same &= self._words[w][v] == words[w][todo]
            codes[todo[same]] = v[same]
            todo, slot = todo[~same], slot[~same]
            slot = (slot + 1) & mask
        if ended_at is None:
            return codes, missing, ended
        # the missing tokens are those still without a code, in order
        missing = np.flatnonzero(codes < 0)
        return codes, missing, ended_at[missing]

    def _append(self, h, lengths, words, slots=None) -> np.ndarray:
        """Add tokens (not yet known, distinct) with their hashes; their
        codes.  ``slots``: the empty slot each one's look-up ended at."""
        base, k = self._n, h.size
        n = base + k
        self._reserve(n, words.shape[0])
        width = words.shape[0]
        self._len[base:n] = lengths
        self._words[:width, base:n] = words
        self._words[width:, base:n] = 0
        self._n = n
        if _spare(n) * n > self._table.size:
            # grown for the tokens expected (:meth:`reserve`): those to come,
            # as many of them new as in this look-up, at most 8 n in all
            want = n
            if self._expect > self._coded:
                want += int(self._share * (self._expect - self._coded))
                want = min(want, 8 * n)
            while _spare(want) * want > (1 << self._bits):
                self._bits += 1
            self._rebuild(n)
        else:
            if slots is None:
                self._insert(np.arange(base, n), self._home(h))
            else:
                self._insert(np.arange(base, n), slots, free=True)
        return np.arange(base, n, dtype=np.int32)

    def _rebuild(self, n: int) -> None:
        """A new table of ``1 << _bits`` slots holding the first ``n``
        entries, made in one pass in the order of their slots (not entry by
        entry in rounds of random writes: a table grown by doubling up to
        4 M tokens placed 4 M entries again): sorted by home slot (numpy's
        sort of one uint64 key: slot, then entry), each takes the first slot
        from its home past the one before it (``i + cummax(home - i)``), as
        linear probing would; those pushed past the last slot go in from the
        start as any insertion would.  The hashes are made again from the
        tokens' words (no array of them kept: 8 bytes a token)."""
        packed = self._len[:n] >= 0
        if packed.all():  # (no token too long to pack: no gather)
            entries = np.arange(n)
            h = _hash(self._words[:, :n], self._len[:n])
        else:
            entries = np.flatnonzero(packed)
            h = _hash(self._words[:, entries], self._len[entries])
        key = self._home(h).astype(np.uint64) << np.uint64(32)
        key |= entries.astype(np.uint64)
        key.sort()
        home = (key >> np.uint64(32)).astype(np.int64)
        entries = (key & np.uint64(0xFFFFFFFF)).astype(np.int32)
        step = np.arange(home.size, dtype=np.int64)
        at = home - step
        np.maximum.accumulate(at, out=at)
        at += step
        table = np.full(1 << self._bits, -1, dtype=np.int32)
        fits = at < table.size
        if fits.all():
            table[at] = entries
            self._table = table
            return
        table[at[fits]] = entries[fits]
        self._table = table
        self._insert(entries[~fits], home[~fits])

    def _home(self, h: np.ndarray) -> np.ndarray:
        """The slot where the look-up of each hash ``h`` starts."""
        return (h >> np.uint64(64 - self._bits)).astype(np.intp)

    def _insert(self, entries: np.ndarray, slots: np.ndarray, *, free: bool = False) -> None:
        """Put ``entries`` in the table, each in the first empty slot from
        its ``slots`` (their homes; ``free``: the empty slots a look-up of
        each ended at)."""
        mask = (1 << self._bits) - 1
        table = self._table
        # the slots a look-up just found empty are free but for the new
        # entries themselves (no need to read them again)
        known_free = free
        while entries.size:
            if known_free:
                free = np.arange(entries.size)
                known_free = False
            else:
                free = np.flatnonzero(table[slots] < 0)
            # every entry whose slot is free writes itself there; one of those
            # wanting a slot wins it (whichever write numpy made last)
            fs, fe = slots[free], entries[free]
            table[fs] = fe
            left = np.ones(entries.size, dtype=bool)
            left[free[table[fs] == fe]] = False
            if not left.any():
                return
            # the others' slots are taken now: on to the next
            entries, slots = entries[left], (slots[left] + 1) & mask
