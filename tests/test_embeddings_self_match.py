"""Feature vectors scored against TREC qrels whose queries are collection
items: the query's own feature row is that item's, so the item is the query
itself, taken out of its list as a leave-one-out query's is (docs/embeddings.md,
"Self-matches")."""

from __future__ import annotations

import io

import numpy as np
import pytest
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.cli.parser import main as cli_main

CLASSES = 3
PER_CLASS = 4


def _contest(tmp_path):
    """12 items in 3 tight clusters; every item is a query of the qrels (its
    cluster's other items relevant), the collection listed in a file."""
    rng = np.random.default_rng(4)
    ids = [f"s{i:02d}" for i in range(CLASSES * PER_CLASS)]
    centres = rng.normal(size=(CLASSES, 8)) * 10
    feats = np.repeat(centres, PER_CLASS, axis=0) + rng.normal(size=(len(ids), 8)) * 0.1
    np.savez(tmp_path / "feats.npz", features=feats.astype(np.float32), ids=np.array(ids))
    lines = []
    for q in range(len(ids)):
        for t in range(len(ids)):
            if t != q and t // PER_CLASS == q // PER_CLASS:
                lines.append(f"{ids[q]} 0 {ids[t]} 1\n")
    (tmp_path / "q.qrels").write_text("".join(lines))
    (tmp_path / "ids.txt").write_text("".join(f"{i}\n" for i in ids))
    return tmp_path / "q.qrels", tmp_path / "ids.txt", tmp_path / "feats.npz"


@pytest.mark.parametrize("top_k", [None, 3])
def test_the_querys_own_item_is_taken_out(tmp_path, top_k):
    qrels, ids, feats = _contest(tmp_path)
    a = load_assessment(qrels, collection=ids)
    assert (a.query_items < 0).all()  # qrels: the assessment itself does not know
    run = load_run(feats, a, top_k=top_k)
    res = evaluate(a, run)
    # every query's nearest other item is of its cluster
    assert res.mean("nn") == 1.0 and res.mean("ap_trec_r") == 1.0
    assert any(w.code == "self_match" for w in res.warnings)
    kept = evaluate(a, run, EvalOptions(remove_self=False))
    assert kept.mean("nn") == 0.0  # its own item first, not judged relevant to itself


def test_the_command_line_says_so_and_keep_self_keeps_it(tmp_path):
    qrels, ids, feats = _contest(tmp_path)
    out = io.StringIO()
    code = cli_main(
        ["evaluate", str(qrels), "--collection", str(ids), str(feats), "--columns", "nn"], out=out
    )
    assert code == 0
    text = out.getvalue()
    assert text.splitlines()[2].split()[2] == "1.0000"
    assert "each one's own item is in its list" in text
    out = io.StringIO()
    cli_main(
        ["evaluate", str(qrels), "--collection", str(ids), str(feats), "--columns", "nn",
         "--keep-self"],
        out=out,
    )  # fmt: skip
    assert out.getvalue().splitlines()[2].split()[2] == "0.0000"
