"""The reproduction scripts of issue 11 (defects d01-d20) that gave wrong
numbers or unclear messages, written as tests: each shows the clear error or the
right number.  The scripts themselves are never called; every case is rebuilt
here with small inputs; and issue 24's reading defects (e05, e06, e08: bad
tokens in matrices, truncated binary matrices, ids in two encodings, two
spellings of one id).  Outputs: test_outputs_hostile.py and test_outputs_gate.py;
pipes, devices, wide rows and option ranges: test_reading_streams.py."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
from contest_files import distances, write_binary_matrix
from hostile import CLA6, S_CLA, S_TXT, run_cli, small_contest
from hostile import six_contest as _six
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate
from shrec_eval.errors import AmbiguousFormatError, FileAccessError, FormatError
from shrec_eval.model.assessment import AssessmentError
from shrec_eval.reading.formats.trec_run import read_trec_run
from shrec_eval.reading.readers import detect_run_format, load_assessment, load_run
from tiers import examples


@pytest.fixture
def small(tmp_path):
    return small_contest(tmp_path)


def _qrels_contest(tmp_path, n_queries=12, n_docs=300, per_query=250, seed=3):
    """qrels and a clean TREC run of more than 64 KiB."""
    rng = np.random.default_rng(seed)
    qrels, lines = [], []
    for q in range(1, n_queries + 1):
        for d in rng.choice(n_docs, 40, replace=False):
            qrels.append(f"{q} 0 D{d} {rng.choice([0, 1, 1, 2])}")
        for r, d in enumerate(rng.choice(n_docs, per_query, replace=False), 1):
            lines.append(f"{q} Q0 D{d} {r} {10 - r * 0.01:.4f} myrun")
    (tmp_path / "al.qrels").write_text("\n".join(qrels) + "\n")
    a = load_assessment(tmp_path / "al.qrels", collection_size=n_docs)
    return a, lines


def _same_run(r1, r2):
    assert r1.query_ids == r2.query_ids
    np.testing.assert_array_equal(r1.indptr, r2.indptr)
    np.testing.assert_array_equal(r1.flat, r2.flat)


# -- d01, d06, d08: one tokenizer, every line's fields checked ---------------------


@pytest.mark.parametrize("where", ["after_qid", "before_rank", "tabs", "column_aligned"])
@pytest.mark.parametrize("trec_order", [False, True])
def test_d01_whitespace_runs_never_shift_columns(tmp_path, where, trec_order):
    a, lines = _qrels_contest(tmp_path)
    clean = tmp_path / "clean.trec"
    clean.write_text("\n".join(lines) + "\n")
    assert clean.stat().st_size > 1 << 16
    odd = list(lines)
    k = len(odd) // 2
    f = odd[k].split()
    if where == "after_qid":
        odd[k] = f"{f[0]}  {' '.join(f[1:])}"
    elif where == "before_rank":
        odd[k] = " ".join(f[:3]) + "  " + " ".join(f[3:])
    elif where == "tabs":
        odd = [ln.replace(" ", "\t") for ln in odd]
    else:  # a run merged from two writers, the second column-aligned
        odd = [f"{ln.split()[0]:<3} {' '.join(ln.split()[1:])}" for ln in odd]
    p = tmp_path / "odd.trec"
    p.write_text("\n".join(odd) + "\n")
    want = load_run(clean, a, trec_order=trec_order)
    for chunk in (1 << 24, 4096, 1):
        _same_run(read_trec_run(p, a, trec_order=trec_order, chunk_size=chunk), want)
    e1 = evaluate(a, want).means["ap_trec_r"]
    e2 = evaluate(a, load_run(p, a, trec_order=trec_order)).means["ap_trec_r"]
    assert e1 == e2


def test_d01_extra_fields_ignored_and_noted(tmp_path):
    a, lines = _qrels_contest(tmp_path)
    clean = tmp_path / "clean.trec"
    clean.write_text("\n".join(lines) + "\n")
    junk = list(lines)
    junk[20] += " junk"
    junk[900] += " more junk"
    p = tmp_path / "junk.trec"
    p.write_text("\n".join(junk) + "\n")
    for chunk in (1 << 24, 333):
        run = read_trec_run(p, a, chunk_size=chunk)
        _same_run(run, load_run(clean, a))
        w = {w.code: w for w in run.warnings}["extra_fields"]
        assert w.count == 2 and w.examples == ("line 21", "line 901")


def test_d06_a_long_and_a_short_line_never_compensate(tmp_path):
    a, lines = _qrels_contest(tmp_path)
    both = list(lines)
    both[9] += " junk"
    both[19] = " ".join(both[19].split()[:5])
    p = tmp_path / "both.trec"
    p.write_text("\n".join(both) + "\n")
    for chunk in (1 << 24, 100, 1):
        with pytest.raises(FormatError, match="6 fields.*this one has 5") as e:
            read_trec_run(p, a, chunk_size=chunk)
        assert e.value.line == 20


def test_d08_quoted_ids_read_one_way_whatever_the_size(tmp_path):
    a, lines = _qrels_contest(tmp_path)
    quoted = [" ".join(f if i != 2 else f'"{f}"' for i, f in enumerate(ln.split())) for ln in lines]
    big = tmp_path / "big.trec"
    big.write_text("\n".join(quoted) + "\n")
    small = tmp_path / "small.trec"
    small.write_text("\n".join(quoted[:50]) + "\n")
    runs = [read_trec_run(big, a, chunk_size=c) for c in (1 << 24, 1000)]
    _same_run(*runs)
    head = read_trec_run(small, a)
    # the quotes are part of the id (as for trec_eval): unknown ids, said so
    assert "quoted_ids" in {w.code for w in head.warnings}
    assert (head.flat == -2).all()  # UNKNOWN: no judged document is spelt with quotes
    assert {w.code: w.count for w in runs[0].warnings}["quoted_ids"] == len(lines)
    np.testing.assert_array_equal(head.flat, runs[0].flat[: head.flat.size])


# -- d02: the collection of qrels without a size --------------------------------------


@pytest.fixture
def inferred(tmp_path):
    with open(tmp_path / "inf.qrels", "w") as f:
        for j in range(1, 11):
            f.write(f"q1 0 d{j} {1 if j in (1, 2, 3) else 0}\n")
    docs = [f"u{j}" for j in range(1, 15)] + ["d1", "d2", "d3"] + [f"u{j}" for j in range(15, 38)]
    with open(tmp_path / "inf.trec", "w") as f:
        for r, d in enumerate(docs, 1):
            f.write(f"q1 Q0 {d} {r} {100 - r} run\n")
    return tmp_path


def test_d02_collection_is_judged_plus_retrieved(inferred):
    a = load_assessment(inferred / "inf.qrels")
    run = load_run(inferred / "inf.trec", a)
    r = evaluate(a, run)
    # 10 judged + 37 unjudged retrieved = 47 documents; 40 retrieved, 3 relevant found
    assert r.value("q1", "tn_r") == 47 - 40 - 0 == 7
    assert r.value("q1", "acc_r") == pytest.approx((3 + 7) / 47)
    same = evaluate(a, run, EvalOptions(collection_size=47))
    assert (
        r.value("q1", "e_measure") == same.value("q1", "e_measure") == pytest.approx(0.171428, 1e-5)
    )
    note = {w.code: w for w in r.warnings}["collection_inferred"]
    assert note.count == 37 and "--collection-size" in note.message


def test_d02_a_collection_size_too_small_is_refused(inferred):
    a = load_assessment(inferred / "inf.qrels")
    run = load_run(inferred / "inf.trec", a)
    with pytest.raises(AssessmentError, match="collection size 20 .*smaller than the 47"):
        evaluate(a, run, EvalOptions(collection_size=20))
    a20 = load_assessment(inferred / "inf.qrels", collection_size=20)
    with pytest.raises(AssessmentError, match="smaller than the 47"):
        evaluate(a20, load_run(inferred / "inf.trec", a20))
    code, _ = run_cli(["evaluate", inferred / "inf.qrels", inferred / "inf.trec",
                       "--collection-size", "20"])  # fmt: skip
    assert code == 2


# -- d03: trec_eval's tie order on the ids as written ------------------------------


def test_d03_trec_order_ties_use_ids_as_written(tmp_path):
    (tmp_path / "z.qrels").write_text("t 0 000099 1\nt 0 000100 0\nt 0 000101 0\n")
    # all tied: trec_eval ranks docno descending as strings: 000101, 000100, 000099
    (tmp_path / "z.trec").write_text(
        "t Q0 000099 1 1.0 r\nt Q0 000100 2 1.0 r\nt Q0 000101 3 1.0 r\n"
    )
    for normalize in (True, False):
        a = load_assessment(tmp_path / "z.qrels", collection_size=10, normalize_ids=normalize)
        run = load_run(tmp_path / "z.trec", a, trec_order=True)
        ranked = [a.item_ids[i] for i in run.flat]
        assert ranked == (["101", "100", "99"] if normalize else ["000101", "000100", "000099"])
        assert evaluate(a, run).value("t", "ap_trec_r") == pytest.approx(1 / 3)


# -- d07: detection from more than one line's shape --------------------------------


SIX_CLA = "PSB 1\n2 6\na 0 3\n0\n1\n2\nb 0 3\n3\n4\n5\n"
SIX_TXT = "0 1 2 7 8 9\n1 0 1 8 7 9\n2 1 0 9 9 7\n7 8 9 0 1 2\n8 7 9 1 0 1\n9 9 7 2 1 0\n"


def test_d07_integer_matrix_with_six_columns_is_a_matrix(tmp_path):
    (tmp_path / "six.cla").write_text(SIX_CLA)
    (tmp_path / "six.txt").write_text(SIX_TXT)
    a = load_assessment(tmp_path / "six.cla")
    assert detect_run_format(tmp_path / "six.txt", a) == "ascii-matrix"
    r = evaluate(a, load_run(tmp_path / "six.txt", a))
    assert r.means["nn"] == 1.0 and r.means["ap_trec_r"] == 1.0


def test_d07_when_two_formats_fit_the_user_chooses(tmp_path):
    (tmp_path / "six.cla").write_text(SIX_CLA)
    # every line a TREC line with one run tag, and a 6 x 6 matrix of numbers
    amb = "".join(
        f"{i} 0 {j} 1 {k}.5 7\n" for i, j, k in zip(range(6), (1, 0, 4, 5, 3, 2), range(6))
    )
    (tmp_path / "amb.txt").write_text(amb)
    a = load_assessment(tmp_path / "six.cla")
    with pytest.raises(AmbiguousFormatError, match="--run-format") as e:
        load_run(tmp_path / "amb.txt", a)
    assert set(e.value.candidates) == {"trec", "ascii-matrix"}
    code, _ = run_cli(["evaluate", tmp_path / "six.cla", tmp_path / "amb.txt"])
    assert code == 2
    code, text = run_cli(
        ["evaluate", tmp_path / "six.cla", tmp_path / "amb.txt", "--run-format", "ascii-matrix"]
    )
    assert code == 0


def test_d07_four_columns_with_a_four_item_assessment(small):
    (small / "four.txt").write_text("0 1 2 7\n1 0 1 8\n2 1 0 9\n7 8 9 0\n")
    a = load_assessment(small / "s.cla")
    assert detect_run_format(small / "four.txt", a) == "ascii-matrix"


# -- d18 / d20: a run knows what it was read against ---------------------------------


def test_d20_run_read_for_another_assessment_is_refused():
    a = Assessment.from_judgments({"q1": {"m1": 2, "m2": 1}}, items=["m1", "m2", "m3"])
    run = RankedRun.from_lists("r", {"q1": ["m3", "m1", "m2"]}, a)
    b = Assessment.from_judgments({"q1": {"m3": 2}}, items=["m3", "m2", "m1"])
    with pytest.raises(AssessmentError, match="read against another assessment"):
        evaluate(b, run)
    # the same collection, another object: fine
    c = Assessment.from_judgments({"q1": {"m1": 1}}, items=["m1", "m2", "m3"])
    assert evaluate(c, run).means["nn"] == 0.0


def test_d18_load_run_needs_an_assessment(small):
    with pytest.raises(TypeError, match="needs an Assessment"):
        load_run(small / "s.txt", "s.cla")


# -- no measure ever leaves its range -------------------------------------------------

COUNTS = ("tp_", "fp_", "tn_", "fn_", "cg@", "dcg@")


def assert_in_range(result):
    for k in result.keys:
        v = result.column(k)
        v = v[~np.isnan(v)]
        assert (v >= 0).all(), k
        if not k.startswith(COUNTS):
            assert (v <= 1 + 1e-12).all(), k


def test_d02_measures_in_range(inferred):
    a = load_assessment(inferred / "inf.qrels")
    assert_in_range(evaluate(a, load_run(inferred / "inf.trec", a)))
    assert math.isfinite(evaluate(a, load_run(inferred / "inf.trec", a)).means["acc_r"])


def test_cli_json_of_inferred_collection(inferred):
    code, _ = run_cli(
        ["evaluate", inferred / "inf.qrels", inferred / "inf.trec", "--json", inferred / "o.json"]
    )
    assert code == 0
    doc = json.loads((inferred / "o.json").read_text())
    codes = [w["code"] for w in doc["runs"][0]["warnings"]]
    assert "collection_inferred" in codes


# -- messages: d15 line numbers, d16 clear causes, detection tolerant of bad lines ----


def test_d15_only_newlines_end_lines(tmp_path):
    (tmp_path / "ff.qrels").write_bytes(
        b"q1 0 d1 1\n# section\x0c\nq1 0 d2 1\nq1 0 d3 1\nq1 0 d4 x\n"
    )
    with pytest.raises(FormatError, match="whole number") as e:
        load_assessment(tmp_path / "ff.qrels", collection_size=10)
    assert e.value.line == 5
    # U+2028 inside a comment: still one comment line, the file is valid
    (tmp_path / "ls.qrels").write_bytes(
        "q1 0 d1 1\n# note \u2028 about this file\nq1 0 d2 1\n".encode()
    )
    a = load_assessment(tmp_path / "ls.qrels", collection_size=10)
    assert a.judgments("q1") == {"d1": 1, "d2": 1}
    # a cp1252 ellipsis (0x85) inside a class name is part of the name
    (tmp_path / "nel.cla").write_bytes(b"PSB 1\n2 6\na\x85b 0 3\n0\n1\n2\nb 0 3\n3\n4\n5\n")
    a = load_assessment(tmp_path / "nel.cla")
    # (its byte kept as written: not UTF-8, so a surrogate, shown as U+FFFD)
    assert a.query_classes[0] == "a\udc85b" and a.n_items == 6


def test_d15_error_lines_in_cla_count_newlines_only(tmp_path):
    (tmp_path / "x.cla").write_bytes(b"PSB 1\n2 4\na 0 2\x0c\n0\n1\nb 0 2\n2\n2\n")
    with pytest.raises(FormatError, match="listed twice") as e:
        load_assessment(tmp_path / "x.cla")
    assert e.value.line == 8


def test_d16_not_text_is_said_plainly(small):
    import codecs

    (small / "u16.cla").write_bytes(codecs.BOM_UTF16_LE + S_CLA.encode("utf-16-le"))
    with pytest.raises(FormatError, match="UTF-16"):
        load_assessment(small / "u16.cla")
    nul = S_CLA.replace("2\n3\n", "2\x00\n3\n").encode()
    (small / "nul.cla").write_bytes(nul)
    with pytest.raises(FormatError, match="NUL byte") as e:
        load_assessment(small / "nul.cla")
    assert e.value.line == 7
    (small / "nul.trec").write_bytes(b"q1 Q0 0 1 0.9 r\nq1 Q0 1\x00 2 0.8 r\n")
    a = load_assessment(small / "s.cla")
    with pytest.raises(FormatError, match="NUL byte") as e:
        load_run(small / "nul.trec", a)
    assert e.value.line == 2


def test_utf16_text_read_with_its_format_given_is_said_plainly(small, capsys):
    """A UTF-16 file read with its format given (not detected): the error
    names the file, line 1 and what was expected (the message's article
    helper was never imported: a local array of that name was called, and
    "unexpected TypeError" reached the user; found by mypy)."""
    a = load_assessment(small / "s.cla")
    (small / "s16.txt").write_bytes(S_TXT.encode("utf-16"))
    (small / "r16.trec").write_bytes("0 Q0 1 1 0.9 r\n".encode("utf-16-le"))
    (small / "q16.qrels").write_bytes("q1 0 d1 1\n".encode("utf-16"))
    expected = [
        (lambda: load_run(small / "s16.txt", a, format="ascii-matrix"), "a text matrix"),
        (lambda: load_run(small / "r16.trec", a, format="trec"), "a TREC run"),
        (lambda: load_assessment(small / "q16.qrels", format="qrels"), "a TREC qrels file"),
    ]
    for read, what in expected:
        with pytest.raises(FormatError, match=f"UTF-16 text; {what} .*in UTF-8") as e:
            read()
        assert e.value.line == 1
    code, _ = run_cli(
        ["evaluate", small / "s.cla", small / "s16.txt", "--run-format", "ascii-matrix"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "s16.txt, line 1: this is UTF-16 text" in err
    assert "TypeError" not in err


def test_d16_detection_says_what_line_1_looked_like(small):
    (small / "float.qrels").write_text("q1 0 d1 2.0\n")
    with pytest.raises(FormatError, match=r"line 1 reads 'q1 0 d1 2.0' \(4 fields\)"):
        load_assessment(small / "float.qrels")
    (small / "comma.txt").write_text("0,1,5,5\n1,0,5,5\n5,5,0,1\n5,5,1,0.5\n")
    with pytest.raises(FormatError, match=r"line 1 reads '0,1,5,5' \(1 field\)"):
        load_run(small / "comma.txt", load_assessment(small / "s.cla"))


def test_d16_a_folder_forced_as_a_file_format(small):
    (small / "adir").mkdir()
    a = load_assessment(small / "s.cla")
    for fmt in ("binary-matrix", "ascii-matrix", "trec"):
        with pytest.raises(FileAccessError, match="this is a folder"):
            load_run(small / "adir", a, format=fmt)


def test_d16_matrix_messages(small):
    a = load_assessment(small / "s.cla")
    (small / "us.txt").write_text("0 1 5 5\n1 0 1_000.5 5\n5 5 0 1\n5 5 1 0.5\n")
    with pytest.raises(FormatError, match="not a number") as e:
        load_run(small / "us.txt", a)
    assert (e.value.line, e.value.column) == (2, 5)
    (small / "hdr.txt").write_text("0 1 2 3\n" + S_TXT)
    with pytest.raises(FormatError, match="is line 1 a header"):
        load_run(small / "hdr.txt", a)


def test_d16_duplicate_after_normalisation_says_so(small):
    (small / "padded.cla").write_text("PSB 1\n1 2\ncls 0 2\n1\n01\n")
    with pytest.raises(FormatError, match="'01' and '1' are the same id once normalised"):
        load_assessment(small / "padded.cla")
    assert load_assessment(small / "padded.cla", normalize_ids=False).n_items == 2


def test_detection_tolerates_a_bad_line_and_the_reader_names_it(small):
    a = load_assessment(small / "s.cla")
    lines = [f"{q} Q0 {d} {r} {9 - r} run" for q in "01" for r, d in enumerate("0123", 1)]
    lines[3] = "1 Q0"
    (small / "bad.trec").write_text("\n".join(lines) + "\n")
    assert detect_run_format(small / "bad.trec", a) == "trec"
    with pytest.raises(FormatError, match="this one has 2") as e:
        load_run(small / "bad.trec", a)
    assert e.value.line == 4


def test_clashing_run_tags_get_distinct_names(small):
    lines = "".join(
        f"{q} Q0 {d} {r} {9 - r} samerun\n" for q in "01" for r, d in enumerate("01", 1)
    )
    for name in ("alice.trec", "bob.trec"):
        (small / name).write_text(lines)
    code, _ = run_cli(["evaluate", small / "s.cla", small / "alice.trec", small / "bob.trec",
                       "--json", small / "o.json"])  # fmt: skip
    assert code == 0
    names = [r["name"] for r in json.loads((small / "o.json").read_text())["runs"]]
    assert names == ["samerun (alice.trec)", "samerun (bob.trec)"]


def test_d18_api_type_checks():
    a = Assessment.from_judgments({"q1": {"m1": 2, "m2": 1}}, items=["m1", "m2", "m3"])
    run = RankedRun.from_lists("r", {"q1": ["m3", "m1", "m2"]}, a)
    with pytest.raises(AssessmentError, match="grades are whole numbers, not 1.7"):
        Assessment.from_judgments({"q1": {"m1": 1.7, "m2": 0.5}})
    with pytest.raises(TypeError, match="options must be an EvalOptions"):
        evaluate(a, run, {"ranks": (5,)})
    with pytest.raises(TypeError, match="assessment must be an Assessment, not RankedRun"):
        evaluate(run, a)
    b = Assessment.from_judgments({1: {"m1": 1}}, items=["m1"])
    r = RankedRun.from_lists("r", {1: ["m1"]}, b)
    assert r.query_ids == ("1",) and evaluate(b, r).means["nn"] == 1.0


# -- no measure ever leaves its range (any qrels, any run, with or without a size) ---


@st.composite
def open_contests(draw):
    judged = [f"d{j}" for j in range(draw(st.integers(1, 15)))]
    others = [f"u{j}" for j in range(draw(st.integers(0, 30)))]
    queries = [f"q{i}" for i in range(draw(st.integers(1, 4)))]
    qrels = {q: {d: draw(st.sampled_from([0, 1, 2])) for d in judged} for q in queries}
    lists = {}
    for q in queries:
        pool = draw(st.permutations(judged + others))
        lists[q] = pool[: draw(st.integers(0, len(pool)))]
    given_size = draw(st.one_of(st.none(), st.integers(len(judged) + len(others), 200)))
    return qrels, lists, given_size


@pytest.mark.slow
@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(open_contests(), st.integers(1, 40))
def test_no_measure_leaves_its_range(tmp_path_factory, contest, k):
    qrels, lists, size = contest
    tmp = tmp_path_factory.mktemp("r")
    with open(tmp / "a.qrels", "w") as f:
        for q, jd in qrels.items():
            f.writelines(f"{q} 0 {d} {g}\n" for d, g in jd.items())
    with open(tmp / "r.trec", "w") as f:
        for q, ds in lists.items():
            f.writelines(f"{q} Q0 {d} {r} {100 - r} tag\n" for r, d in enumerate(ds, 1))
    if not any(g > 0 for jd in qrels.values() for g in jd.values()):
        return  # no relevant item at all: not an assessment
    a = load_assessment(tmp / "a.qrels", collection_size=size)
    if not any(lists.values()):
        return
    run = load_run(tmp / "r.trec", a, format="trec")
    assert_in_range(evaluate(a, run, EvalOptions(ranks=(1, k), curve_length=k)))


# -- e05: a near-matrix is never a TREC run -----------------------------------------------------


@pytest.mark.parametrize(
    "row, col, token", [(1, 2, "1.#INF00"), (3, 7, "NA"), (2, 4, "1.#IND00"), (2, 6, "\u0663")]
)
def test_e05_matrix_with_a_bad_token_is_an_error_with_line_and_column(tmp_path, row, col, token):
    sizes = [5, 4, 3]
    lines = ["PSB 1", "3 12", ""]
    k = 0
    for c, s in enumerate(sizes):
        lines += [f"c{c} 0 {s}"] + [str(k + j) for j in range(s)] + [""]
        k += s
    (tmp_path / "a.cla").write_text("\n".join(lines) + "\n")
    a = load_assessment(tmp_path / "a.cla")
    rows = [[f"{v:.6f}" for v in r] for r in distances(12, 12)]
    rows[row][col] = token
    p = tmp_path / "bad.txt"
    p.write_text("".join(" ".join(r) + "\n" for r in rows))
    if token != "\u0663":
        assert detect_run_format(p, a) == "ascii-matrix"
    with pytest.raises(FormatError) as e:
        load_run(p, a, format="ascii-matrix" if token == "\u0663" else None)
    assert e.value.line == row + 1 and e.value.column is not None and e.value.token == token
    code, out = run_cli(["evaluate", tmp_path / "a.cla", p])
    assert code == 2 and out == ""


def test_e05_trec_runs_with_numeric_ids_are_still_trec(tmp_path):
    (tmp_path / "a.cla").write_text(CLA6)
    a = load_assessment(tmp_path / "a.cla")
    p = tmp_path / "r.trec"
    p.write_text("".join(f"{q} Q0 {(q + 1) % 6} 1 0.5 run\n" for q in range(6)))
    assert detect_run_format(p, a) == "trec"


# -- e06: a binary matrix truncated while scored --------------------------------------------


def test_e06_binary_matrix_truncated_after_opening_is_an_error(tmp_path):
    cla, _, d = _six(tmp_path)
    p = write_binary_matrix(tmp_path / "m.matrix", d)
    a = load_assessment(cla)
    run = load_run(p, a)
    os.truncate(p, 30)
    with pytest.raises(FormatError, match="truncated or rewritten"):
        evaluate(a, run)


def test_e08_latin1_and_utf8_ids_are_two_ids(tmp_path):
    (tmp_path / "q.qrels").write_bytes(b"1 0 caf\xc3\xa9 1\n1 0 x 1\n")
    (tmp_path / "r.trec").write_bytes(b"1 Q0 caf\xe9 1 3 t\n1 Q0 caf\xc3\xa9 2 2 t\n1 Q0 x 3 1 t\n")
    code, out = run_cli(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", "-N", "10"]
        + ["--profile", "trec_eval", "--columns", "ap_trec_r,p@5", "--json", tmp_path / "r.json"]
    )
    assert code == 0
    run = json.loads((tmp_path / "r.json").read_bytes())["runs"][0]
    # trec_eval: (1/2 + 2/3) / 2, three distinct docnos retrieved
    assert run["mean"]["ap_trec_r"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-12)
    # two grades for the two byte strings are two judgments, not a contradiction
    (tmp_path / "q2.qrels").write_bytes(b"1 0 caf\xc3\xa9 1\n1 0 caf\xe9 0\n1 0 x 1\n")
    a = load_assessment(tmp_path / "q2.qrels", collection_size=10)
    assert a.judgments("1") == {"caf\u00e9": 1, "x": 1}


@pytest.mark.parametrize("first, second", [("7", "007"), ("007", "7")])
def test_two_spellings_of_one_qrels_id_named_in_either_order(tmp_path, first, second):
    # ids that cannot change skip the normaliser; two spellings met are
    # still both named, whichever comes first
    (tmp_path / "d.qrels").write_text(f"1 0 {first} 1\n1 0 {second} 2\n")
    with pytest.raises(FormatError, match="'007' and '7' are the same id once normalised"):
        load_assessment(tmp_path / "d.qrels", collection_size=10)
