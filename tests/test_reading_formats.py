"""Readers of every real contest format: what they read, what they detect,
and the clear error (file, line, what was expected) for each kind of bad
content."""

import os
from pathlib import Path

import numpy as np
import pytest
from contest_files import (
    distances,
    make_classes,
    write_ascii_matrix,
    write_binary_matrix,
    write_cla,
    write_qrels,
    write_ranklists,
    write_trec_run,
)
from shrec_eval import evaluate
from shrec_eval.errors import ContestFileError, FileAccessError, FormatError
from shrec_eval.reading.formats.cla import read_cla
from shrec_eval.reading.formats.ids import normalize_id
from shrec_eval.reading.readers import detect_run_format, load_assessment, load_run, sniff

CLASSES = make_classes()
N = sum(len(m) for _, _, m in CLASSES)


@pytest.fixture
def cla(tmp_path):
    return write_cla(tmp_path / "target.cla", CLASSES)


@pytest.fixture
def loo(cla):
    return load_assessment(cla)


# -- .cla ---------------------------------------------------------------------


def test_cla_structure(cla):
    c = read_cla(cla)
    assert c.models == [str(i) for i in range(N)]
    assert c.class_path("dog") == "animal/dog"
    assert c.sisters("dog") == ["cat"] and c.sisters("chair") == []
    assert c.info("animal").models == [] and c.info("jet").parent == "aircraft"


def test_leave_one_out_binary(loo):
    assert loo.leave_one_out and loo.top_grade == 1 and loo.n_items == N
    assert loo.judgments("0") == {str(i): 1 for i in range(4)}  # class jet, self included
    assert loo.query_classes[0] == "jet"
    assert loo.kind == "binary leave-one-out classes"


def test_leave_one_out_graded_sisters(cla):
    a = load_assessment(cla, graded=True)
    j = a.judgments("7")  # dog: 7..11, sister cat: 12..14
    assert {k: v for k, v in j.items() if v == 2} == {str(i): 2 for i in range(7, 12)}
    assert {k: v for k, v in j.items() if v == 1} == {str(i): 1 for i in range(12, 15)}
    assert a.top_grade == 2 and a.classification.class_path("cat") == "animal/cat"


def test_query_and_target_cla(tmp_path, cla):
    qcla = write_cla(
        tmp_path / "queries.cla",
        [("jet", "0", ["q1", "q2"]), ("dog", "0", ["q3"]), ("tree", "0", ["q4"])],
    )
    a = load_assessment(cla, queries=qcla)
    assert a.query_ids == ("q1", "q2", "q3", "q4") and not a.leave_one_out
    assert set(a.judgments("q3")) == {str(i) for i in range(7, 12)}
    assert a.judgments("q4") == {}  # no target class of that name
    g = load_assessment(cla, queries=qcla, graded=True)
    assert g.judgments("q3")["12"] == 1


@pytest.mark.parametrize(
    "kw",
    [
        dict(crlf=True),
        dict(bom=True),
        dict(final_newline=False),
        dict(crlf=True, bom=True, final_newline=False),
    ],
)
def test_cla_tolerates_real_file_quirks(tmp_path, kw):
    p = write_cla(tmp_path / "x.cla", CLASSES, **kw)
    assert read_cla(p).models == [str(i) for i in range(N)]


def test_cla_tabs_and_blank_lines(tmp_path):
    p = tmp_path / "x.cla"
    p.write_text("PSB\t1\n\n\n2   3\n\n  a 0 2\n\t1\t2\nb a 1\n3")
    c = read_cla(p)
    assert c.models == ["1", "2", "3"] and c.sisters("a") == []


