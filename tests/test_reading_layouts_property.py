"""One contest, every reader path: the same random TREC run and qrels written
with every whitespace layout (runs of spaces, tabs, CRLF, blank and comment
lines, a BOM, no final newline, junk fields past the sixth) read whole, in
small chunks, one line per chunk, from memory as a pipe gives it, and through
format detection, always give the same lists and the same judgments."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shrec_eval import Assessment, RankedRun
from shrec_eval.errors import FormatError
from shrec_eval.reading.formats.source import Source
from shrec_eval.reading.formats.tokens import floats, integers, plain_float, plain_int, tokenize
from shrec_eval.reading.formats.trec import read_qrels
from shrec_eval.reading.formats.trec_run import read_trec_run
from shrec_eval.reading.readers import load_assessment, load_run
from tiers import examples

SEPS = [" ", "  ", "\t", " \t ", "\x0b", "\x0c"]


@st.composite
def contests(draw):
    n_items = draw(st.integers(1, 30))
    items = [f"d{j}" for j in range(n_items)]
    queries = [f"q{i}" for i in range(draw(st.integers(1, 5)))]
    judgments = {
        q: {it: draw(st.sampled_from([0, 1, 2])) for it in draw(st.permutations(items))[:4]}
        for q in queries
    }
    lists = {}
    for q in draw(st.permutations(queries)):
        perm = draw(st.permutations(items + ["x1", "x2"]))  # x: unjudged ids
        lists[q] = perm[: draw(st.integers(1, len(perm)))]
    return items, judgments, lists


@st.composite
def layouts(draw):
    return {
        "seps": draw(st.lists(st.sampled_from(SEPS), min_size=1, max_size=4)),
        "crlf": draw(st.booleans()),
        "bom": draw(st.booleans()),
        "final_newline": draw(st.booleans()),
        "blank_every": draw(st.integers(0, 5)),
        "comment_every": draw(st.integers(0, 5)),
        "junk_every": draw(st.integers(0, 5)),
        "indent": draw(st.sampled_from(["", " ", "\t"])),
    }


def render(rows, layout, *, junk=True, comments=True) -> bytes:
    out = []
    seps = layout["seps"]
    for i, fields in enumerate(rows):
        if layout["blank_every"] and i % layout["blank_every"] == 0:
            out.append(seps[i % len(seps)])
        if comments and layout["comment_every"] and i % layout["comment_every"] == 1:
            out.append("# a comment line\twith  fields")
        if junk and layout["junk_every"] and i % layout["junk_every"] == 2:
            fields = [*fields, "junk"]
        line = ""
        for k, f in enumerate(fields):
            line += (seps[(i + k) % len(seps)] if k else layout["indent"]) + f
        out.append(line + seps[i % len(seps)] * (i % 2))
    nl = "\r\n" if layout["crlf"] else "\n"
    text = nl.join(out) + (nl if layout["final_newline"] else "")
    return (b"\xef\xbb\xbf" if layout["bom"] else b"") + text.encode()


def trec_rows(lists):
    return [
        [q, "Q0", d, str(r), f"{100 - r * 0.5:g}", "tag"]
        for q, ds in lists.items()
        for r, d in enumerate(ds, 1)
    ]


def qrels_rows(judgments):
    return [[q, "0", d, str(g)] for q, jd in judgments.items() for d, g in jd.items()]


def same(r1, r2):
    assert r1.query_ids == r2.query_ids
    np.testing.assert_array_equal(r1.indptr, r2.indptr)
    np.testing.assert_array_equal(r1.flat, r2.flat)
    codes = {"extra_fields", "quoted_ids"}
    w1 = [w.to_dict() for w in r1.warnings if w.code not in codes]
    w2 = [w.to_dict() for w in r2.warnings if w.code not in codes]
    assert [w["code"] for w in w1] == [w["code"] for w in w2]


@pytest.mark.slow
@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contests(), layouts(), st.integers(1, 200))
def test_every_trec_reader_path_reads_the_same_run(tmp_path_factory, contest, layout, chunk):
    items, judgments, lists = contest
    tmp = tmp_path_factory.mktemp("p")
    a = Assessment.from_judgments(judgments, items, queries=list(judgments))
    want = RankedRun.from_lists("tag", lists, a)
    p = tmp / "run.trec"
    p.write_bytes(render(trec_rows(lists), layout))
    got = [
        read_trec_run(p, a),
        read_trec_run(p, a, chunk_size=chunk),
        read_trec_run(p, a, chunk_size=1),
        read_trec_run(Source(str(p), "pipe", p.read_bytes()), a, chunk_size=chunk),
        load_run(p, a, format="trec"),
    ]
    for run in got:
        np.testing.assert_array_equal(run.flat, want.flat)
        np.testing.assert_array_equal(run.indptr, want.indptr)
        assert run.query_ids == want.query_ids
        same(run, got[0])
    je = layout["junk_every"]
    junk = sum(1 for i in range(len(trec_rows(lists))) if je and i % je == 2)
    noted = [w.count for w in got[0].warnings if w.code == "extra_fields"]
    assert noted == ([junk] if junk else [])


@pytest.mark.slow
@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contests(), layouts(), st.integers(1, 200))
def test_every_qrels_reader_path_reads_the_same_judgments(tmp_path_factory, contest, layout, chunk):
    items, judgments, _ = contest
    tmp = tmp_path_factory.mktemp("q")
    p = tmp / "a.qrels"
    p.write_bytes(render(qrels_rows(judgments), layout, junk=False))
    got = [
        read_qrels(p, collection_size=100),
        read_qrels(p, collection_size=100, chunk_size=chunk),
        read_qrels(Source(str(p), "pipe", p.read_bytes()), collection_size=100, chunk_size=1),
        load_assessment(p, collection_size=100),
    ]
    for a in got:
        for q, jd in judgments.items():
            if any(g > 0 for g in jd.values()):
                assert a.judgments(q) == {d: g for d, g in jd.items() if g > 0}
        assert a.item_ids == got[0].item_ids and a.query_ids == got[0].query_ids


# --- numbers and ids read from the bytes (numparse) against Python itself ---

EDGE_NUMBERS = [
    "0",
    "-0",
    "+0",
    "-0.0",
    "0e5",
    "-0e-5",
    ".5",
    "5.",
    "-.5",
    "+5.",
    "1.5e-3",
    "1E+3",
    "007",
    "-007.50",
    "0.000123",
    "123456789012345",
    "1234567890123456",
    "12345678901234567890",
    "0.1234567890123456789",
    "9007199254740993",
    "1e22",
    "1e23",
    "1e-22",
    "1e-23",
    "1e308",
    "1e309",
    "-1e309",
    "1e-320",
    "4.9e-324",
    "2e-324",
    "1.7976931348623157e308",
    "nan",
    "-nan",
    "NaN",
    "inf",
    "-Infinity",
    "+inf",
    "1_000",
    "1__0",
    "_1",
    "1_",
    "0x1A",
    "0X10",
    "1e",
    "1e+",
    "e5",
    ".",
    "-",
    "+",
    "+-1",
    "1.2.3",
    "1e5.0",
    "1e5e5",
    "--1",
    "1e0005",
    "1e00000000001",
    "٣",
    "1,5",
    "1d5",
    "0b1",
    "5e-0",
    "99999999999999999999999999999",
    "123456789012345e22",
    "123456789012345e-22",
    "1" * 40,
    "0." + "0" * 30 + "1",
]
NUMBER_CHARS = "0123456789+-.eE_xnaifNIF"


def _tokens_chunk(tokens):
    return tokenize("\n".join(tokens).encode() + b"\n")


def _expect(parse, tokens):
    """Python's own values, or the index of the first token it refuses."""
    out = []
    for i, t in enumerate(tokens):
        try:
            out.append(parse(t.encode()))
        except (ValueError, OverflowError):
            return None, i
    return out, None


