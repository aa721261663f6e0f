"""``--format trec_eval``: shrec-eval prints what the trec_eval binary
(version 10.0) prints, byte for byte, for its default measures, per query
with -q, and with -M, -l, -c; on trec_eval's own test files and generated
contests (tests/data/trec_eval/README.md says how the expected outputs were
made; the binary is not needed here)."""

import io
from pathlib import Path

import numpy as np
import pytest
from shrec_eval.cli.parser import main

DATA = Path(__file__).parent / "data" / "trec_eval"
CASES = [line.rstrip("\n").split("\t") for line in (DATA / "cases.txt").read_text().splitlines()]


@pytest.mark.parametrize("qrels,run,options,expected", CASES, ids=lambda v: v or "default")
def test_output_is_trec_evals_byte_for_byte(capsys, qrels, run, options, expected):
    out = io.StringIO()
    argv = ["evaluate", str(DATA / qrels), str(DATA / run), "--profile", "trec_eval"]
    code = main(argv + ["--format", "trec_eval", *options.split()], out=out)
    assert code == 0
    assert out.getvalue().encode() == (DATA / expected).read_bytes()
    assert "note:" in capsys.readouterr().err  # the notes go to stderr, not into the output


def test_the_cases_cover_every_option():
    options = {o for _, _, opts, _ in CASES for o in opts.split() if o.startswith("-")}
    assert {"-q", "-M", "-l", "-c"} <= options
    assert "" in {opts for _, _, opts, _ in CASES}  # the default measure set alone
    assert {q for q, _, _, _ in CASES} >= {"qrels.test", "gen1.qrels", "gen2.qrels"}


def test_per_query_lines_and_the_summary(capsys):
    out = io.StringIO()
    argv = ["evaluate", str(DATA / "gen1.qrels"), str(DATA / "gen1.run")]
    main(argv + ["--profile", "trec_eval", "--format", "trec_eval", "-q", "-c"], out=out)
    lines = [ln.split("\t") for ln in out.getvalue().splitlines()]
    qids = list(dict.fromkeys(q for _, q, _ in lines if q != "all"))
    assert qids == sorted(qids) and "11" in qids and "99" not in qids  # -c: 11 scores 0
    rows = {(m.strip(), q): v for m, q, v in lines}
    assert rows[("num_ret", "11")] == "0" and rows[("map", "11")] == "0.0000"
    assert rows[("num_q", "all")] == str(len(qids))
    assert rows[("runid", "all")] == "gen1run"


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--format", "trec_eval"], "needs --profile trec_eval"),
        (["--profile", "trec_eval", "-q"], "goes with --format trec_eval"),
    ],
)
def test_misused_options_are_refused(capsys, argv, message):
    base = ["evaluate", str(DATA / "gen2.qrels"), str(DATA / "gen2.run")]
    assert main(base + argv, out=io.StringIO()) == 2
    assert message in capsys.readouterr().err


def test_qrels_keep_their_grade_0_judgments_for_bpref(tmp_path):
    from shrec_eval.reading.readers import load_assessment

    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 0\nq2 0 a 0\nq1 0 c 2\n")
    a = load_assessment(tmp_path / "q.qrels")
    indptr, items = a.judged_zero
    zero = {
        q: sorted(a.item_ids[i] for i in items[indptr[k] : indptr[k + 1]])
        for k, q in enumerate(a.query_ids)
    }
    assert zero == {"q1": ["b"], "q2": ["a", "c"]}
    assert a.judged_grades.tolist() == [1, 2]  # the relevant ones stay the judgments


def test_the_summary_adds_the_queries_one_after_another():
    # trec_eval's means are running sums in query order; numpy's sum adds in
    # pairs and differs in the last bits on such values
    from shrec_eval.profiles.trec_eval_text import _running_sum

    values = np.random.default_rng(1).random(1000)
    total = 0.0
    for v in values.tolist():
        total += v
    assert float(np.sum(values)) != total  # the inputs tell the two apart
    assert _running_sum(values) == total
    assert _running_sum(values[::-1]) != total
    assert _running_sum(np.zeros(0)) == 0.0


