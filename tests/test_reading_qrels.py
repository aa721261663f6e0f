"""qrels read against a collection list: the collection's index is made
once and handed to the assessment, whose copies keep it only while their
ids are the same."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from shrec_eval.errors import FormatError
from shrec_eval.reading.readers import load_assessment


def _contest(tmp_path, docs=("d1", "d2", "d3")):
    qrels = tmp_path / "x.qrels"
    qrels.write_text("q1 0 d2 1\nq1 0 d3 0\nq2 0 d1 2\n")
    coll = tmp_path / "ids.txt"
    coll.write_text("".join(d + "\n" for d in docs))
    return qrels, coll


def test_the_collection_order_and_index_come_from_the_list(tmp_path):
    qrels, coll = _contest(tmp_path, ("d3", "d1", "d2", "d9"))
    a = load_assessment(qrels, collection=coll)
    assert a.item_ids == ("d3", "d1", "d2", "d9")
    assert [a.item_index(i) for i in ("d3", "d1", "d2", "d9", "dx")] == [0, 1, 2, 3, None]
    assert a.query_index("q2") == 1


def test_a_copy_with_other_ids_indexes_them_and_one_with_the_same_keeps_its_index(tmp_path):
    qrels, coll = _contest(tmp_path)
    a = load_assessment(qrels, collection=coll)
    same = replace(a, notes=())
    assert same._item_index is a._item_index
    other = replace(a, item_ids=("e1", "e2", "e3"), query_ids=("p1", "p2"))
    assert other.item_index("e3") == 2 and other.item_index("d3") is None
    assert other.query_index("p2") == 1 and other.query_index("q2") is None


def test_judged_documents_missing_from_the_list_are_named(tmp_path):
    qrels, coll = _contest(tmp_path, ("d2",))
    with pytest.raises(
        FormatError, match=r"2 judged documents are not in the collection list, e\.g\. d3, d1"
    ):
        load_assessment(qrels, collection=coll)


def _as_dict_assessment(lines: list[str], normalize: bool):
    """The assessment of qrels lines built from a dict, as the readers must
    give it (first grade of a pair kept, negative grades not relevant)."""
    from shrec_eval import Assessment
    from shrec_eval.reading.formats.ids import normalize_id

    judgments: dict[str, dict[str, int]] = {}
    for line in lines:
        q, _, d, g = line.split()
        q, d = (normalize_id(q), normalize_id(d)) if normalize else (q, d)
        judgments.setdefault(q, {}).setdefault(d, max(int(g), 0))
    return Assessment.from_judgments(judgments, collection_size=None)


def _same_arrays(got, want) -> None:
    assert got.query_ids == want.query_ids and got.item_ids == want.item_ids
    for name in ("indptr", "judged_items", "judged_grades"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


def test_more_lines_than_the_first_chunk_promised(tmp_path):
    """A first chunk of long lines promises few lines; the many short ones
    after it still go in, in order (the columns grow past what was
    reserved)."""
    from shrec_eval.reading.formats.trec import read_qrels

    lines = [f"q{i % 3} 0 {'L' * 300}{i} {i % 3}" for i in range(12)]
    lines += [f"q{3 + i // 40} 0 d{i * 37 % 9001} {i % 4 - 1}" for i in range(30_000)]
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    got = read_qrels(path, chunk_size=4096, normalize_ids=False)
    _same_arrays(got, _as_dict_assessment(lines, False))


@pytest.mark.parametrize("late", ["m7", "007", "Model_7"])
def test_an_id_normalised_after_many_chunks_joins_its_other_spelling(tmp_path, late):
    """Ids kept in the table while none changes; one changed by the
    normaliser several chunks in (the same document as an earlier one) is
    that document, and the collection is its ids as strings from there."""
    from shrec_eval.reading.formats.trec import read_qrels

    lines = [f"q{i // 25} 0 d{i} {i % 3}" for i in range(2000)]
    lines[3] = "q0 0 7 2"
    lines += [f"q5 0 {late} 2", "q90 0 7 1", "q90 0 d3 1"]
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    got = read_qrels(path, chunk_size=2000)
    _same_arrays(got, _as_dict_assessment(lines, True))
    assert got.item_index("7") == 3 and got.item_index(late) is None
    note = next(w for w in got.notes if w.code == "ids_normalised")
    assert note.count == 1 and note.examples == (f"{late} -> 7",)


def test_a_pair_judged_twice_names_its_lines_across_chunks(tmp_path):
    """Line numbers kept per chunk (a chunk of consecutive lines keeps its
    first one): the clash names the editor's lines, comment and blank lines
    counted, whatever the chunks."""
    from shrec_eval.reading.formats.trec import read_qrels

    lines = []
    for i in range(3000):
        lines.append(f"q{i // 30} 0 d{i} 1")
        if i % 97 == 5:
            lines.append("# a comment" if i % 2 else "")
    lines.insert(2500, "q3 0 d95 2")  # d95 is judged 1 for q3 on an earlier line
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    first = lines.index("q3 0 d95 1") + 1
    for chunk in (1 << 20, 999, 64):
        with pytest.raises(FormatError) as err:
            read_qrels(path, chunk_size=chunk)
        assert err.value.line == 2501
        assert f"(1 on line {first}, 2 here)" in str(err.value)


def test_a_run_finds_its_documents_in_the_collection_the_table_holds(tmp_path):
    """A TREC run read against qrels whose collection stays in the table
    (no collection list): its documents, judged or not, UTF-8, Latin-1 or
    longer than a packed key, are ranked as against the same collection
    held as a tuple and a dict."""
    from dataclasses import replace

    from shrec_eval.reading.formats.trec import read_qrels
    from shrec_eval.reading.formats.trec_run import read_trec_run

    docs = [b"d1", "d\u00e9".encode(), b"d\xe9x", b"D1", b"x" * 40, b"d2"]
    qrels = tmp_path / "x.qrels"
    qrels.write_bytes(b"".join(b"q%d 0 %s %d\n" % (i // 3, d, i % 3) for i, d in enumerate(docs)))
    ranked = [b"d2", b"zz", docs[1], b"x" * 40, b"d\xe9x", b"d1", b"x" * 41, b"D1", b"d\xe9"]
    run = tmp_path / "x.run"
    run.write_bytes(
        b"".join(
            b"q%d Q0 %s %d %d t\n" % (k, d, r, 9 - r) for k in (0, 1) for r, d in enumerate(ranked)
        )
    )
    a = read_qrels(qrels, normalize_ids=False)
    assert a.item_ids == tuple(d.decode("utf-8", "surrogateescape") for d in docs)
    plain = replace(a, item_ids=tuple(a.item_ids))  # the same ids, a dict index
    assert plain._item_index is not a._item_index
    got = read_trec_run(run, a, normalize_ids=False)
    want = read_trec_run(run, plain, normalize_ids=False)
    assert np.array_equal(got.flat, want.flat) and np.array_equal(got.indptr, want.indptr)
    assert got.flat[:9].tolist() == [5, -2, 1, 4, 2, 0, -2, 3, -2]


def _class_lines(n_classes: int, per_class: int, n_queries: int, seed: int) -> list[str]:
    """qrels made from classes of a collection: each query judges every
    member of its class, in collection order (each document judged by
    several queries)."""
    rng = np.random.default_rng(seed)
    lines = []
    for q, c in enumerate(rng.integers(0, n_classes, n_queries).tolist()):
        lines += [f"q{q} 0 d{j} {1 + j % 2}" for j in range(c * per_class, (c + 1) * per_class)]
    return lines


@pytest.mark.parametrize(("classes", "per_class", "queries"), [(3, 40, 20), (50, 7, 300)])
def test_qrels_made_from_classes_are_checked_for_repeats_without_a_sort(
    tmp_path, monkeypatch, classes, per_class, queries
):
    """A qrels grouped by query whose documents come in the order they were
    first named (classes of a collection) repeats no pair: that is told in
    one pass over its lines, not by sorting them (the sort was a tenth of
    reading 2,000,000 such lines), and the assessment is the dict's."""
    from shrec_eval.reading.formats import trec

    lines = _class_lines(classes, per_class, queries, seed=classes)
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")

    def no_sort(*args):
        raise AssertionError("the lines were sorted to look for repeats")

    monkeypatch.setattr(trec, "repeated_positions", no_sort)
    for chunk in (1 << 20, 300):
        got = trec.read_qrels(path, chunk_size=chunk, normalize_ids=False)
        _same_arrays(got, _as_dict_assessment(lines, False))
        assert got.indptr[-1] == len(lines)