def _check_numbers(tokens, kind):
    """Read as Python reads them, but never 1_000 (refused, as C and the
    matrix reader refuse it)."""
    lines = _tokens_chunk(tokens)
    want, bad = _expect(plain_float if kind == "float" else plain_int, tokens)
    read = floats if kind == "float" else integers
    if bad is not None:
        with pytest.raises(FormatError) as e:
            read("f.txt", lines, 0, "the value")
        assert e.value.line == bad + 1
        return
    got = read("f.txt", lines, 0, "the value")
    if kind == "float":
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got.view(np.uint64), np.array(want).view(np.uint64))
    else:
        assert got.tolist() == want


def test_edge_numbers_read_bit_for_bit_as_python_does():
    for kind in ("float", "int"):
        good = [
            t
            for t in EDGE_NUMBERS
            if _expect(plain_float if kind == "float" else plain_int, [t])[1] is None
        ]
        good = [t for t in good if kind == "float" or -(2**63) <= int(t) < 2**63]
        _check_numbers(good, kind)
        for t in EDGE_NUMBERS:
            _check_numbers(["1", t, "2"], kind)
    # mantissas around the fast path's limits (15 digits, 10**22), where a
    # wider shortcut would round twice
    rng = np.random.default_rng(5)
    many = [
        f"{'-' if rng.random() < 0.3 else ''}{rng.integers(10 ** (n - 1), 10**n)}e{e}"
        for n, e in zip(rng.integers(13, 19, 4000).tolist(), rng.integers(-26, 27, 4000).tolist())
    ]
    many += [t[: len(t) // 2] + "." + t[len(t) // 2 :] for t in many[:2000]]
    _check_numbers(many, "float")


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
            st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda x: f"{x:.7g}"),
            st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17e}"),
            st.decimals(allow_nan=False, allow_infinity=False, places=6).map(str),
            st.integers(-(2**70), 2**70).map(str),
            st.text(NUMBER_CHARS, min_size=1, max_size=30),
            st.sampled_from(EDGE_NUMBERS),
        ),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from(["float", "int"]),
)
def test_numbers_read_bit_for_bit_as_python_does(tokens, kind):
    _check_numbers(tokens, kind)


