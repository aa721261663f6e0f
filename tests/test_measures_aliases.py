"""Measure names users know (trec_eval's, ir_measures', the SHREC toolkits'):
each resolves to the right registry key, and that key's values are the
tool's values (trec_eval's through pytrec_eval, where both compute the same
thing), under the profile the alias documents."""

from pathlib import Path

import numpy as np
import pytest
from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate
from shrec_eval.scoring.measures import ALIASES, UnknownMeasureError, expand, rank_of, resolve

#: every alias of the registry and the key it must give (ranks 5 and 10)
EXPECTED = {
    "map": "ap_trec_r",
    "P_5": "p@5",
    "P_10": "p@10",
    "recall_5": "r@5",
    "recall_10": "r@10",
    "ndcg_cut_5": "ndcg@5",
    "ndcg_cut_10": "ndcg@10",
    "Rprec": "ft_psb",
    "recip_rank": "rr",
    "num_rel_ret": "tp_r",
    **{f"iprec_at_recall_{j / 10:.2f}": f"iprec_{j / 10:.2f}" for j in range(11)},
    "AP": "ap_trec_r",
    "P@5": "p@5",
    "P@10": "p@10",
    "R@5": "r@5",
    "R@10": "r@10",
    "nDCG@5": "ndcg@5",
    "nDCG@10": "ndcg@10",
    "RR": "rr",
    "NumRelRet": "tp_r",
    **{f"IPrec@{j / 10:g}": f"iprec_{j / 10:.2f}" for j in range(11)},
    "NN": "nn",
    "FT": "ft_psb",
    "ST": "st_psb",
    "E": "e_measure",
    "DCG": "dcg_psb",
    "mean_average_precision_at_r": "map@r",
    "r_precision": "ft_psb",
    "precision_at_1": "nn",
}


def alias_names(ranks=(5, 10)):
    out = []
    for a in ALIASES:
        out += [a.name.replace("{k}", str(k)) for k in ranks] if "{k}" in a.name else [a.name]
    return out


def test_every_alias_resolves_to_its_key():
    assert sorted(alias_names()) == sorted(EXPECTED)
    for name, key in EXPECTED.items():
        assert resolve(name, "trec_eval") == key
    known = {m.key for m in expand((5, 10), "trec_eval")}
    assert set(EXPECTED.values()) <= known


def test_keys_resolve_to_themselves_at_any_rank():
    for m in expand((5, 10, 25, 50, 100), None):
        assert resolve(m.key) == m.key
    assert resolve("p@30") == "p@30" and rank_of("p@30") == 30
    assert resolve("P_20") == "p@20" and rank_of(resolve("R@1000")) == 1000
    assert rank_of("ap_trec_r") is None


def test_names_a_profile_does_not_compute_are_refused_with_the_profile():
    with pytest.raises(UnknownMeasureError, match="--profile trec_eval only"):
        resolve("recip_rank", "shrec")
    with pytest.raises(UnknownMeasureError, match="defined differently"):
        resolve("ndcg_cut_10", "shrec")  # trec_eval's discount is not the shrec one
    with pytest.raises(UnknownMeasureError, match="did you mean 'p@10' or 'P_10'"):
        resolve("p_10", "shrec")
    with pytest.raises(UnknownMeasureError, match="'map'"):
        resolve("mapp")
    # the names that hold everywhere per query stay accepted
    assert resolve("map", "shrec") == "ap_trec_r" and resolve("P_10", "boli") == "p@10"


def random_contest(seed, n_items=150, n_queries=25, cut=100):
    rng = np.random.default_rng(seed)
    items = [f"d{j:04d}" for j in range(n_items)]
    qrels, lists = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        rel = rng.choice(n_items, int(rng.integers(1, 30)), replace=False)
        qrels[qid] = {items[j]: int(g) for j, g in zip(rel, rng.integers(1, 3, rel.size))}
        score = rng.random(n_items)
        score[rel] += rng.random() * 1.5
        lists[qid] = [items[j] for j in np.argsort(-score, kind="stable")][:cut]
    return items, qrels, lists


def pytrec(qrels, lists, measures):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = {q: {d: float(len(v) - i) for i, d in enumerate(v)} for q, v in lists.items()}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


#: ir_measures' names are trec_eval's measures (its pytrec_eval provider)
IR_MEASURES = {
    "AP": "map",
    "P@5": "P_5",
    "P@10": "P_10",
    "R@5": "recall_5",
    "R@10": "recall_10",
    "nDCG@5": "ndcg_cut_5",
    "nDCG@10": "ndcg_cut_10",
    "RR": "recip_rank",
    "NumRelRet": "num_rel_ret",
    **{f"IPrec@{j / 10:g}": f"iprec_at_recall_{j / 10:.2f}" for j in range(11)},
}