@pytest.mark.parametrize("at", [0, 37, -1])
def test_a_pair_judged_again_in_qrels_made_from_classes_is_found(tmp_path, at):
    """The same lines with one judgment repeated (on the next line, where
    the pairs still never go down, or later in its query): the same grade is
    kept once, another grade is an error naming both lines."""
    from shrec_eval.reading.formats.trec import read_qrels

    lines = _class_lines(4, 30, 25, seed=1)
    i = at % len(lines)
    q, _, d, g = lines[i].split()
    for where in (i + 1, i + 3 if at != -1 else i + 1):
        for grade, clash in ((g, False), (str(3 - int(g)), True)):
            again = lines[:where] + [f"{q} 0 {d} {grade}"] + lines[where:]
            if where > i + 1 and again[where - 1].split()[0] != q:
                continue
            path = tmp_path / "x.qrels"
            path.write_text("\n".join(again) + "\n")
            if clash:
                with pytest.raises(FormatError) as err:
                    read_qrels(path, normalize_ids=False)
                assert err.value.line == where + 1
                assert f"({g} on line {i + 1}, {grade} here)" in str(err.value)
            else:
                got = read_qrels(path, normalize_ids=False)
                _same_arrays(got, _as_dict_assessment(lines, False))


@pytest.mark.parametrize("order", ["as_named", "reversed", "shuffled"])
@pytest.mark.parametrize("zeros", [False, True])
def test_qrels_of_relevant_lines_in_any_order_are_the_dicts(tmp_path, order, zeros):
    """Every line relevant (taken whole) or some judged 0, each query's
    documents in the order first named, reversed or shuffled: the same
    assessment as a dict of the same judgments, read in one chunk or many."""
    from shrec_eval.reading.formats.trec import read_qrels

    rng = np.random.default_rng(len(order) + zeros)
    lines = []
    for q, c in enumerate(rng.integers(0, 6, 40).tolist()):
        docs = [f"d{j}" for j in range(c * 9, c * 9 + 9)]
        if order == "reversed":
            docs.reverse()
        elif order == "shuffled":
            rng.shuffle(docs)
        lines += [f"q{q} 0 {d} {(j % 3) if zeros else 1 + j % 2}" for j, d in enumerate(docs)]
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    want = _as_dict_assessment(lines, False)
    for chunk in (1 << 20, 200):
        got = read_qrels(path, chunk_size=chunk, normalize_ids=False)
        _same_arrays(got, want)
        assert [got.judged_zero[1].size] == [sum(line.endswith(" 0") for line in lines)]


