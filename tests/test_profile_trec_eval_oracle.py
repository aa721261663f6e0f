"""The trec_eval profile against pytrec_eval (trec_eval's own C code) on
random contests with fixed seeds: ties, zero-padded ids, unjudged documents
retrieved, queries missing from the run or from the qrels, and negative
grades (neither relevant nor judged).  map, P_10, ndcg_cut_10 and
recip_rank from ``--json`` to 1e-12, bpref from ``--format trec_eval -q -c``
at its 4 printed decimals, every query of the qrels."""

from __future__ import annotations

import contextlib
import io
import json
import random

import pytest
from shrec_eval.cli.parser import main

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = {"map": "ap_trec_r", "P_10": "p@10", "ndcg_cut_10": "ndcg@10", "recip_rank": "rr"}


def contest(seed: int, negative: bool) -> tuple[dict, dict]:
    """qrels {query: {doc: grade}} and a run {query: {doc: score}}."""
    rng = random.Random(seed)
    padded = rng.random() < 0.4
    docs = list(
        dict.fromkeys(
            f"{i:05d}" if padded and rng.random() < 0.5 else f"d{i}"
            for i in range(rng.randint(5, 200))
        )
    )
    grades = [0, 0, 1, 2, 3] + ([-1, -2] if negative else [])
    qrels, run = {}, {}
    for k in range(rng.randint(1, 10)):
        q = f"0{k}" if padded and k % 3 == 0 else f"q{k}"
        judged = rng.sample(docs, rng.randint(1, min(len(docs), 50)))
        qrels[q] = {d: rng.choice(grades) for d in judged}
        if rng.random() < 0.1:
            continue  # a query the run does not answer
        ties = rng.random() < 0.5
        retrieved = rng.sample(docs, rng.randint(1, len(docs)))
        run[q] = {d: round(rng.random(), 1) if ties else rng.random() for d in retrieved}
    if rng.random() < 0.3:
        run["extra"] = {docs[0]: 1.0}  # a query the qrels do not have
    return qrels, run


def _write(tmp_path, qrels, run):
    with open(tmp_path / "q.qrels", "w") as f:
        for q, judged in qrels.items():
            f.writelines(f"{q} 0 {d} {g}\n" for d, g in judged.items())
    with open(tmp_path / "r.trec", "w") as f:
        for q, scores in run.items():
            lines = enumerate(scores.items(), start=1)
            f.writelines(f"{q} Q0 {d} {i} {s!r} tag\n" for i, (d, s) in lines)


def _cli(argv) -> str:
    out = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):
        assert main([str(a) for a in argv], out=out) == 0
    return out.getvalue()


@pytest.mark.parametrize("negative", [False, True], ids=["grades 0-3", "with -1 and -2"])
@pytest.mark.parametrize("seed", range(12))
def test_trec_eval_profile_equals_pytrec_eval(tmp_path, seed, negative):
    qrels, run = contest(seed + 1000 * negative, negative)
    if not any(q in run for q in qrels):
        run[next(iter(qrels))] = {"d0": 1.0}  # trec_eval needs a query of both
    _write(tmp_path, qrels, run)
    files = [tmp_path / "q.qrels", tmp_path / "r.trec", "--profile", "trec_eval"]
    _cli(["evaluate", *files, "--json", tmp_path / "o.json", "--ranks", "5,10,100"])
    per_query = json.loads((tmp_path / "o.json").read_text())["runs"][0]["per_query"]
    text = _cli(["evaluate", *files, "--format", "trec_eval", "-q", "-c"])
    bpref = {
        ln.split("\t")[1]: float(ln.split("\t")[2])
        for ln in text.splitlines()
        if ln.startswith("bpref ")
    }
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P.10", "ndcg_cut.10", "recip_rank", "bpref"}
    ).evaluate(run)
    compared = 0
    for q, values in expected.items():
        for name, key in MEASURES.items():
            got = per_query[q][key]
            assert (0.0 if got is None else got) == pytest.approx(values[name], abs=1e-12), (
                q,
                name,
            )
        assert bpref[q] == pytest.approx(round(values["bpref"], 4), abs=5e-5 + 1e-9), q
        compared += 1
    assert compared == sum(1 for q in qrels if q in run)
    # -c: the queries the run misses score 0, bpref too
    assert all(bpref[q] == 0.0 for q in qrels if q not in run)
    if negative:  # what the case is about: a document of a negative grade retrieved
        assert any(qrels[q].get(d, 0) < 0 for q in expected for d in run[q])
