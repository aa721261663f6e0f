"""Against a peer: pytrec-eval-terrier (trec_eval) on the same input.

map = mean ap_trec_r, P_1 = nn, Rprec = ft_psb (= ft_r) on full lists,
set_F on lists cut at 32 (trec_eval -M32) = e_measure, recall_100 = rec_r of
a list cut at 100, iprec_at_recall = the max-interpolated 11-point curve; with
relevance_level=2 the highly relevant variants (map = ap_trec_hr, Rprec =
ft_hr, recall_100 = rec_hr of the cut list)."""

import numpy as np
import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate  # noqa: E402


def random_contest(seed, n_items=150, n_queries=25):
    rng = np.random.default_rng(seed)
    items = [f"d{j:04d}" for j in range(n_items)]
    qrels, lists = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        n_rel = int(rng.integers(1, 30))
        rel = rng.choice(n_items, n_rel, replace=False)
        grades = rng.integers(1, 3, n_rel)
        if not (grades == 2).any():
            grades[0] = 2
        qrels[qid] = {items[j]: int(g) for j, g in zip(rel, grades)}
        # a ranking better than chance: relevant items get a head start
        score = rng.random(n_items)
        score[rel] += rng.random() * grades
        lists[qid] = [items[j] for j in np.argsort(-score, kind="stable")]
    return items, qrels, lists


def trec_run(lists, cut=None):
    # strictly decreasing scores so that trec_eval keeps our order
    return {
        q: {d: float(len(ranked) - i) for i, d in enumerate(ranked[:cut])}
        for q, ranked in lists.items()
    }


def ours(items, qrels, lists, cut=None):
    a = Assessment.from_judgments(qrels, items)
    run = RankedRun.from_lists("run", {q: v[:cut] for q, v in lists.items()}, a)
    return evaluate(a, run, EvalOptions(pr_levels=11))


def peer(qrels, run, measures, level=1):
    ev = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level)
    return ev.evaluate(run)


@pytest.mark.parametrize("seed", range(5))
def test_full_lists(seed):
    items, qrels, lists = random_contest(seed)
    res = ours(items, qrels, lists)
    p1 = peer(qrels, trec_run(lists), {"map", "P_1", "Rprec", "iprec_at_recall"})
    p2 = peer(qrels, trec_run(lists), {"map", "Rprec"}, level=2)
    compared = 0
    for qi, q in enumerate(res.query_ids):
        assert res.column("ap_trec_r")[qi] == pytest.approx(p1[q]["map"], abs=1e-12)
        assert res.column("nn")[qi] == p1[q]["P_1"]
        assert res.column("ft_psb")[qi] == pytest.approx(p1[q]["Rprec"], abs=1e-12)
        assert res.column("ft_r")[qi] == pytest.approx(p1[q]["Rprec"], abs=1e-12)
        assert res.column("ap_trec_hr")[qi] == pytest.approx(p2[q]["map"], abs=1e-12)
        assert res.column("ft_hr")[qi] == pytest.approx(p2[q]["Rprec"], abs=1e-12)
        # trec_eval needs int(r * R + 0.9) hits for recall level r (its historical
        # rounding); the spec asks for recall >= r, i.e. ceil(r * R) hits.  Compare
        # the levels where both ask for the same number of hits.
        R = len(qrels[q])
        for j in range(11):
            if int(j / 10 * R + 0.9) == -(-j * R // 10):
                compared += 1
                assert res.curves["pr"].per_query[qi, j] == pytest.approx(
                    p1[q][f"iprec_at_recall_{j / 10:.2f}"], abs=1e-12
                )
    assert compared > 11 * len(res.query_ids) // 2
    assert res.mean("ap_trec_r") == pytest.approx(
        np.mean([v["map"] for v in p1.values()]), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(5))
def test_e_measure_is_set_f_at_32(seed):
    items, qrels, lists = random_contest(seed)
    res = ours(items, qrels, lists)
    p = peer(qrels, trec_run(lists, cut=32), {"set_F"})
    for qi, q in enumerate(res.query_ids):
        assert res.column("e_measure")[qi] == pytest.approx(p[q]["set_F"], abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_recall_100_is_rec_of_cut_list(seed):
    items, qrels, lists = random_contest(seed)
    res = ours(items, qrels, lists, cut=100)
    p1 = peer(qrels, trec_run(lists, cut=100), {"recall_100"})
    p2 = peer(qrels, trec_run(lists, cut=100), {"recall_100"}, level=2)
    for qi, q in enumerate(res.query_ids):
        assert res.column("rec_r")[qi] == pytest.approx(p1[q]["recall_100"], abs=1e-12)
        assert res.column("r@100")[qi] == pytest.approx(p1[q]["recall_100"], abs=1e-12)
        assert res.column("rec_hr")[qi] == pytest.approx(p2[q]["recall_100"], abs=1e-12)


def test_truncated_lists_map(seed=7):
    # trec_eval's AP divides by all relevant items, retrieved or not
    items, qrels, lists = random_contest(seed)
    res = ours(items, qrels, lists, cut=40)
    p = peer(qrels, trec_run(lists, cut=40), {"map"})
    for qi, q in enumerate(res.query_ids):
        assert res.column("ap_trec_r")[qi] == pytest.approx(p[q]["map"], abs=1e-12)


@pytest.mark.parametrize("normalize", [True, False])
def test_d03_trec_order_of_zero_padded_ids_matches_trec_eval(tmp_path, normalize):
    """Tied scores, zero-padded ids (ShapeNet style): --trec-order breaks
    ties on the docnos as written, as trec_eval does, whether or not the ids
    are normalised afterwards."""
    import random

    from shrec_eval.reading.readers import load_assessment, load_run

    random.seed(0)
    qrels, run = {}, {}
    for qi in range(40):
        q = f"t{qi}"
        docs = [f"{j:06d}" for j in random.sample(range(2000), 60)]
        qrels[q] = {d: random.choice([0, 1, 2]) for d in docs[:40]}
        run[q] = [(d, random.choice([1.0, 2.0])) for d in docs]
    with open(tmp_path / "z.qrels", "w") as f:
        for q, d in qrels.items():
            f.writelines(f"{q} 0 {doc} {g}\n" for doc, g in d.items())
    with open(tmp_path / "z.trec", "w") as f:
        for q, lst in run.items():
            f.writelines(f"{q} Q0 {doc} {r} {s} tag\n" for r, (doc, s) in enumerate(lst, 1))
    pe = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5"}).evaluate(
        {q: {d: s for d, s in lst} for q, lst in run.items()}
    )
    a = load_assessment(tmp_path / "z.qrels", collection_size=5000, normalize_ids=normalize)
    r = evaluate(a, load_run(tmp_path / "z.trec", a, trec_order=True))
    for q in pe:
        assert r.value(q, "ap_trec_r") == pytest.approx(pe[q]["map"], abs=1e-12)
        assert r.value(q, "p@5") == pytest.approx(pe[q]["P_5"], abs=1e-12)