def _read_as_the_dicts(path, want, merged=None):
    """The fresh-path qrels at ``path`` read in chunks of 997 and of 300
    bytes, each read checked against the dicts' assessment ``want``; yields
    (chunk, assessment), ``merged`` (:func:`_remaps_taken`) cleared before
    each read."""
    from shrec_eval.reading.formats.trec import read_qrels

    for chunk in (997, 300):
        if merged is not None:
            merged.clear()
        got = read_qrels(path, chunk_size=chunk, normalize_ids=False)
        _same_arrays(got, want)
        yield chunk, got


def _fresh_shapes(rng) -> dict[str, list[str]]:
    """qrels whose documents are new as a rule, and the ways they are not."""
    n = 3000
    perm = rng.permutation(n)
    every_new = [f"{10 + i // 50} 0 D{perm[i]:09d} {rng.integers(0, 3)}" for i in range(n)]
    # a repeat of a document of an earlier fresh chunk (not of the first chunk),
    # several in one chunk, and one of the first chunk
    again = list(every_new)
    for at, src in ((2100, 1500), (2101, 1700), (2102, 1700), (2900, 5)):
        q = again[at].split()[0]
        again[at] = f"{q} 0 {again[src].split()[2]} 2"
    # documents judged by several queries a few chunks apart (a pool)
    pooled = [f"t{i // 40} 0 doc{(i * 7919) % 2400} {i % 2}" for i in range(n)]
    # long docnos (over 32 bytes) and ids the normaliser changes, late on
    mixed = list(every_new)
    mixed[1200] = "30 0 " + "L" * 40 + " 1"
    mixed[2500] = "60 0 m7 1"
    mixed[2501] = "60 0 007 1"
    return {"every_new": every_new, "again": again, "pooled": pooled, "mixed": mixed}