CLA_ERRORS = [
    ("", "empty", 1),
    ("PSX 1\n1 1\na 0 1\n1\n", "not a PSB classification", 1),
    ("PSB 7\n1 1\na 0 1\n1\n", "version", 1),
    ("PSB 1\nx 1\na 0 1\n1\n", "number of classes", 2),
    ("PSB 1\n1 -1\na 0 1\n1\n", "at least 0", 2),
    ("PSB 1\n2 2\na 0 1\n1\na 0 1\n2\n", "defined twice", 5),
    ("PSB 1\n1 1\na b 1\n1\n", "parent 'b'", 3),
    ("PSB 1\n2 2\nb a 1\n1\na 0 1\n2\n", "parent 'a'", 3),
    ("PSB 1\n1 2\na 0 x\n1\n2\n", "number of models of class 'a'", 3),
    ("PSB 1\n1 2\na 0 2\n1\n1\n", "listed twice", 5),
    ("PSB 1\n1 3\na 0 3\n1\n2\n", "ends too early", 5),
    ("PSB 1\n2 2\na 0 2\n1\n2\n", "announces 2 classes", 2),
    ("PSB 1\n1 3\na 0 2\n1\n2\n", "announces 3 models", 2),
    ("PSB 1\n1 2\na 0 1\n1\nb 0 1\n2\n", "more classes than", 5),
]


@pytest.mark.parametrize("text,match,line", CLA_ERRORS)
def test_cla_errors(tmp_path, text, match, line):
    p = tmp_path / "bad.cla"
    p.write_text(text)
    with pytest.raises(FormatError, match=match) as e:
        read_cla(p)
    assert e.value.line == line and e.value.path == str(p)
    assert str(e.value).startswith(f"{p}, line {line}")


def test_cla_binary_garbage(tmp_path):
    p = tmp_path / "bad.cla"
    p.write_bytes(b"PSB 1\n\x00\x01\x02\xff")
    with pytest.raises(FormatError, match="NUL byte") as e:
        read_cla(p)
    assert e.value.line == 2


def test_unreadable_file_is_wrapped(tmp_path):
    with pytest.raises(FileAccessError, match="cannot read the file") as e:
        load_assessment(tmp_path / "nope.cla", format="cla")
    assert e.value.path.endswith("nope.cla")
    with pytest.raises(FileAccessError, match="folder"):
        read_cla(tmp_path)


# -- id normalisation ------------------------------------------------------------


@pytest.mark.parametrize(
    "raw,norm",
    [
        ("m665", "665"),
        ("model_665", "665"),
        ("036894", "36894"),
        ("0", "0"),
        ("m000", "0"),
        ("M12", "12"),
        ("chair3", "chair3"),
        ("m", "m"),
        ("mx12", "mx12"),
        ("12a", "12a"),
    ],
)
def test_normalize_id(raw, norm):
    assert normalize_id(raw) == norm


def test_prefixed_runs_match_and_are_reported(tmp_path, cla, loo):
    d = distances(N, N)
    ids = [str(i) for i in range(N)]
    folder = write_ranklists(tmp_path / "r", d, ids, ids, "id-distance", prefix="m")
    run = load_run(folder, loo)
    codes = {w.code: w for w in run.warnings}
    assert "unknown_ids" not in codes and codes["ids_normalised"].count == N
    raw = load_run(folder, loo, normalize_ids=False)
    assert {w.code for w in raw.warnings} >= {"unknown_ids"}


# -- runs: the same contest in every format gives the same numbers ------------------


def _all_formats(tmp_path, d, query_ids, item_ids):
    return {
        "ascii": write_ascii_matrix(tmp_path / "run.txt", d),
        "ascii-crlf-tabs": write_ascii_matrix(tmp_path / "run2.txt", d, sep="\t", crlf=True),
        "binary": write_binary_matrix(tmp_path / "run.matrix", d),
        "query-line": write_ranklists(tmp_path / "ql", d, query_ids, item_ids, "query-line"),
        "id-distance": write_ranklists(
            tmp_path / "idd", d, query_ids, item_ids, "id-distance", ext=".txt"
        ),
        "distance-id": write_ranklists(tmp_path / "did", d, query_ids, item_ids, "distance-id"),
        "trec": write_trec_run(tmp_path / "run.trec", d, query_ids, item_ids),
    }


