"""Ids coded across chunks (core/reading/formats/keys.py) and the qrels built from
them, against plain Python on the same tokens."""

from __future__ import annotations

import random

import numpy as np
import pytest
from shrec_eval import Assessment
from shrec_eval.reading.formats.ids import normalize_id
from shrec_eval.reading.formats.keys import TokenCodes
from shrec_eval.reading.formats.packed import Packed, padded
from shrec_eval.reading.formats.trec import read_qrels

ALPHABET = [
    b"d1",
    b"d2",
    b"x" * 40,
    b"y" * 33,
    b"a\0b",
    b"a\0",
    b"a",
    b"doc-12345678",
    b"\xe9",
    b"q" * 8,
    b"q" * 9,
    b"q" * 16,
    b"q" * 17,
    b"q" * 32,
]


def _code_in_chunks(
    ids: list[bytes], rng: random.Random, lag: int | None = None
) -> tuple[TokenCodes, list[int]]:
    """Code ``ids`` cut into random chunks; with ``lag``, each chunk is first
    probed (as a worker thread does) against the table as it was ``lag``
    chunks earlier."""
    table, codes, pos = TokenCodes(), [], 0
    snapshots = []
    while pos < len(ids):
        part = ids[pos : pos + rng.randint(1, 60)]
        pos += len(part)
        data = b"\n".join(part) + b"\n"
        starts = np.cumsum([0] + [len(t) + 1 for t in part[:-1]])
        ends = starts + np.array([len(t) for t in part])
        buf = np.frombuffer(data, dtype=np.uint8)
        packed = Packed(data, padded(buf), starts, ends)
        snapshots.append(table.snapshot())
        if lag is not None:
            packed.probe(snapshots[max(len(snapshots) - 1 - lag, 0)])
        codes += table.codes(packed).tolist()
    return table, codes


@pytest.mark.parametrize("seed", range(6))
def test_tokens_coded_across_chunks_in_order_of_first_occurrence(seed):
    """Short, 8/9/16/17/32-byte, longer-than-packed and NUL-holding ids, in
    runs and not, cut into chunks anywhere: each distinct token one code, in
    order of first occurrence (as a dict would give them)."""
    rng = random.Random(seed)
    for _ in range(60):
        ids = [
            rng.choice(ALPHABET) + (str(rng.randint(0, 30)).encode() if rng.random() < 0.5 else b"")
            for _ in range(rng.randint(1, 200))
        ]
        if rng.random() < 0.5:  # runs of one id, as query ids come
            ids = [i for i in ids for _ in range(rng.randint(1, 9))]
        table, codes = _code_in_chunks(ids, rng)
        assert table.raw == list(dict.fromkeys(ids))
        assert [table.raw[c] for c in codes] == ids


@pytest.mark.parametrize("lag", [0, 1, 3])
def test_tokens_probed_against_an_older_table(lag):
    """Chunks probed in worker threads against the table as it was when they
    were handed out (tokens added since, a table grown since): the same codes."""
    rng = random.Random(lag)
    for _ in range(60):
        ids = [
            rng.choice([t for t in ALPHABET if len(t) < 28]) + str(rng.randint(0, 400)).encode()
            for _ in range(rng.randint(1, 400))
        ]
        table, codes = _code_in_chunks(ids, rng, lag)
        assert table.raw == list(dict.fromkeys(ids))
        assert [table.raw[c] for c in codes] == ids


def test_many_distinct_tokens_grow_the_table():
    ids = [f"doc{i * 7919 % 100_003}".encode() for i in range(30_000)]
    table, codes = _code_in_chunks(ids + ids[::-1], random.Random(1), lag=2)
    assert len(table) == 30_000
    assert [table.raw[c] for c in codes] == ids + ids[::-1]