def _remaps_taken(monkeypatch) -> list[bool]:
    """Whether each settle of the fresh documents changed codes (a repeat
    merged: ``FreshCodes.take_remap`` gave a remap), in order."""
    from shrec_eval.reading.formats import fresh_codes

    merged: list[bool] = []
    take = fresh_codes.FreshCodes.take_remap
    monkeypatch.setattr(
        fresh_codes.FreshCodes,
        "take_remap",
        lambda self: (lambda got: merged.append(got is not None) or got)(take(self)),
    )
    return merged


def test_a_repeat_of_a_document_before_the_fresh_chunks_the_sample_missed_is_merged(
    tmp_path, monkeypatch
):
    """A document of the first chunk (coded through the table) judged again
    in a chunk added fresh, where the chunk's sample of look-ups does not
    reach it: the same document, one code (a table of fresh hashes checked
    only among themselves gave it a second code, so that the run's document
    was relevant to one of its queries only: trec_eval's num_rel_ret 1 of 2)."""
    from shrec_eval.reading.formats import fresh_codes

    monkeypatch.setattr(fresh_codes, "FRESH_MIN", 0)
    monkeypatch.setattr(fresh_codes, "SAMPLE", 1)  # a chunk's first token looked up, no other
    lines = list(_fresh_shapes(np.random.default_rng(1))["every_new"])
    for at, src in ((2900, 5), (2901, 6)):  # (one of the two is not a chunk's first)
        lines[at] = f"{lines[at].split()[0]} 0 {lines[src].split()[2]} 1"
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    want = _as_dict_assessment(lines, False)
    assert len(want.item_ids) == len(lines) - 2
    list(_read_as_the_dicts(path, want))  # each chunk size: the dicts' assessment


def test_long_docnos_before_the_fresh_chunks_are_no_repeat(tmp_path, monkeypatch):
    """Two docnos too long to pack (over 32 bytes) in the first chunk: their
    hashes are a placeholder's, the same; taken for a repeat, every fresh
    document was coded again through the table (1.7x the reading's memory
    on a 1,000,000-line qrels).  They are left out of the check: the fresh
    documents go into the table in one pass, and the assessment is the
    dict's."""
    from shrec_eval.reading.formats import fresh_codes

    monkeypatch.setattr(fresh_codes, "FRESH_MIN", 0)
    merged = _remaps_taken(monkeypatch)
    lines = list(_fresh_shapes(np.random.default_rng(2))["every_new"])
    for at in (4, 5):
        lines[at] = f"{lines[at].split()[0]} 0 {'L' * 40}{at} 1"
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    want = _as_dict_assessment(lines, False)
    for chunk, _got in _read_as_the_dicts(path, want, merged):
        assert merged and not any(merged), chunk  # no repeat taken, no code changed