def test_same_contest_in_every_run_format(tmp_path, loo):
    ids = list(loo.item_ids)
    d = distances(N, N)
    paths = _all_formats(tmp_path, d, ids, ids)
    results = {k: evaluate(loo, load_run(p, loo)) for k, p in paths.items()}
    base = results["ascii"]
    assert base.mean("ap_trec_r") > 0
    for k, res in results.items():
        np.testing.assert_array_equal(res.values, base.values, err_msg=k)
        for c in base.curves:
            np.testing.assert_array_equal(res.curves[c].per_query, base.curves[c].per_query)
    assert results["trec"].run_name == "myrun" and results["binary"].run_name == "run"


def test_same_external_contest_in_every_run_format(tmp_path, cla):
    qcla = write_cla(tmp_path / "queries.cla", [("jet", "0", ["q1", "q2"]), ("dog", "0", ["q3"])])
    a = load_assessment(cla, queries=qcla, graded=True)
    d = distances(3, N, seed=4)
    paths = _all_formats(tmp_path, d, list(a.query_ids), list(a.item_ids))
    results = [evaluate(a, load_run(p, a)) for p in paths.values()]
    for res in results[1:]:
        np.testing.assert_array_equal(res.values, results[0].values)


def test_detection_and_variant_reporting(tmp_path, loo):
    ids = list(loo.item_ids)
    paths = _all_formats(tmp_path, distances(N, N), ids, ids)
    want = {
        "ascii": "ascii-matrix",
        "ascii-crlf-tabs": "ascii-matrix",
        "binary": "binary-matrix",
        "query-line": "ranklists",
        "id-distance": "ranklists",
        "distance-id": "ranklists",
        "trec": "trec",
    }
    for k, p in paths.items():
        assert detect_run_format(p, loo) == want[k], k
    for variant in ("query-line", "id-distance", "distance-id"):
        run = load_run(paths[variant], loo)
        assert f"variant {variant} (detected)" in run.format
    forced = load_run(paths["id-distance"], loo, variant="id-distance")
    assert "(chosen)" in forced.format
    assert sniff(tmp_path / "run.trec") == "trec"


def test_distance_optional_and_truncated_lists(tmp_path, loo):
    folder = tmp_path / "shapenet"
    folder.mkdir()
    for q in loo.query_ids:
        (folder / q).write_text(
            "".join(f"{int(q) + k:06d}\n" for k in range(1, 4) if int(q) + k < N)
        )
    run = load_run(folder, loo, variant="id-distance")
    res = evaluate(loo, run)
    codes = {w.code for w in res.warnings}
    assert "truncated_lists" in codes and "unknown_ids" not in codes
    assert res.value("0", "nn") == 1  # 000001 -> 1, same class


def test_unsorted_distances_and_query_line_mismatch(tmp_path, loo):
    folder = tmp_path / "r"
    folder.mkdir()
    for q in loo.query_ids:
        first = "999" if q == "3" else q
        (folder / q).write_text(f"{first}\n1 0.5\n2 0.25\n")
    run = load_run(folder, loo)
    codes = {w.code: w for w in run.warnings}
    assert codes["unsorted_distances"].count == N
    assert codes["query_line_mismatch"].examples == ("file 3 says 999",)


def test_duplicates_and_unknown_ids_name_their_lines(tmp_path, loo):
    p = tmp_path / "run.trec"
    p.write_text("0 Q0 1 1 9 r\n0 Q0 zz 2 8 r\n0 Q0 1 3 7 r\n")
    run = load_run(p, loo)
    codes = {w.code: w for w in run.warnings}
    assert codes["duplicate_ids"].examples == ("1 in query 0 (line 3)",)
    assert codes["unknown_ids"].examples == ("zz in query 0 (line 2)",)
    res = evaluate(loo, run)
    assert {w.code: w for w in res.warnings}["missing_queries"].count == N - 1


def test_trec_order_option(tmp_path, loo):
    p = tmp_path / "run.trec"
    p.write_text("0 Q0 5 1 1.0 r\n0 Q0 1 2 2.0 r\n0 Q0 2 3 2.0 r\n")
    file_order = load_run(p, loo)
    trec = load_run(p, loo, trec_order=True)
    assert list(file_order.flat) == [5, 1, 2]
    assert list(trec.flat) == [2, 1, 5]  # score desc, then docno desc
    assert "trec_eval order" in trec.format and "file order" in file_order.format


