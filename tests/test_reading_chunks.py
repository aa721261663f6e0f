"""Files are read a block at a time: the chunks of whole lines put back
together are the file (its BOM left out), their line numbers are the
editor's, and a large run is never held in memory whole."""

from __future__ import annotations

import random
import tracemalloc

import numpy as np
import pytest
from shrec_eval import Assessment
from shrec_eval.reading.formats.source import Source, open_source
from shrec_eval.reading.formats.tokens import chunks, line_chunks, source_chunks, tokenize
from shrec_eval.reading.formats.trec_run import read_trec_run

BOM = b"\xef\xbb\xbf"


def _check(pieces, data: bytes) -> None:
    assert b"".join(c for _, c in pieces) == data
    line = 1
    for i, (first, chunk) in enumerate(pieces):
        assert first == line
        assert chunk
        if i < len(pieces) - 1:
            assert chunk.endswith(b"\n")
        line += chunk.count(b"\n")


@pytest.mark.parametrize("seed", range(40))
def test_chunks_of_whole_lines_are_the_file(tmp_path, seed):
    rng = random.Random(seed)
    lines = [
        b"x" * rng.choice([0, 1, 5, 40, 300]) + rng.choice([b"", b"\r"])
        for _ in range(rng.randint(0, 60))
    ]
    body = b"\n".join(lines) + rng.choice([b"", b"\n"])
    bom = rng.choice([b"", BOM])
    p = tmp_path / "f.txt"
    p.write_bytes(bom + body)
    for size in (1, 2, 3, 7, 64, 1 << 20):
        _check(list(source_chunks(open_source(p), size)), body)
        _check(list(source_chunks(Source(str(p), "pipe", bom + body), size)), body)
        _check(list(chunks(body, size)), body)


def test_a_line_longer_than_a_block_is_carried_whole():
    blocks = [b"ab", b"cd", b"e\nf", b"g", b"h\n", b"ij"]
    assert list(line_chunks(iter(blocks))) == [(1, b"abcde\n"), (2, b"fgh\n"), (3, b"ij")]


def test_a_file_of_a_bom_only_has_no_chunk(tmp_path):
    p = tmp_path / "bom.txt"
    p.write_bytes(BOM)
    assert list(source_chunks(open_source(p), 2)) == []


def test_a_large_run_is_never_held_in_memory_whole(tmp_path):
    """A 30 MB run read in 64 KiB chunks: Python and numpy together never
    hold half the file's size (it was read whole before: its size and
    more); what is held is mostly the result, a few bytes per line."""
    n_q, n_items = 200, 3000
    items = [f"shapenet_model_{j:010d}" for j in range(n_items)]
    a = Assessment.from_judgments(
        {f"shrec2026_query_{i:06d}": {items[i]: 1} for i in range(n_q)}, items, queries=None
    )
    rng = np.random.default_rng(0)
    p = tmp_path / "big.trec"
    with open(p, "w") as fh:
        for i in range(n_q):
            for r, j in enumerate(rng.permutation(n_items)[:2000], 1):
                q, score = f"shrec2026_query_{i:06d}", f"{1 - r / 4096:.9f}"
                fh.write(f"{q} Q0 {items[j]} {r} {score} participant_method_run_1\n")
    size = p.stat().st_size
    assert size > 25e6
    tracemalloc.start()
    try:
        run = read_trec_run(p, a, chunk_size=1 << 16)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert run.flat.size == n_q * 2000
    assert peak < size / 2, (peak, size)


def _reference(data: bytes, first: int, comments: bool):
    """What tokenize must give, line by line with bytes.split."""
    counts, numbers, tokens = [], [], []
    for i, line in enumerate(data.split(b"\n")):
        fields = line.split()
        if not fields or (comments and fields[0].startswith(b"#")):
            continue
        counts.append(len(fields))
        numbers.append(first + i)
        tokens.extend(fields)
    return counts, numbers, tokens


@pytest.mark.parametrize("seed", range(200))
def test_tokenize_places_every_token_on_its_line(seed):
    """Chunks where every line has the same width (the quick check) and
    chunks where one does not (blank, comment, short or long lines,
    whitespace around, CRLF, no final newline) give the tokens bytes.split
    gives, on the right lines."""
    rng = random.Random(seed)
    width = rng.randint(1, 6)
    rows = []
    for _ in range(rng.randint(1, 30)):
        w = width if rng.random() < 0.9 else rng.randint(0, 8)
        fields = [
            rng.choice(["#c", "x", "12", "d7", "abc"]) if k == 0 and rng.random() < 0.1 else "t"
            for k in range(w)
        ]
        sep = rng.choice([" ", "\t", "  ", " \x0b"])
        rows.append(rng.choice(["", " ", "\t"]) + sep.join(fields) + rng.choice(["", " ", "\r"]))
    data = "\n".join(rows).encode() + rng.choice([b"", b"\n"])
    first = rng.randint(1, 1000)
    for comments in (False, True):
        lines = tokenize(data, first, comments=comments)
        counts, numbers, tokens = _reference(data, first, comments)
        assert lines.count.tolist() == counts
        assert lines.number.tolist() == numbers
        assert lines.tokens == tokens
        assert (lines.start == np.cumsum([0] + counts[:-1])).all() if counts else True


@pytest.mark.parametrize("seed", range(200))
def test_tokenize_of_checked_text_places_every_token_on_its_line(seed):
    """Text that passed check_text is split with one comparison a byte, and
    a chunk of W tokens a line told from the count of its line ends and the
    bytes next to each line's last token: the same tokens on the same lines
    as bytes.split gives, for layouts that look uniform and are not (blank
    lines at either end, a blank line in a chunk of even widths, spaces or
    CR before a line end, no final newline)."""
    rng = random.Random(seed)
    width = rng.randint(1, 5)
    rows = []
    for _ in range(rng.randint(1, 40)):
        w = width if rng.random() < 0.93 else rng.choice([0, 0, width * 2, width + 1])
        sep = rng.choice([" ", "\t", "  ", " \x0b", "\x0c"])
        fields = ["#c" if k == 0 and rng.random() < 0.05 else f"t{k}" for k in range(w)]
        end = rng.choice(["", "", " ", "\r", " \r", "\t"])
        rows.append(rng.choice(["", "", " "]) + sep.join(fields) + end)
    data = rng.choice([b"", b"\n", b" \n"]) + "\n".join(rows).encode() + rng.choice([b"", b"\n"])
    first = rng.randint(1, 1000)
    for comments in (False, True):
        lines = tokenize(data, first, comments=comments, text=True)
        counts, numbers, tokens = _reference(data, first, comments)
        assert lines.count.tolist() == counts
        assert lines.number.tolist() == numbers
        assert lines.tokens == tokens
        assert (lines.start == np.cumsum([0] + counts[:-1])).all() if counts else True