@pytest.mark.parametrize("shape", ["every_new", "again", "pooled", "mixed"])
def test_documents_added_fresh_are_the_dicts(tmp_path, monkeypatch, shape):
    """A qrels' documents added a chunk at a time without the hash table
    (fresh_codes, as for a file of millions of lines: here from the second
    chunk on) give the assessment a dict of the same judgments gives, every
    document found in the table after: a repeat of a fresh document is
    merged into its first occurrence, a repeat of an earlier one ends the
    fresh chunks, ids the normaliser changes are not added fresh."""
    from shrec_eval.reading.formats import fresh_codes
    from shrec_eval.reading.formats.trec import read_qrels

    monkeypatch.setattr(fresh_codes, "FRESH_MIN", 0)
    monkeypatch.setattr(fresh_codes, "SAMPLE", 8)  # (small chunks: a few tokens looked up)
    added = []
    real = fresh_codes.FreshCodes.fresh_codes
    monkeypatch.setattr(
        fresh_codes.FreshCodes,
        "fresh_codes",
        lambda self, p: (lambda got: added.append(got is not None) or got)(real(self, p)),
    )
    merged = _remaps_taken(monkeypatch)
    lines = _fresh_shapes(np.random.default_rng(len(shape)))[shape]
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    for normalize in (False, True):
        want = _as_dict_assessment(lines, normalize)
        for chunk in (1 << 20, 997, 300):
            added.clear()
            merged.clear()
            got = read_qrels(path, chunk_size=chunk, normalize_ids=normalize)
            _same_arrays(got, want)
            some = range(0, len(want.item_ids), 29)
            assert [got.item_index(want.item_ids[i]) for i in some] == list(some)
            if chunk < 1000 and shape != "pooled":
                assert sum(added) > 3, added  # most chunks added fresh
                # the fresh repeats merged, and only they
                assert any(merged) == (shape == "again"), (chunk, normalize)
    if shape == "again":
        assert len(want.item_ids) == len(lines) - 4


def test_a_pair_judged_twice_in_fresh_chunks_names_its_lines(tmp_path, monkeypatch):
    """The documents of fresh chunks are coded again when one repeats an
    earlier fresh one: a pair judged twice with two grades is still found,
    at its lines."""
    from shrec_eval.reading.formats import fresh_codes
    from shrec_eval.reading.formats.trec import read_qrels

    monkeypatch.setattr(fresh_codes, "FRESH_MIN", 0)
    lines = [f"q{i // 30} 0 d{i} {i % 2}" for i in range(3000)]
    lines.insert(2000, "q50 0 d1510 1")  # d1510: judged 0 for q50 on line 1511
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    for chunk in (1 << 20, 500):
        with pytest.raises(FormatError) as err:
            read_qrels(path, chunk_size=chunk)
        assert err.value.line == 2001
        assert "(0 on line 1511, 1 here)" in str(err.value)


def test_the_table_of_fresh_documents_is_half_full_once_read(tmp_path, monkeypatch):
    """Made once the file is read, the table of the documents added fresh
    serves look-ups of other files' ids only (a run's): half full (32 MiB
    for 4 M documents, not 64)."""
    from shrec_eval.reading.formats import fresh_codes
    from shrec_eval.reading.formats.trec import read_qrels

    monkeypatch.setattr(fresh_codes, "FRESH_MIN", 0)
    lines = [f"q{i // 50} 0 D{(i * 7919) % 5000:06d} {i % 3}" for i in range(5000)]
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    got = read_qrels(path, chunk_size=2000)
    table = got.item_ids._table
    assert isinstance(table, fresh_codes.FreshCodes)
    assert 2 * 5000 <= table._table.size < 4 * 5000
    assert (table._table >= 0).sum() == 5000
    assert got.item_index("D000000") == 0 and got.item_index("D007919") is None