@pytest.mark.parametrize("seed", range(12))
def test_trec_order_of_runs_sorted_or_not_is_a_sort_of_each_query(tmp_path, seed):
    """Runs written in trec_eval's order already (as most are: then only the
    docnos of tied scores are compared) or not (a score going up, tied
    docnos ascending, a query split in two): each query's list is its
    entries sorted by score, then docno as bytes, both descending, and a
    repeated docno names its line."""
    import random

    from shrec_eval import Assessment

    rng = random.Random(seed)
    docs = sorted({f"d{rng.randint(0, 60)}" for _ in range(40)} | {"d1", "d2", "d\u00e9", "D1"})
    a = Assessment.from_judgments({"q1": {"d1": 1}, "q2": {"d2": 1}}, docs + ["x" * 40])
    entries = []
    for q in ("q1", "q2"):
        picked = rng.sample(docs, 25)
        entries += [(q, d, rng.choice([1.5, 2.0, 2.0, 3.25, -0.0, 0.0, 7.0])) for d in picked]
    by_rank = sorted(entries, key=lambda e: (e[0] == "q1", e[2], e[1].encode()), reverse=True)
    want = {q: [d for p, d, _ in by_rank if p == q] for q in ("q1", "q2")}
    if seed % 3 == 0:  # written in trec_eval's order (ties by docno descending)
        entries = by_rank
    elif seed % 3 == 1:  # a query split in two
        entries = entries[:10] + entries[25:] + entries[10:25]
    rows = [f"{q} Q0 {d} {r} {x!r} t" for r, (q, d, x) in enumerate(entries, 1)]
    rows.insert(30, rows[29].replace(" t", " t2"))  # a repeated docno, on line 31
    if seed % 2:  # and an earlier line again at the end, its query split
        rows.append(rows[2].replace(" t", " t3").replace(" Q0 ", " Q0  "))
    p = tmp_path / "run.trec"
    p.write_text("\n".join(rows) + "\n", "utf-8")
    run = load_run(p, a, trec_order=True)
    for r, q in enumerate(run.query_ids):
        got = run.flat[run.indptr[r] : run.indptr[r + 1]]
        assert [a.item_ids[i] for i in got] == want[q]
    dup = {w.code: w for w in run.warnings}["duplicate_ids"]
    assert dup.count == 1 + seed % 2 and "(line 31)" in " ".join(dup.examples)


def test_matrix_ties_are_counted_and_broken_by_collection_order(tmp_path, loo):
    d = distances(N, N)
    d[0, 5] = d[0, 3] = d[0, 9] = 0.5
    run = load_run(write_ascii_matrix(tmp_path / "m.txt", d), loo)
    order, _ = run.ranked_block(np.array([0]))
    assert list(order[0, :4]) == [0, 3, 5, 9]
    res = evaluate(loo, run)
    w = {w.code: w for w in res.warnings}["ties"]
    assert w.count == 3 and w.examples == ("query 0: 3",)


# -- qrels ------------------------------------------------------------------------


def test_qrels(tmp_path):
    p = tmp_path / "q.qrels"
    p.write_text("# judged by hand\nq1 0 d1 2\nq1 0 d2 1\r\nq1 0 d3 0\nq2 0 d1 -1\nq2 0 d4 1")
    a = load_assessment(p, collection_size=100)
    assert a.query_ids == ("q1", "q2") and a.top_grade == 2 and a.collection_size == 100
    assert a.judgments("q1") == {"d1": 2, "d2": 1} and a.judgments("q2") == {"d4": 1}
    assert not a.closed
    assert {n.code for n in a.notes} == {"negative_grades"}
    coll = tmp_path / "collection.txt"
    coll.write_text("d1\nd2\nd3\nd4\nd5\n")
    b = load_assessment(p, collection=coll)
    assert b.item_ids == ("d1", "d2", "d3", "d4", "d5") and b.closed


