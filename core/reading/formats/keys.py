"""Ids of many tokens at once: every distinct token of a field gets a code,
in order of first occurrence across all the chunks of a file, without a
Python object per token.

A token is read packed into words (:mod:`.packed`).  A :class:`TokenCodes`
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

import numpy as np

from .packed import KEY_BYTES, Packed, Snapshot, padded, token_hash, token_words
from .token_list import TokenList


def spare(n: int) -> int:
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


class TokenCodes:
    """Codes of the distinct tokens of one field across a file's chunks, in
    order of first occurrence; :attr:`raw` lists the tokens (bytes) in code
    order.  Only numbers are held per token (its words, which are its bytes,
    and its length, in arrays grown by doubling, and its slot in the hash
    table; the few longer than :data:`KEY_BYTES` kept whole): no Python
    object, and no hash, per id (made again from the words when the table
    grows)."""

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
        #: the share of new ones in the last chunk (of its size): how large
        #: the table grows when it must (:meth:`_append`), whether the next
        #: chunk is probed (:meth:`probe_snapshot`)
        self._expect = 0
        self._coded = 0
        self._share, self._chunk = 1.0, 0

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
                out[packed] = self._lookup(ln, words, token_hash(words, ln))[0]
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
            out[short] = self._lookup(ln, words, token_hash(words, ln))[0]
        for i in np.flatnonzero(lengths > KEY_BYTES).tolist():
            out[i] = self._long.get(toks[i], -1)
        return out

    def snapshot(self) -> Snapshot:
        """The table as it is now, for :meth:`Packed.probe`."""
        return Snapshot(self._bits, self._table, self._len, self._words, self._n)

    def probe_snapshot(self) -> Snapshot | None:
        """:meth:`snapshot` for a chunk to come, or None when under a tenth
        of the last chunk's tokens were in the table: ids new as a
        rule (a qrels judging each document once), which a worker's probe
        would look for in vain before they are looked up again here."""
        return self.snapshot() if self._share < 0.9 else None

    def codes(self, packed: Packed) -> np.ndarray:
        """The code of every token of ``packed`` (new tokens added)."""
        out = np.empty(packed.size, dtype=np.int32)
        if not packed.size:
            return out
        self._coded += packed.size
        # the share of the chunk's tokens that are new: none unless looked up
        # (a chunk its worker's probe found whole), else what its look-up
        # missed, over the whole chunk (not the rest the probe left)
        self._share, self._chunk = 0.0, packed.size
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
        long tokens were coded after the short ones; tokens of one full hash
        in rounds, :meth:`_codes`)."""
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
        while spare(n) * n > (1 << bits):
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
        self._share = missing.size / max(self._chunk, h.size, 1)
        base, rounds = self._n, 0
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
            # the empty slots where the probes of those still missing ended
            # now (those of the look-up before may hold a token added since)
            found, left, empty = self._lookup(lengths[missing], words[:, missing], hm)
            codes[missing] = found
            missing = missing[left]
            rounds += 1
        if rounds > 1 or (rounds and missing.size):
            # tokens of the same hash (a full 64-bit collision) added a round
            # later than others met after them: coded again in order
            self._first_occurrence_order(codes, base)
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
        if spare(n) * n > self._table.size:
            # grown for the tokens expected (:meth:`reserve`): those to come,
            # as many of them new as in this look-up, at most 8 n in all
            want = n
            if self._expect > self._coded:
                want += int(self._share * (self._expect - self._coded))
                want = min(want, 8 * n)
            while spare(want) * want > (1 << self._bits):
                self._bits += 1
            self._rebuild(n)
        else:
            if slots is None:
                self._insert(np.arange(base, n), self._home(h))
            else:
                self._insert(np.arange(base, n), slots, known_free=True)
        return np.arange(base, n, dtype=np.int32)

    def _rebuild(self, n: int, hashes: np.ndarray | None = None) -> None:
        """A new table of ``1 << _bits`` slots holding the first ``n``
        entries, made in one pass in the order of their slots (not entry by
        entry in rounds of random writes: a table grown by doubling up to
        4 M tokens placed 4 M entries again): sorted by home slot (numpy's
        sort of one uint64 key: slot, then entry), each takes the first slot
        from its home past the one before it (``i + cummax(home - i)``), as
        linear probing would; those pushed past the last slot go in from the
        start as any insertion would.  The hashes are made again from the
        tokens' words (no array of them kept: 8 bytes a token), unless
        given (``hashes``: those of the ``n`` entries)."""
        packed = self._len[:n] >= 0
        every = bool(packed.all())  # (no token too long to pack: no gather)
        chosen = None if every else np.flatnonzero(packed)
        if every:
            h = token_hash(self._words[:, :n], self._len[:n]) if hashes is None else hashes
        else:
            h = token_hash(self._words[:, chosen], self._len[chosen])
        del hashes  # (arrays of 8 bytes a token: each let go once used)
        key = h >> np.uint64(64 - self._bits)  # the home slot
        del h
        key <<= np.uint64(32)
        key_with_entries(key, chosen)
        key.sort()
        place = (key >> np.uint64(32)).view(np.int64)  # the home, then the slot taken
        key &= np.uint64(0xFFFFFFFF)
        entries = key.astype(np.int32)
        del key
        self._place(place, entries)

    def _place(self, place: np.ndarray, entries: np.ndarray) -> None:
        """The table of ``entries`` in the order of their homes ``place``
        (int64, ascending; overwritten by the slot each takes), as
        :meth:`_rebuild` makes it (:class:`.fresh_codes.FreshCodes` too)."""
        for_each = np.arange(place.size, dtype=np.int64)
        place -= for_each
        np.maximum.accumulate(place, out=place)
        place += for_each
        del for_each
        table = np.full(1 << self._bits, -1, dtype=np.int32)
        fits = place < table.size
        if fits.all():
            table[place] = entries
            self._table = table
            return
        table[place[fits]] = entries[fits]
        self._table = table
        left = entries[~fits]
        self._insert(left, self._home(token_hash(self._words[:, left], self._len[left])))

    def _home(self, h: np.ndarray) -> np.ndarray:
        """The slot where the look-up of each hash ``h`` starts."""
        return (h >> np.uint64(64 - self._bits)).astype(np.intp)

    def _insert(self, entries: np.ndarray, slots: np.ndarray, *, known_free: bool = False) -> None:
        """Put ``entries`` in the table, each in the first empty slot from
        its ``slots`` (their homes; ``known_free``: the empty slots a look-up
        of each ended at, free but for the new entries themselves: no need
        to read them again)."""
        mask = (1 << self._bits) - 1
        table = self._table
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


def key_with_entries(key: np.ndarray, chosen: np.ndarray | None) -> None:
    """``key |= entry`` of each (its position, or ``chosen``'s), a block at
    a time: a table's sort keys (a home slot or a hash's top bits in the
    high 32 bits) made to carry the entry each sorts (the low 32 bits)."""
    step = 1 << 20
    for at in range(0, key.size, step):
        block = key[at : at + step]
        if chosen is None:
            block |= np.arange(at, at + block.size, dtype=np.uint64)
        else:
            block |= chosen[at : at + block.size].astype(np.uint64)