ID_BYTES = st.binary(min_size=1, max_size=40).map(
    lambda b: bytes(c for c in b if c > 32 and c != 127) or b"x"
)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.one_of(
            ID_BYTES,
            st.text(st.characters(min_codepoint=33, max_codepoint=0x2FFF), min_size=1, max_size=20)
            .map(lambda s: s.encode())
            .filter(lambda b: not any(c in b" \t\r\n\x0b\x0c\x85" for c in b)),
            st.sampled_from(
                [
                    b"d1",
                    b"d1x",
                    b"d12345678",
                    b"d1234567",
                    b"a" * 16,
                    b"a" * 17,
                    b"a" * 32,
                    b"a" * 33,
                    b"a" * 40,
                    "é".encode(),
                    b"\xe9",
                ]
            ),
        ),
        min_size=1,
        max_size=60,
    )
)
def test_ids_grouped_as_bytes_split_gives_them(ids):
    ids = [i for i in ids if i.split() == [i]] or [b"x"]
    lines = tokenize(b"\n".join(ids) + b"\n")
    raw, inverse = lines.unique(0)
    first = list(dict.fromkeys(ids))
    assert raw == first
    assert [raw[i] for i in inverse.tolist()] == ids


def test_long_and_non_ascii_ids_in_a_run_and_qrels(tmp_path):
    docs = ["d1", "doc-12345678", "clueweb09-en0000-00-00000", "x" * 40, "é-ü", "d" * 16, "d" * 17]
    qrels = tmp_path / "a.qrels"
    qrels.write_bytes(
        "".join(f"q{i % 2}é 0 {d} {i % 3}\n" for i, d in enumerate(docs)).encode()
        + b"q1\xe9 0 latin\xe9 1\n"
    )
    a = read_qrels(qrels, collection_size=50)
    assert a.judgments("q0é") == {d: i % 3 for i, d in enumerate(docs) if i % 2 == 0 and i % 3}
    assert a.judgments("q1é") == {d: i % 3 for i, d in enumerate(docs) if i % 2 == 1 and i % 3}
    # Latin-1 bytes are another id than the UTF-8 spelling (as trec_eval compares bytes)
    assert a.judgments("q1\udce9") == {"latin\udce9": 1}
    run = tmp_path / "r.trec"
    run.write_bytes(
        "".join(f"q0é Q0 {d} {r} {10 - r} t\n" for r, d in enumerate(reversed(docs), 1)).encode()
    )
    r = read_trec_run(run, a)
    assert r.query_ids[0] == "q0é"
    assert [r.item_ids[j] for j in r.flat[r.indptr[0] : r.indptr[1]]] == list(reversed(docs))