QRELS_ERRORS = [
    ("q1 0 d1\n", "4 fields", 1),
    ("q1 0 d1 x\n", "whole number", 1),
    ("q1 0 d1 1\nq1 0 d1 2\n", "judged twice with different grades", 2),
    ("# only a comment\n", "no judgment", 1),
]


@pytest.mark.parametrize("text,match,line", QRELS_ERRORS)
def test_qrels_errors(tmp_path, text, match, line):
    p = tmp_path / "bad.qrels"
    p.write_text(text)
    with pytest.raises(FormatError, match=match) as e:
        load_assessment(p, format="qrels")
    assert e.value.line == line


def test_qrels_collection_errors(tmp_path):
    p = write_qrels(tmp_path / "q", {"q1": {"d1": 1, "d9": 1}})
    coll = tmp_path / "c.txt"
    coll.write_text("d1\nd2\n")
    with pytest.raises(FormatError, match="not in the collection list"):
        load_assessment(p, collection=coll)
    with pytest.raises(FormatError, match="smaller than"):
        load_assessment(p, collection_size=1)
    coll.write_text("d1\nd1\n")
    with pytest.raises(FormatError, match="listed twice") as e:
        load_assessment(p, collection=coll)
    assert e.value.line == 2


# -- run errors ---------------------------------------------------------------------


def _run_error(tmp_path, loo, name, content, **kw):
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    with pytest.raises(FormatError) as e:
        load_run(p, loo, **kw)
    return e.value


def test_ascii_matrix_errors(tmp_path, loo):
    good = [" ".join("1.0" for _ in range(N))] * N
    e = _run_error(tmp_path, loo, "a.txt", "\n".join(good[:-1]) + "\n", format="ascii-matrix")
    assert f"has {N - 1} rows; {N} were expected" in e.message
    rows = list(good)
    rows[3] = " ".join(["1.0"] * (N - 1))
    e = _run_error(tmp_path, loo, "b.txt", "\n".join(rows), format="ascii-matrix")
    assert e.line == 4 and f"row 4 has {N - 1} values; {N} were expected" in e.message
    rows = list(good)
    rows[2] = "1.0 abc" + " 1.0" * (N - 2)
    e = _run_error(tmp_path, loo, "c.txt", "\n".join(rows), format="ascii-matrix")
    assert (e.line, e.column, e.token) == (3, 5, "abc") and "not a number" in e.message
    rows = list(good)
    rows[5] = "1.0 1.0 nan" + " 1.0" * (N - 3)
    e = _run_error(tmp_path, loo, "d.txt", "\n".join(rows), format="ascii-matrix")
    assert e.line == 6 and "row 6, column 3" in e.message and "finite" in e.message
    e = _run_error(tmp_path, loo, "e.txt", "\n".join(good + good[:1]), format="ascii-matrix")
    assert e.line == N + 1 and f"the matrix has {N + 1} rows, 1 more than the {N}" in e.message
    e = _run_error(tmp_path, loo, "f.txt", "\n\n", format="ascii-matrix")
    assert "empty" in e.message
    e = _run_error(tmp_path, loo, "g.txt", b"1.0 2.0\n\x01\x02", format="ascii-matrix")
    assert e.line == 2 and "control character" in e.message


def test_ascii_matrix_tolerates_bom_and_blank_lines(tmp_path, loo):
    d = distances(N, N)
    p = write_ascii_matrix(tmp_path / "m.txt", d)
    text = p.read_text().splitlines()
    p.write_bytes(b"\xef\xbb\xbf" + ("\n\n".join(text)).encode())
    run = load_run(p, loo)
    np.testing.assert_array_equal(run.matrix, d.astype(np.float64))


