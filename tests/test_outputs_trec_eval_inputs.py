"""``--format trec_eval`` on every input it may be given: query ids that are
not UTF-8 (printed as their bytes, in their byte order), every run kind
(rank lists, ASCII and binary matrices, .npy embeddings, --top-k: one
bpref for the same lists), the scores trec_eval's ``atof`` reads, and the
options trec_eval takes that shrec-eval refuses, each with what trec_eval
would do.  The expected outputs were made with the trec_eval binary
(version 10.0) on the same files; the binary is not needed here."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
from shrec_eval.cli.parser import main

TREC_EVAL_OPTS = ["--profile", "trec_eval", "--format", "trec_eval"]


def _bytes_out(argv) -> tuple[int, bytes, str]:
    """``shrec-eval ARGV`` with a byte stream as standard output (the
    command line's own): (exit code, the bytes printed, standard error)."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv], out=out)
    out.flush()
    return code, raw.getvalue(), err.getvalue()


def _lines(data: bytes) -> dict[tuple[bytes, bytes], bytes]:
    rows = [ln.split(b"\t") for ln in data.splitlines()]
    return {(m.strip(), q): v for m, q, v in rows}


# -- query ids that are not UTF-8 --------------------------------------------------------------


def test_query_ids_that_are_not_utf8_are_printed_as_their_bytes_in_byte_order(tmp_path):
    (tmp_path / "q.qrels").write_bytes(
        b"caf\xe9 0 d1 1\ncaf\xe9 0 d2 0\nq2 0 d1 1\nq2 0 d3 1\nZ\xff 0 d1 1\n"
    )
    (tmp_path / "r.trec").write_bytes(
        b"caf\xe9 Q0 d1 1 0.9 t\ncaf\xe9 Q0 d2 2 0.8 t\nq2 Q0 d3 1 0.9 t\nq2 Q0 d1 2 0.8 t\n"
        b"Z\xff Q0 d2 1 0.5 t\n"
    )
    code, out, err = _bytes_out(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", *TREC_EVAL_OPTS, "-q"]
    )
    assert code == 0, err
    qids = list(dict.fromkeys(ln.split(b"\t")[1] for ln in out.splitlines()))
    # trec_eval's order: strcmp of the bytes ("Z" < "c" < "q"; \xe9 and \xff as bytes)
    assert qids == [b"Z\xff", b"caf\xe9", b"q2", b"all"]
    rows = _lines(out)
    assert rows[(b"map", b"caf\xe9")] == b"1.0000"
    assert rows[(b"map", b"Z\xff")] == b"0.0000"
    assert rows[(b"num_q", b"all")] == b"3"
    assert b"\xef\xbf\xbd" not in out  # never U+FFFD in trec_eval's text


# -- every run kind ----------------------------------------------------------------------------

CLA = "PSB 1\n2 6\n\na 0 3\n0\n1\n2\n\nb 0 3\n3\n4\n5\n"


@pytest.fixture
def kinds(tmp_path):
    """The same 6 x 6 contest as a rank-list folder, an ASCII and a binary
    matrix, and features (.npy) with their cosine distances as a matrix."""
    (tmp_path / "a.cla").write_text(CLA)
    lab = np.repeat([0, 1], 3)
    rng = np.random.default_rng(7)
    m = rng.uniform(1, 2, (6, 6)) - (lab[:, None] == lab[None, :]) * 0.5
    np.fill_diagonal(m, 0)
    m = np.round(m, 4)
    np.savetxt(tmp_path / "m.txt", m, fmt="%.4f")
    m.astype("<f4").tofile(tmp_path / "m.matrix")
    (tmp_path / "lists").mkdir()
    for q in range(6):
        order = np.argsort(m[q], kind="stable")
        (tmp_path / "lists" / f"{q}.txt").write_text("".join(f"{t} {m[q, t]:.4f}\n" for t in order))
    f = (rng.normal(size=(6, 4)) + lab[:, None] * 2).astype(np.float32)
    np.save(tmp_path / "f.npy", f)
    return tmp_path


def test_every_run_kind_prints_trec_evals_block_with_the_same_bpref(kinds):
    outs = {}
    for run in ("lists", "m.txt", "m.matrix"):
        code, out, err = _bytes_out(["evaluate", kinds / "a.cla", kinds / run, *TREC_EVAL_OPTS])
        assert code == 0, err
        outs[run] = _lines(out)
    # the same ranked lists, whatever the file: the same values, bpref included
    for run in ("m.txt", "m.matrix"):
        assert {k: v for k, v in outs[run].items() if k[0] != b"runid"} == {
            k: v for k, v in outs["lists"].items() if k[0] != b"runid"
        }
    assert outs["lists"][(b"bpref", b"all")] == b"1.0000"  # no judged non-relevant in a .cla
    for extra in ([], ["--top-k", "3"]):
        code, out, err = _bytes_out(
            ["evaluate", kinds / "a.cla", kinds / "f.npy", *extra, *TREC_EVAL_OPTS, "-q"]
        )
        assert code == 0, err
        rows = _lines(out)
        assert rows[(b"num_q", b"all")] == b"6"
        # a .cla judges no document non-relevant: bpref is the share of the
        # relevant documents retrieved, query by query
        for q in map(str.encode, "012345"):
            share = int(rows[(b"num_rel_ret", q)]) / int(rows[(b"num_rel", q)])
            assert rows[(b"bpref", q)] == f"{share:6.4f}".encode()
        assert rows[(b"num_ret", b"all")] == (b"18" if extra else b"30")  # self-match out


def test_bpref_of_a_matrix_counts_grade_0_judgments_as_its_lists_rank_them(tmp_path):
    """qrels with grade-0 lines over a binary matrix of the same collection:
    bpref from the matrix's lists equals bpref of the same lists as a TREC run."""
    items = [f"d{i}" for i in range(5)]
    (tmp_path / "coll.txt").write_text("\n".join(items) + "\n")
    (tmp_path / "q.qrels").write_text(
        "q0 0 d1 1\nq0 0 d0 0\nq0 0 d3 -1\nq1 0 d4 2\nq1 0 d1 1\nq1 0 d2 0\nq1 0 d0 0\n"
    )
    d = np.array([[0.3, 0.2, 0.5, 0.1, 0.9], [0.2, 0.05, 0.1, 0.6, 0.4]])
    trec = "".join(
        f"q{q} Q0 {items[t]} {r + 1} {-d[q, t]:.4f} t\n"
        for q in range(2)
        for r, t in enumerate(np.argsort(d[q]))
    )
    (tmp_path / "r.trec").write_text(trec)
    np.savetxt(tmp_path / "m.txt", d, fmt="%.4f")
    # the matrix: one row per query of the qrels, a column per document of --collection
    base = ["--collection", tmp_path / "coll.txt", *TREC_EVAL_OPTS, "-q"]
    _, a, e1 = _bytes_out(["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", *base])
    matrix = [tmp_path / "m.txt", "--run-format", "ascii-matrix"]
    _, b, e2 = _bytes_out(["evaluate", tmp_path / "q.qrels", *matrix, *base])
    ra, rb = _lines(a), _lines(b)
    # trec_eval 10.0 on the TREC run: q0 1.0000 (d3, -1, above d1 is not judged),
    # q1 0.5000 (d1 first: 1; d4 under d2 and d0: 1 - 2/2), all 0.7500
    expected = {b"q0": b"1.0000", b"q1": b"0.5000", b"all": b"0.7500"}
    assert {q: ra[(b"bpref", q)] for q in expected} == expected, e1
    assert {q: rb[(b"bpref", q)] for q in expected} == expected, e2


# -- negative grades -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "qrels,expected",
    [
        # one -1 line ranked above the relevant documents: not judged, bpref 1
        ("q 0 a -1\nq 0 b 1\nq 0 c 0\nq 0 d 2\n", "1.0000"),
        ("q 0 a -2\nq 0 b 1\nq 0 c -1\nq 0 d 2\n", "1.0000"),
        # the same lines with a 0: judged non-relevant, counted (d: 1, b: 1 - 1/2)
        ("q 0 a 0\nq 0 b 1\nq 0 c 0\nq 0 d 2\n", "0.7500"),
    ],
)
def test_bpref_leaves_negative_grades_out_as_trec_eval(tmp_path, qrels, expected):
    (tmp_path / "q.qrels").write_text(qrels)
    (tmp_path / "r.trec").write_text(
        "q Q0 d 1 0.95 t\nq Q0 a 2 0.9 t\nq Q0 b 3 0.8 t\nq Q0 c 4 0.7 t\n"
    )
    code, out, err = _bytes_out(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", *TREC_EVAL_OPTS]
    )
    assert code == 0, err
    assert _lines(out)[(b"bpref", b"all")] == expected.encode()


