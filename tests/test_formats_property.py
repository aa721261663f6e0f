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
from shrec_eval.formats.source import Source
from shrec_eval.formats.trec import read_qrels, read_trec_run
from shrec_eval.readers import load_assessment, load_run

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
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
