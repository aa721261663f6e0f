"""Ids coded across chunks (core/reading/formats/keys.py) and the qrels built from
them, against plain Python on the same tokens."""

from __future__ import annotations

import random

import numpy as np
import pytest
from shrec_eval import Assessment
from shrec_eval.reading.formats.ids import normalize_id
from shrec_eval.reading.formats.keys import Packed, TokenCodes, padded
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