# -- what trec_eval's C library reads ------------------------------------------------------------


@pytest.mark.parametrize("score", ["0x1p3", "1d3", "abc", "1,5", ".", "-", "2abc"])
def test_scores_atof_reads_are_a_trec_run_under_the_trec_eval_profile(tmp_path, score):
    """Line 1's score is what atof makes of it (0x1p3 = 8, 1d3 = 1, abc = 0,
    1,5 = 1): the file is a TREC run, scored as trec_eval scores it (the
    same output as with --run-format trec)."""
    (tmp_path / "q.qrels").write_text("q 0 a 1\nq 0 b 1\nq 0 c 0\n")
    (tmp_path / "r.trec").write_text(f"q Q0 b 1 {score} t\nq Q0 a 2 0.5 t\nq Q0 c 3 0.7 t\n")
    argv = ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", *TREC_EVAL_OPTS, "-q"]
    code, detected, err = _bytes_out(argv)
    assert code == 0, err
    code, given, _ = _bytes_out([*argv, "--run-format", "trec"])
    assert code == 0 and detected == given
    value = {"0x1p3": 8.0, "1d3": 1.0, "1,5": 1.0, "2abc": 2.0}.get(score, 0.0)
    # b's place: above a (0.5) and c (0.7) only when its score is larger
    first = value > 0.7
    assert _lines(detected)[(b"recip_rank", b"q")] == (b"1.0000" if first else b"0.5000")