@pytest.mark.parametrize("seed", range(4))
def test_qrels_equal_the_assessment_built_from_a_dict(tmp_path, seed):
    """Interleaved queries, grades 0 and negative, repeated identical
    judgments, m-prefixed and zero-padded ids (normalised): the arrays the
    reader builds equal Assessment.from_judgments of the same judgments."""
    rng = random.Random(seed)
    lines, judgments = [], {}
    for _ in range(400):
        q = f"q{rng.randint(0, 12)}"
        d = rng.choice(["d", "m", "00", ""]) + str(rng.randint(0, 60))
        if not d[0].isdigit() and d[0] != "m":
            d = "d" + d.lstrip("d")
        key = normalize_id(d)
        have = judgments.setdefault(q, {})
        g = have[key] if key in have else rng.choice([-1, 0, 0, 1, 2, 3])
        have.setdefault(key, max(g, 0))
        lines.append(f"{q} 0 {d} {g}\n")
    path = tmp_path / "r.qrels"
    path.write_text("".join(lines))
    got = read_qrels(path, chunk_size=rng.randint(50, 400))
    want = Assessment.from_judgments(judgments, collection_size=len(got.item_ids))
    assert got.query_ids == want.query_ids
    assert got.item_ids == want.item_ids
    for name in ("indptr", "judged_items", "judged_grades", "query_items"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert got.top_grade == want.top_grade


def test_pieces_cut_from_one_buffer_are_the_slices():
    from shrec_eval.reading.formats.keys import pieces

    rng = np.random.default_rng(11)
    for _ in range(200):
        data = rng.integers(0, 256, int(rng.integers(1, 3000))).astype(np.uint8).tobytes()
        n = int(rng.integers(0, 400))  # below and above the size sliced one at a time
        a = rng.integers(0, len(data), n)
        b = np.minimum(a + rng.integers(0, 12, n), len(data))
        # (random bytes: newlines inside pieces too, which are then sliced)
        assert pieces(data, a, b) == [data[x:y] for x, y in zip(a.tolist(), b.tolist())]
    ids = b"".join(b"g%d\n" % i for i in range(1000))
    ends = np.array([i for i, c in enumerate(ids) if c == 10])
    starts = np.concatenate(([0], ends[:-1] + 1))
    assert pieces(ids, starts, ends) == [b"g%d" % i for i in range(1000)]


def _table(tokens: list[bytes], rng: random.Random) -> TokenCodes:
    table, _ = _code_in_chunks(tokens, rng, lag=1)
    return table


#: ids as files hold them: ASCII, UTF-8, a Latin-1 byte (kept as a
#: surrogate), longer than a packed key, a newline-free 8/16/32-byte edge
ID_BYTES = [b"d1", b"doc-00012345", "caf\u00e9".encode(), b"caf\xe9", b"x" * 40, b"q" * 8]
ID_BYTES += [b"q" * 16, b"q" * 32, b"q" * 33]


@pytest.mark.parametrize("ordered", [False, True])
def test_token_ids_are_the_tuple_and_their_index_the_dict(ordered):
    """A qrels' collection read from its table (TokenIds, TokenIndex) is the
    tuple of its ids and the dict of their positions, as a reader made them
    before: indexing, slices, iteration, equality, look-ups one at a time
    and many at once (ids of other spellings, not in it, not ids at all)."""
    from shrec_eval.reading.formats.token_ids import TokenIds

    rng = random.Random(5)
    raw = list(dict.fromkeys(t + str(rng.randint(0, 500)).encode() for t in ID_BYTES * 60))
    raw += ID_BYTES
    table = _table(raw, rng)
    order = np.array(rng.sample(range(len(raw)), len(raw))) if ordered else None
    ids = TokenIds(table, order)
    want = tuple(
        raw[c].decode("utf-8", "surrogateescape") for c in (order if ordered else range(len(raw)))
    )
    assert len(ids) == len(want) and ids == want and want == ids and list(ids) == list(want)
    assert ids[0] == want[0] and ids[-1] == want[-1] and ids[3:40:7] == list(want[3:40:7])
    assert ids != want[:-1] and ids != (*want[:-1], "other")
    with pytest.raises(IndexError):
        ids[len(want)]
    index, by_dict = ids.index(), {t: i for i, t in enumerate(want)}
    asked = list(want) + ["caf\udce9 ", "D1", "", "x" * 41, "\ud800", "q" * 31]
    assert [index.get(t) for t in asked] == [by_dict.get(t) for t in asked]
    assert index.codes(asked, -2).tolist() == [by_dict.get(t, -2) for t in asked]
    assert len(index) == len(want) and want[7] in index and "zz" not in index
    assert index[want[9]] == 9 and index.get(3) is None
    with pytest.raises(KeyError):
        index["zz"]


def test_tokens_found_without_being_added():
    """``find`` gives the code of every token of the table and -1 for the
    others (short, long, empty), and the table is left as it was."""
    rng = random.Random(8)
    raw = list(dict.fromkeys(rng.choice(ID_BYTES) + str(i).encode() for i in range(3000)))
    table = _table(raw, rng)
    asked = raw[::-1] + [b"", b"zz", b"x" * 50, b"d1"]
    got = table.find(asked).tolist()
    assert got == [len(raw) - 1 - i for i in range(len(raw))] + [-1, -1, -1, -1]
    assert len(table) == len(raw) and table.raw == raw


def test_a_table_reserved_ahead_codes_as_one_grown_by_chunks():
    """Room made for the tokens expected (a reader that knows the file's
    size) changes no code, and tokens past it still go in."""
    rng = random.Random(9)
    ids = [f"d{rng.randint(0, 20_000)}".encode() for _ in range(30_000)]
    grown, codes = _code_in_chunks(ids, random.Random(1), lag=2)
    reserved = TokenCodes()
    reserved.reserve(5_000)
    got, pos = [], 0
    while pos < len(ids):
        part = ids[pos : pos + 700]
        pos += len(part)
        data = b"\n".join(part) + b"\n"
        starts = np.cumsum([0] + [len(t) + 1 for t in part[:-1]])
        ends = starts + np.array([len(t) for t in part])
        got += reserved.codes(
            Packed(data, padded(np.frombuffer(data, np.uint8)), starts, ends)
        ).tolist()
    assert got == codes and reserved.raw == grown.raw


def test_qrels_of_many_distinct_documents_keep_no_string_per_document(tmp_path):
    """A qrels judging each document once (the collection is its judged
    documents) keeps its collection in the reader's table: what stays in
    memory per document is its packed bytes and a slot, not a str, a tuple
    entry and a dict entry (160 bytes a document of 10-byte ids before)."""
    import gc
    import tracemalloc

    n = 60_000
    path = tmp_path / "many.qrels"
    path.write_text("".join(f"q{i // 50} 0 D{i * 7919 % 10**9:09d} {i % 3}\n" for i in range(n)))
    gc.collect()
    tracemalloc.start()
    try:
        a = read_qrels(path, normalize_ids=False)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert a.n_items == n and a.item_ids[5] == f"D{5 * 7919:09d}"
    assert a.item_index(f"D{77 * 7919:09d}") == 77
    assert kept / n < 110, kept / n


def test_token_ids_sent_elsewhere_are_still_the_same_ids():
    """An assessment's collection pickled (a cluster's worker gets a copy)
    equals the original, compared as the tables' arrays; a copy of other
    ids or another order does not."""
    import pickle

    from shrec_eval.reading.formats.token_ids import TokenIds

    rng = random.Random(2)
    raw = list(dict.fromkeys(rng.choice(ID_BYTES) + str(i).encode() for i in range(500)))
    table = _table(raw, rng)
    order = np.array(rng.sample(range(len(raw)), len(raw)))
    for ids in (TokenIds(table), TokenIds(table, order)):
        copy = pickle.loads(pickle.dumps(ids))
        assert copy == ids and copy is not ids and list(copy) == list(ids)
        assert copy.index().get(ids[17]) == 17
    assert TokenIds(table) != TokenIds(table, order)
    other = _table(raw[:-1] + [b"zz"], random.Random(3))
    assert (
        TokenIds(other) != TokenIds(table)
        and list(TokenIds(other))[:-1] == list(TokenIds(table))[:-1]
    )


def _packed(part: list[bytes]) -> Packed:
    data = b"\n".join(part) + b"\n"
    starts = np.cumsum([0] + [len(t) + 1 for t in part[:-1]])
    ends = starts + np.array([len(t) for t in part])
    return Packed(data, padded(np.frombuffer(data, np.uint8)), starts, ends, runs=False)


@pytest.mark.parametrize("new_share", [1.0, 0.5])
def test_a_table_told_how_many_tokens_come_grows_at_once(new_share):
    """A reader that reserves the lines to come (the qrels reader, from the
    file's size) has its hash table grown toward the new tokens they hold,
    not doubled again and again (every growth placed every token again: 5
    or 6 tables after the first chunk here), with the same codes as a table grown
    chunk by chunk; :meth:`TokenCodes.trim` then leaves no more room than
    the tokens need."""
    rng = random.Random(4)
    n_lines, chunk = 200_000, 5_000
    pool = [f"D{i:09d}".encode() for i in range(int(n_lines * new_share))]
    ids = pool + [rng.choice(pool) for _ in range(n_lines - len(pool))]
    rng.shuffle(ids)
    told, plain = TokenCodes(), TokenCodes()
    sizes, got, want = [], [], []
    for at in range(0, n_lines, chunk):
        part = ids[at : at + chunk]
        got += told.codes(_packed(part)).tolist()
        want += plain.codes(_packed(part)).tolist()
        if not at:
            told.reserve(n_lines + 1024)
        sizes.append(told._table.size)
    assert got == want and told.raw == plain.raw == list(dict.fromkeys(ids))
    assert len(set(sizes)) <= 3, sizes
    told.trim()
    assert told._table.size == plain._table.size
    assert (told.find(told) == np.arange(len(told))).all()


@pytest.mark.parametrize("n", [1, 700, 1000, 1023, 5000])
def test_a_table_made_anew_finds_every_token_even_nearly_full(n):
    """The table made anew in one sorted pass (a growth, a trim) is a table
    linear probing reads: every token found under its code, each slot
    holding one token, from a sixteenth full to one empty slot in 1,024
    (the last clusters run past the end and go on from the start)."""
    table = TokenCodes()
    raw = [f"t{i * 7919 % 100_003}".encode() for i in range(n)]
    table.codes(_packed(raw))
    for bits in sorted({max(n - 1, 1).bit_length() + k for k in (0, 1, 4)} | {table._bits}):
        if (1 << bits) <= n:
            continue
        table._bits = bits
        table._rebuild(n)
        held = table._table[table._table >= 0]
        assert np.array_equal(np.sort(held), np.arange(n))
        assert (table.find(raw) == np.arange(n)).all()
        assert (table.find([t + b"x" for t in raw]) == -1).all()


def test_chunks_of_new_tokens_are_not_probed_ahead():
    """A worker's probe of the ids known so far is handed out only while
    the chunks find ids in the table: none for ids new as a rule (a qrels
    judging each document once, where every probe found nothing)."""
    table = TokenCodes()
    assert table.probe_snapshot() is None  # nothing to find yet
    table.codes(_packed([f"d{i}".encode() for i in range(100)]))
    assert table.probe_snapshot() is None  # every token of the chunk new
    table.codes(_packed([f"d{i}".encode() for i in range(50, 150)]))
    snap = table.probe_snapshot()  # half of them known: worth probing
    assert snap is not None and snap.size == 150
    # a chunk its probe found but for a few new ids: still worth probing the
    # next (the share is of the whole chunk, not of the few the probe left)
    part = _packed([f"d{i}".encode() for i in range(5, 175)])
    part.probe(snap)  # (a probe looks at each id's first slot only)
    assert 140 <= (part.found >= 0).sum() <= 145
    table.codes(part)
    assert table.probe_snapshot() is not None
    part = _packed([f"d{i}".encode() for i in range(5, 105)])
    part.probe(table.probe_snapshot())
    table.codes(part)  # every id found by the probe: none new
    assert table.probe_snapshot() is not None


def test_a_table_keeps_its_tokens_words_lengths_and_slots_only():
    """What a table holds per token is its words (its bytes), its length and
    its slots: no hash (8 bytes a token, 32 MB for the 4 M docnos of a large
    qrels, held as long as its assessment); a growth makes the hashes again
    from the words."""
    import gc
    import tracemalloc

    raw = [f"D{i * 7919 % 10**9:011d}".encode() for i in range(100_000)]
    gc.collect()
    tracemalloc.start()
    try:
        table = TokenCodes()
        for at in range(0, len(raw), 5_000):
            table.codes(_packed(raw[at : at + 5_000]))
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    held = table._words.nbytes + table._len.nbytes + table._table.nbytes
    assert held <= kept < held + 20_000, (kept, held)
    assert (table.find(raw) == np.arange(len(raw))).all()


def _weak_hash(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A hash of at most 16 values (two bits of the first byte and the
    length): tokens of equal full 64-bit hashes all the time."""
    h = (words[0] & np.uint64(3)) ^ lengths.astype(np.uint64)
    return (h * np.uint64(0x9E3779B97F4A7C15)) & np.uint64(0xF000000000000000)


@pytest.fixture
def weak_hash(monkeypatch):
    """The tables' hash made weak (the packing's and the look-up's alike)."""
    from shrec_eval.reading.formats import keys, packed

    monkeypatch.setattr(packed, "token_hash", _weak_hash)
    monkeypatch.setattr(keys, "token_hash", _weak_hash)


def test_tokens_of_one_hash_coded_in_order_of_first_occurrence(weak_hash):
    """Tokens whose full hashes are equal ("a" and "e" here; "bb" has
    another) are told apart by their bytes and coded in order of first
    occurrence, one chunk at a time, in runs (looked up once per run) or
    not, and probed ahead by a worker."""
    table = TokenCodes()
    assert table.codes(_packed([b"a", b"e", b"b", b"a"])).tolist() == [0, 1, 2, 0]
    assert table.raw == [b"a", b"e", b"b"]
    table = TokenCodes()
    assert table.codes(_packed([b"a", b"e", b"bb", b"i", b"e"])).tolist() == [0, 1, 2, 3, 1]
    snap = table.snapshot()
    part = _packed([b"e", b"m", b"cc", b"q", b"bb", b"m"])
    part.probe(snap)
    assert table.codes(part).tolist() == [1, 4, 5, 6, 2, 4]
    assert table.raw == [b"a", b"e", b"bb", b"i", b"m", b"cc", b"q"]
    ids = [t for t in [b"x1", b"a", b"e", b"bb", b"a", b"i"] for _ in range(5)]
    data = b"\n".join(ids) + b"\n"
    starts = np.cumsum([0] + [len(t) + 1 for t in ids[:-1]])
    ends = starts + np.array([len(t) for t in ids])
    runs = Packed(data, padded(np.frombuffer(data, np.uint8)), starts, ends)
    assert runs.heads is not None
    table = TokenCodes()
    assert table.codes(runs).tolist() == [c for c in [0, 1, 2, 3, 1, 4] for _ in range(5)]


def test_tokens_of_one_hash_keep_one_code_each(weak_hash):
    """A token added in a later round of the look-up (its hash met one of
    a token new in the same chunk) goes into an empty slot, not over a
    token already there: found again in the next chunk under its code."""
    table = TokenCodes()
    assert table.codes(_packed([b"zz"])).tolist() == [0]
    assert table.codes(_packed([b"a", b"a", b"e"])).tolist() == [1, 1, 2]
    assert table.codes(_packed([b"e", b"a", b"zz"])).tolist() == [2, 1, 0]
    assert len(table) == 3 and table.raw == [b"zz", b"a", b"e"]
    assert table.find([b"a", b"e", b"zz", b"i"]).tolist() == [1, 2, 0, -1]


@pytest.mark.parametrize("seed", range(8))
def test_tokens_of_one_hash_equal_a_dict_over_chunks_probes_reserve_and_trim(weak_hash, seed):
    """Against a dict, with most tokens sharing their full hash with others:
    chunks in runs or not, probed ahead against tables as they were up to
    three chunks earlier, room reserved after the first chunk, the table
    trimmed between chunks: the same codes, in order of first occurrence,
    and each distinct token one code (the table as long as the dict)."""
    rng = random.Random(seed)
    vocab = list(
        dict.fromkeys(
            rng.choice(ALPHABET[:2] + ALPHABET[4:]) + str(rng.randint(0, 99)).encode()
            for _ in range(rng.choice([5, 40, 120]))
        )
    )
    table, ref, pending = TokenCodes(), {}, []
    lag, probe = rng.randint(0, 3), rng.random() < 0.7
    for i in range(rng.randint(4, 10)):
        part = [rng.choice(vocab) for _ in range(rng.choice([1, 2, 10, 60]))]
        if not probe and rng.random() < 0.5:  # runs of one token
            part = [t for t in part for _ in range(rng.randint(1, 9))]
        data = b"\n".join(part) + b"\n"
        starts = np.cumsum([0] + [len(t) + 1 for t in part[:-1]])
        ends = starts + np.array([len(t) for t in part])
        packed = Packed(data, padded(np.frombuffer(data, np.uint8)), starts, ends, runs=not probe)
        pending.append((part, packed, table.snapshot() if probe else None))
        while len(pending) > lag:
            part, packed, snap = pending.pop(0)
            if snap is not None:
                packed.probe(snap)
            want = [ref.setdefault(t, len(ref)) for t in part]
            assert table.codes(packed).tolist() == want
        if not i:
            table.reserve(rng.choice([10, 1000, 100_000]))
        if rng.random() < 0.3:
            table.trim()
    for part, packed, snap in pending:
        if snap is not None:
            packed.probe(snap)
        assert table.codes(packed).tolist() == [ref.setdefault(t, len(ref)) for t in part]
    table.trim()
    assert len(table) == len(ref) and table.raw == list(ref)
    assert table.find(vocab + [b"not-there"]).tolist() == [ref.get(t, -1) for t in vocab] + [-1]


@pytest.mark.parametrize("n", [700, 1023])
def test_a_table_made_anew_with_tokens_too_long_to_pack(n):
    """Tokens too long to pack (looked up by their bytes) stay out of the
    table made anew; the others are placed from their hashes, nearly full
    (the last clusters run past the end) and not."""
    table = TokenCodes()
    raw = [(b"L" * 40 if i % 9 == 4 else b"t") + str(i * 7919 % 100_003).encode() for i in range(n)]
    table.codes(_packed(raw))
    short = np.array([len(t) <= 32 for t in raw])
    for bits in (int(short.sum()).bit_length(), n.bit_length() + 2):
        table._bits = bits
        table._rebuild(n)
        held = table._table[table._table >= 0]
        assert np.array_equal(np.sort(held), np.flatnonzero(short))
        assert (table.find(raw) == np.arange(n)).all()


@pytest.mark.parametrize(
    "lengths",
    [[12] * 9, [8] * 5, [9] * 5, [16, 16, 16], [17] * 4, [32] * 3, [1, 12, 7, 8, 9, 16, 17, 32]],
    ids=["all-12", "all-8", "all-9", "all-16", "all-17", "all-32", "mixed"],
)
def test_token_words_are_each_tokens_bytes_little_endian_zero_past_its_end(lengths):
    """The words of a chunk's tokens (what the tables compare and hash):
    each token's bytes packed little-endian, zero past its end, whether the
    tokens are all as long (one mask, or none where each fills a word) or
    not; the bytes after a token (the next one's) never leak in."""
    from shrec_eval.reading.formats.packed import token_words

    rng = random.Random(len(lengths) * 100 + lengths[0])
    toks = [bytes(rng.randrange(1, 256) for _ in range(n)) for n in lengths]
    data = b"".join(toks)  # no separator: every byte past a token is another's
    ends = np.cumsum([len(t) for t in toks])
    starts = ends - np.array(lengths)
    width = (max(lengths) + 7) // 8
    words = token_words(padded(np.frombuffer(data, np.uint8)), starts, ends - starts, width)
    want = [
        [int.from_bytes(t.ljust(8 * width, b"\0")[8 * w : 8 * w + 8], "little") for t in toks]
        for w in range(width)
    ]
    assert words.dtype == np.uint64 and words.tolist() == want