def test_binary_matrix_errors(tmp_path, loo):
    e = _run_error(tmp_path, loo, "a.matrix", b"\x00" * 4 * (N * N - 1), format="binary-matrix")
    assert f"{4 * (N * N - 1)} bytes" in e.message and f"{4 * N * N} bytes" in e.message
    e = _run_error(tmp_path, loo, "b.matrix", b"", format="binary-matrix")
    assert "empty" in e.message
    d = distances(N, N)
    d[2, 7] = np.inf
    e = _run_error(tmp_path, loo, "c.matrix", d.astype("<f4").tobytes(), format="binary-matrix")
    assert "row 3, column 8" in e.message
    e = _run_error(tmp_path, loo, "d.matrix", b"\x00" * 4 * 16, format="binary-matrix")
    assert "4 x 4 matrix" in e.message


def test_binary_matrix_is_read_by_rows_and_truncation_is_an_error(tmp_path, loo):
    d = distances(N, N)
    p = write_binary_matrix(tmp_path / "m.matrix", d)
    run = load_run(p, loo)
    assert not isinstance(run.matrix, np.memmap)  # a mapping dies of SIGBUS when truncated
    np.testing.assert_array_equal(run.matrix[2:5], d[2:5].astype("<f4"))
    np.testing.assert_array_equal(run.matrix[np.array([7, 0])], d[[7, 0]].astype("<f4"))
    # the file truncated after it was opened (as by cp over it while scoring)
    os.truncate(p, 4 * N * 3 + 2)
    with pytest.raises(FormatError, match="ended after .* while it was read") as e:
        run.matrix[2:5]
    assert e.value.path == str(p)


def test_trec_run_errors(tmp_path, loo):
    e = _run_error(tmp_path, loo, "a.trec", "0 Q0 1 1 0.5 r\n0 Q0 2 2 x r\n", format="trec")
    assert (e.line, e.column, e.token) == (2, 10, "x")
    e = _run_error(tmp_path, loo, "b.trec", "0 Q0 1 1 0.5 r\n0 Q0 2 2 0.4\n", format="trec")
    assert e.line == 2 and "6 fields" in e.message
    e = _run_error(tmp_path, loo, "c.trec", "0 Q0 1 1 nan r\n", format="trec")
    assert "NaN" in e.message
    e = _run_error(tmp_path, loo, "d.trec", "\n", format="trec")
    assert "no result line" in e.message


def test_ranklist_errors(tmp_path, loo):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "0").write_text("1 0.5\n2 zz\n")
    with pytest.raises(FormatError, match="distance must be a number") as e:
        load_run(folder, loo, variant="id-distance")
    assert e.value.line == 2 and e.value.path.endswith("0")
    (folder / "0").write_text("1 0.5 7\n")
    with pytest.raises(FormatError, match="3 fields"):
        load_run(folder, loo, variant="id-distance")
    (folder / "0").write_text("0.5\n")
    with pytest.raises(FormatError, match="1 fields"):
        load_run(folder, loo, variant="distance-id")
    with pytest.raises(FormatError, match="unknown rank-list variant"):
        load_run(folder, loo, variant="columns")
    (folder / "0").write_text("0.5 0.25\n0.1 0.2\n")
    with pytest.raises(FormatError, match="cannot tell which column"):
        load_run(folder, loo)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FormatError, match="no rank-list file"):
        load_run(empty, loo)


def test_undecidable_formats(tmp_path, loo):
    p = tmp_path / "x.txt"
    p.write_text("hello world\n")
    with pytest.raises(FormatError, match="cannot tell what this run is"):
        load_run(p, loo)
    with pytest.raises(FormatError, match="cannot tell what this file is"):
        load_assessment(p)
    q = write_qrels(tmp_path / "q", {"q1": {"d1": 1}})
    with pytest.raises(FormatError, match="looks like a TREC qrels"):
        load_run(q, loo)
    with pytest.raises(FormatError, match="applies to TREC qrels only"):
        load_assessment(tmp_path / "x.txt", format="cla", collection_size=3)