def test_without_the_trec_eval_profile_such_a_score_is_not_a_number(tmp_path):
    (tmp_path / "q.qrels").write_text("q 0 a 1\nq 0 b 1\nq 0 c 0\n")
    (tmp_path / "r.trec").write_text("q Q0 b 1 0x1p3 t\nq Q0 a 2 0.5 t\n")
    code, _, err = _bytes_out(["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec"])
    assert code == 2 and "cannot tell what this run is" in err and "unexpected" not in err


@pytest.mark.parametrize(
    "options,needle",
    [
        # trec_eval: every judged document relevant; here grade 0 stays not relevant
        (["-l", "0"], "0 is not taken: trec_eval -l 0 counts every judged document relevant"),
        (["-M", "0"], "0 is not taken: trec_eval -M 0 keeps no document of any list"),
        # trec_eval reads -N only for measures it does not print by default
        (["-N", "2"], "trec_eval reads -N only for measures it does not print by default"),
    ],
)
def test_options_trec_eval_takes_and_shrec_eval_refuses_say_why(tmp_path, options, needle):
    (tmp_path / "q.qrels").write_text("q 0 a 1\nq 0 b 1\nq 0 c 0\n")
    (tmp_path / "r.trec").write_text("q Q0 a 1 0.9 t\nq Q0 b 2 0.8 t\nq Q0 c 3 0.7 t\n")
    code, out, err = _bytes_out(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", *TREC_EVAL_OPTS, *options]
    )
    assert code == 2 and out == b"" and needle in err, err
    assert len(err.strip().splitlines()) == 1 and "unexpected" not in err


def test_a_nan_score_is_refused_with_why_trec_evals_order_is_not_defined(tmp_path):
    (tmp_path / "q.qrels").write_text("q 0 a 1\nq 0 b 1\nq 0 c 0\n")
    (tmp_path / "r.trec").write_text("q Q0 b 1 nan t\nq Q0 a 2 0.5 t\nq Q0 c 3 0.7 t\n")
    code, out, err = _bytes_out(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", *TREC_EVAL_OPTS]
    )
    assert code == 2 and out == b""
    assert "line 1: the score (5th field) is NaN" in err
    assert "neither above nor below any score" in err