def trec_eval_9_agrees(name, qrels, q):
    """trec_eval 9 (pytrec_eval) needs int(r R + 0.9) hits for a recall
    level; trec_eval 10, which the registry follows, lround(r R): compare
    the levels where both ask for the same number."""
    if not name.startswith("iprec"):
        return True
    r, R = float(name.rsplit("_", 1)[1]), len(qrels[q])
    return max(int(r * R + 0.9), 1) == max(int(np.floor(r * R + 0.5)), 1)


@pytest.mark.parametrize("seed", range(4))
def test_trec_eval_and_ir_measures_names_give_trec_eval_values(seed):
    items, qrels, lists = random_contest(seed)
    a = Assessment.from_judgments(qrels, items)
    run = RankedRun.from_lists("run", lists, a)
    res = evaluate(a, run, EvalOptions(profile="trec_eval"))
    pml = {"mean_average_precision_at_r", "r_precision", "precision_at_1"}
    te_names = [n for n in EXPECTED if (n[0].islower() or n == "Rprec") and n not in pml]
    peer = pytrec(
        qrels,
        lists,
        {"map", "P", "recall", "ndcg_cut", "Rprec", "recip_rank", "num_rel_ret", "iprec_at_recall"},
    )
    compared = 0
    for qi, q in enumerate(res.query_ids):
        for name in te_names + list(IR_MEASURES):
            te = IR_MEASURES.get(name, name)
            if not trec_eval_9_agrees(te, qrels, q):
                continue
            ours = res.column(resolve(name, "trec_eval"))[qi]
            assert ours == pytest.approx(peer[q][te], abs=1e-12), (name, q)
            compared += 1
    assert compared > 0.8 * len(res.query_ids) * (len(te_names) + len(IR_MEASURES))
    assert res.mean(resolve("map", "trec_eval")) == pytest.approx(
        np.mean([v["map"] for v in peer.values()]), abs=1e-12
    )


def test_recip_rank_of_a_list_without_hits_is_zero():
    a = Assessment.from_judgments({"q1": {"d1": 1}, "q2": {"d2": 1}}, ["d1", "d2", "d3"])
    run = RankedRun.from_lists("run", {"q1": ["d3", "d2", "d1"], "q2": ["d3"]}, a)
    res = evaluate(a, run, EvalOptions(profile="trec_eval"))
    assert res.column("rr").tolist() == [1 / 3, 0.0]
    assert res.column("iprec_1.00").tolist() == [1 / 3, 0.0]


@pytest.mark.parametrize("seed", range(3))
def test_shrec_names_are_the_toolkit_columns(seed):
    """NN is trec_eval's P_1, FT its Rprec, E its set_F over the first 32."""
    items, qrels, lists = random_contest(seed, cut=None)
    a = Assessment.from_judgments(qrels, items)
    res = evaluate(a, RankedRun.from_lists("run", lists, a))
    peer = pytrec(qrels, lists, {"P_1", "Rprec"})
    cut = pytrec(qrels, {q: v[:32] for q, v in lists.items()}, {"set_F"})
    for qi, q in enumerate(res.query_ids):
        assert res.column(resolve("NN"))[qi] == peer[q]["P_1"]
        assert res.column(resolve("FT"))[qi] == pytest.approx(peer[q]["Rprec"], abs=1e-12)
        assert res.column(resolve("E"))[qi] == pytest.approx(cut[q]["set_F"], abs=1e-12)


def test_trec_eval_names_give_the_trec_eval_binarys_values():
    """Against trec_eval 10's own -q output of its test files (shipped in
    tests/data/trec_eval): every trec_eval name in it that is an alias gives,
    per query, the value the binary printed (iprec_at_recall included, whose
    rounding differs from pytrec_eval's)."""
    from shrec_eval import load_assessment, load_run

    data = Path(__file__).parent / "data" / "trec_eval"
    a = load_assessment(data / "qrels.test", profile="trec_eval")
    run = load_run(data / "results.test", a)
    res = evaluate(
        a, run, EvalOptions(profile="trec_eval", ranks=(5, 10, 15, 20, 30, 100, 200, 500, 1000))
    )
    expected = (data / "expected" / "results_test.qrels_test_q.txt").read_text()
    checked = set()
    for line in expected.splitlines():
        name, qid, value = (f.strip() for f in line.split("\t"))
        if qid == "all":
            continue
        try:
            key = resolve(name, "trec_eval")
        except UnknownMeasureError:
            continue  # num_ret, num_rel, bpref: no registry measure of their own
        ours = res.value(qid, key)
        text = str(int(ours)) if "." not in value else f"{ours:6.4f}"
        assert text == value, (name, qid)
        checked.add(name)
    assert {"map", "Rprec", "recip_rank", "num_rel_ret", "P_10", "iprec_at_recall_0.50"} <= checked
    assert len(checked) >= 20