def test_queries_without_results_under_c_score_bpref_0(capsys):
    # -c: a query the run does not answer counts with bpref 0, its judged
    # documents never looked for in the run
    out = io.StringIO()
    argv = ["evaluate", str(DATA / "gen1.qrels"), str(DATA / "gen1.run")]
    main(argv + ["--profile", "trec_eval", "--format", "trec_eval", "-q", "-c"], out=out)
    rows = {(m.strip(), q): v for m, q, v in (ln.split("\t") for ln in out.getvalue().splitlines())}
    assert rows[("bpref", "11")] == "0.0000" and rows[("num_rel", "11")] != "0"


@pytest.mark.parametrize("remove_self", [True, False])
def test_bpref_gathers_the_judged_nonrelevant_of_the_answered_queries_only(tmp_path, remove_self):
    """bpref's judged non-relevant documents (grade 0 lines and grades below
    -l, never the query itself when its lists leave it out) are counted for
    every query but gathered and sorted only for the queries a run answers:
    under -c, 80,000 queries of which the run answers one are not sorted
    for it (that was 100 MiB at the text's peak)."""
    from dataclasses import replace

    from shrec_eval.profiles.trec_eval_text import judged_nonrelevant
    from shrec_eval.reading.readers import load_assessment

    rng = np.random.default_rng(5)
    lines = [
        f"q{q} 0 d{d} {rng.integers(-1, 4)}\n"
        for q in range(9)
        for d in rng.choice(30, rng.integers(0, 12), replace=False)
    ]
    (tmp_path / "q.qrels").write_text("".join(lines) + "q9 0 d3 1\n")
    a = load_assessment(tmp_path / "q.qrels", collection_size=40)
    zptr, zitems = a.judged_zero
    own = np.full(a.n_queries, -1)

    def want(q):
        at = slice(a.indptr[q], a.indptr[q + 1])
        low = a.judged_items[at][a.judged_grades[at] < 2]
        got = sorted([*low.tolist(), *zitems[zptr[q] : zptr[q + 1]].tolist()])
        return [i for i in got if not (remove_self and i == own[q])]

    # queries that are items of the collection (a leave-one-out contest),
    # each judging itself non-relevant
    some = [q for q in range(a.n_queries) if len(want(q)) > 1]
    for q in some[:3]:
        own[q] = want(q)[-1]
    a = replace(a, query_items=own)
    asked = np.zeros(a.n_queries, bool)
    asked[[some[0], some[2], some[3], a.n_queries - 1]] = True
    for queries in (None, asked):
        counts, indptr, items = judged_nonrelevant(a, 2, remove_self, queries)
        assert counts.tolist() == [len(want(q)) for q in range(a.n_queries)]
        for q in range(a.n_queries):
            rows = items[indptr[q] : indptr[q + 1]].tolist()
            assert rows == (want(q) if queries is None or queries[q] else []), q
    assert sum(counts) > len(items) > 0


@pytest.mark.parametrize(
    "ids",
    [
        ["10", "9", "b\u00e9", "a"],
        ["q\udce9", "q\u00e9", "q"],  # a byte that was not UTF-8, read as trec_eval reads it
        ["q\ud800", "p"],  # a lone surrogate that never was a byte (a library's string)
        ["a\nb", "a"],  # a line end in an id (a library's string)
        [],
    ],
)
def test_query_ids_are_ordered_by_their_bytes_encoded_at_once(ids):
    """trec_eval's order of the queries is that of their ids' bytes: all
    the ids encoded in one call (80,000 queries: a tenth of the text's
    time was their one by one encoding), each as name_bytes gives it."""
    from shrec_eval.model.names import name_bytes
    from shrec_eval.profiles.trec_eval_text import _id_bytes

    assert _id_bytes(tuple(ids)) == [name_bytes(q) for q in ids]