def test_a_qrels_judging_each_document_once_is_not_counted_for_repeats():
    """Every line a document of its own (as many documents as lines): no
    pair can be judged twice, told without a count per document (4 M
    documents: 32 MiB at the reading's peak)."""
    import tracemalloc

    from shrec_eval.reading.formats.columns import LineNumbers
    from shrec_eval.reading.formats.trec import _judged_once

    n = 200_000
    rng = np.random.default_rng(2)
    eq = np.repeat(np.arange(n // 50, dtype=np.int32), 50)
    ed = rng.permutation(n).astype(np.int32)
    grades = rng.integers(0, 3, n).astype(np.int32)
    d_ids = [f"d{i}" for i in range(n)]
    where = LineNumbers([np.arange(1, n + 1)])
    tracemalloc.start()
    try:
        got = _judged_once("x.qrels", list(range(n // 50)), d_ids, eq, ed, grades, where)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got is None and peak < ed.nbytes / 4
    # a document judged twice (by two queries) is still looked at
    ed[7] = ed[100]
    assert _judged_once("x.qrels", list(range(n // 50)), d_ids[:-1], eq, ed, grades, where) is None
    ed[101] = ed[100]  # the same query, the same document again, another grade
    grades[101] = (grades[100] + 1) % 3
    with pytest.raises(FormatError, match="judged twice with different grades"):
        _judged_once("x.qrels", list(range(n // 50)), d_ids[:-2], eq, ed, grades, where)


@pytest.mark.parametrize("shape", ["every_new", "again"])
def test_fresh_documents_whose_hashes_share_their_top_bits_are_told_by_the_whole_hash(
    tmp_path, monkeypatch, shape
):
    """The table of the documents added fresh is made by one sort of their
    hashes' top 32 bits, which also tells whether two hashes are equal (a
    repeat): where many documents share their top bits (here a hash keeps
    only 8 of them), their whole hashes are compared, so that distinct
    documents are no repeat and a repeat is merged wherever it sits among
    them; the assessment is the dict's."""
    from shrec_eval.reading.formats import fresh_codes, keys, packed

    real = packed.token_hash

    def top_bits_shared(words, lengths):
        h = real(words, lengths)
        return (h & np.uint64(0xFF00000000000000)) | (h & np.uint64(0xFFFFFFFF))

    for module in (packed, keys, fresh_codes):
        monkeypatch.setattr(module, "token_hash", top_bits_shared)
    monkeypatch.setattr(fresh_codes, "FRESH_MIN", 0)
    merged = _remaps_taken(monkeypatch)
    lines = _fresh_shapes(np.random.default_rng(len(shape)))[shape]
    path = tmp_path / "x.qrels"
    path.write_text("\n".join(lines) + "\n")
    want = _as_dict_assessment(lines, False)
    for chunk, got in _read_as_the_dicts(path, want, merged):
        some = range(0, len(want.item_ids), 7)
        assert [got.item_index(want.item_ids[i]) for i in some] == list(some)
        assert any(merged) == (shape == "again"), chunk


def test_a_listed_id_of_escaped_bytes_is_not_a_judged_document_of_the_same_bytes(tmp_path):
    """A collection list given by a caller with an id of escaped bytes
    (``'\\udcc3\\udca9'``) whose bytes are another id's UTF-8 (``é``): not
    that document, as before the list was looked up as bytes (a review
    found it accepted); the real id is."""
    from shrec_eval.reading.formats.trec import read_qrels

    path = tmp_path / "s.qrels"
    path.write_bytes("q1 0 é 1\n".encode())
    with pytest.raises(FormatError, match="not in the collection list"):
        read_qrels(str(path), collection=["\udcc3\udca9"])
    assert read_qrels(str(path), collection=["é"]).n_items == 1