@pytest.mark.parametrize("extra", [1, -1, 3])
def test_a_matrix_of_another_width_is_told_as_a_matrix(tmp_path, loo, extra):
    """Rows of numbers one column too many or too few (or more): detection
    takes the file for the matrix it clearly is, and the matrix reader says
    which row has how many values, as with --run-format ascii-matrix."""
    n = loo.n_items
    m = tmp_path / "m.txt"
    write_ascii_matrix(m, np.arange(n * (n + extra), dtype=float).reshape(n, n + extra))
    want = f"row 1 has {n + extra} values; {n} were expected"
    for fmt in (None, "ascii-matrix"):
        with pytest.raises(FormatError, match=want) as got:
            load_run(m, loo, format=fmt)
        assert got.value.line == 1 and "cannot tell" not in str(got.value)
    # a short list of another kind (three numbers a line) is not taken for one
    triples = tmp_path / "t.txt"
    triples.write_text("1 5 0.5\n1 6 0.25\n2 5 0.75\n")
    with pytest.raises(FormatError, match="cannot tell what this run is"):
        load_run(triples, loo)


def test_every_error_is_a_contest_file_error():
    assert issubclass(FormatError, ContestFileError) and issubclass(
        FileAccessError, ContestFileError
    )
    assert Path(__file__).exists()


@pytest.mark.parametrize("layout", ["spaces", "tabs", "double-spaces", "crlf", "comment"])
@pytest.mark.parametrize("trec_order", [False, True])
def test_trec_readers_agree(tmp_path, loo, monkeypatch, layout, trec_order):
    """Whole-file chunks, small chunks and one-line chunks of the one
    tokenizer give the same run and the same warnings with the same lines."""
    import shrec_eval.reading.formats.trec_run as trec

    ids = list(loo.item_ids)
    p = write_trec_run(tmp_path / "run.trec", distances(N, N), ["m" + i for i in ids], ids)
    lines = p.read_text().splitlines()
    lines[7] = lines[3]  # a duplicate, reported with its line
    lines[9] = lines[9].replace(" Q0 ", " Q0 zz", 1)  # an unknown id
    nl = "\n"
    if layout == "comment":
        lines.insert(len(lines) // 2, "# a comment in the middle")
    elif layout == "tabs":
        lines = [ln.replace(" ", "\t") for ln in lines]
    elif layout == "double-spaces":
        lines[20] = lines[20].replace(" ", "  ")
    elif layout == "crlf":
        nl = "\r\n"
    p.write_bytes((nl.join(lines) + nl).encode())
    got = []
    for chunk in (trec.CHUNK, 97, 1):
        got.append(trec.read_trec_run(p, loo, trec_order=trec_order, chunk_size=chunk))
    for run in got[1:]:
        assert run.query_ids == got[0].query_ids == loo.query_ids
        np.testing.assert_array_equal(run.flat, got[0].flat)
        np.testing.assert_array_equal(run.indptr, got[0].indptr)
        assert [w.to_dict() for w in run.warnings] == [w.to_dict() for w in got[0].warnings]
    codes = {w.code: w for w in got[0].warnings}
    assert codes["duplicate_ids"].examples[0].endswith("(line 8)")
    assert codes["unknown_ids"].examples[0].endswith("(line 10)")
    assert codes["ids_normalised"].count == N  # distinct query ids m0.. -> 0..
    assert got[0].name == "myrun"


def test_ascii_matrix_read_in_blocks_is_identical(tmp_path, loo):
    d = distances(N, N)
    p = write_ascii_matrix(tmp_path / "m.txt", d, crlf=True)
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes().replace(b"\r\n", b"\r\n\r\n", 3))
    whole = load_run(p, loo)
    blocks = load_run(p, loo, chunk_size=2 * 7 * N)  # about two rows per chunk
    np.testing.assert_array_equal(whole.matrix, blocks.matrix)
    np.testing.assert_array_equal(blocks.matrix, d.astype(np.float64))
    rows = p.read_text(encoding="utf-8-sig").splitlines()
    rows[-2] = rows[-2] + " 1.0"
    p.write_text("\n".join(rows))
    with pytest.raises(FormatError, match=f"has {N + 1} values") as e:
        load_run(p, loo, chunk_size=2 * 7 * N)
    assert e.value.line == len(rows) - 1
