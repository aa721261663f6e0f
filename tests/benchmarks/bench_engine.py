"""Benchmark of the metric engine against pytrec-eval-terrier (trec_eval).

Not a test: run it by hand and put the figures in the issue note.

    python tests/benchmarks/bench_engine.py [--only w1|w2] [--repeat N]

Two synthetic contests, 10 relevant items per query (5 of grade 2, 5 of
grade 1), ranked so that relevant items tend to come early:

* w1: 2,000 queries x full ranked lists of a 2,000-item collection;
* w2: 10,000 queries x ranked lists of 1,000 items (truncated lists of a
  10,000-item collection, the ShapeNet case).

On the same data already in memory it times our engine computing every
measure of the registry and every curve, and pytrec_eval's ``evaluate``
computing map, P_1, Rprec, ndcg_cut_100 and recall_100 on dicts built
beforehand (building them is not timed).  It reports the ratio
ours / pytrec_eval (target <= 0.25 on w2) and the engine's peak memory
(tracemalloc peak of everything allocated while scoring; target <= 1 GiB).
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import time
import tracemalloc

import numpy as np
from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate

PEER_MEASURES = {"map", "P_1", "Rprec", "ndcg_cut_100", "recall_100"}


def make_contest(n_queries: int, n_items: int, list_len: int, seed: int = 0):
    """Judgments and ranked lists as index arrays (what the readers produce)."""
    rng = np.random.default_rng(seed)
    rel = np.empty((n_queries, 10), dtype=np.int64)
    for q in range(n_queries):
        rel[q] = rng.choice(n_items, 10, replace=False)
    grades = np.tile([2] * 5 + [1] * 5, (n_queries, 1))
    # scores: noise, relevant items get a head start of random size
    lists = np.empty((n_queries, list_len), dtype=np.int32)
    for q in range(n_queries):
        score = rng.random(n_items)
        score[rel[q]] -= rng.random(10) * 0.9
        if list_len < n_items:
            top = np.argpartition(score, list_len)[:list_len]
            lists[q] = top[np.argsort(score[top], kind="stable")]
        else:
            lists[q] = np.argsort(score, kind="stable")
    return rel, grades, lists


def build_ours(rel, grades, lists, n_items):
    items = [f"d{j}" for j in range(n_items)]
    qids = [f"q{q}" for q in range(len(rel))]
    judg = {q: {items[j]: int(g) for j, g in zip(r, gr)} for q, r, gr in zip(qids, rel, grades)}
    a = Assessment.from_judgments(judg, items, top_grade=2)
    n, L = lists.shape
    run = RankedRun("bench", qids, np.arange(0, n * L + 1, L), lists.ravel(), n_items)
    return a, run, judg, qids, items


def build_peer(judg, qids, items, lists):
    run = {}
    for q, row in zip(qids, lists):
        L = len(row)
        run[q] = {items[j]: float(L - i) for i, j in enumerate(row.tolist())}
    return judg, run


def time_best(fn, repeat):
    best = float("inf")
    out = None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench(name, n_queries, n_items, list_len, repeat):
    import pytrec_eval

    print(
        f"\n== {name}: {n_queries} queries x lists of {list_len} "
        f"(collection {n_items}), 10 relevant per query"
    )
    rel, grades, lists = make_contest(n_queries, n_items, list_len)
    a, run, judg, qids, items = build_ours(rel, grades, lists, n_items)
    opts = EvalOptions()
    t_ours, res = time_best(lambda: evaluate(a, run, opts), repeat)
    n_values = res.values.size + sum(c.per_query.size for c in res.curves.values())
    print(
        f"ours: every measure ({len(res.keys)}) and curve ({len(res.curves)}): "
        f"{t_ours:.3f} s ({n_values / 1e6:.1f} M values)"
    )

    tracemalloc.start()
    tracemalloc.reset_peak()
    evaluate(a, run, opts)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    inputs = run.flat.nbytes + run.indptr.nbytes
    print(
        f"ours: peak memory while scoring {peak / 2**20:.0f} MiB "
        f"(input run {inputs / 2**20:.0f} MiB, not counted)"
    )

    qrels, prun = build_peer(judg, qids, items, lists)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, PEER_MEASURES)
    t_peer, peer = time_best(lambda: evaluator.evaluate(prun), repeat)
    print(f"pytrec_eval evaluate ({', '.join(sorted(PEER_MEASURES))}): {t_peer:.3f} s")
    # the numbers agree where the measures coincide
    ap = np.array([peer[q]["map"] for q in qids])
    assert np.allclose(ap, res.column("ap_trec_r"), atol=1e-12)
    print(f"ratio ours / pytrec_eval = {t_ours / t_peer:.3f}")
    return t_ours, t_peer, peak


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", choices=["w1", "w2"])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    import pytrec_eval  # noqa: F401

    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"{os.cpu_count()} cpus, {platform.machine()}"
    )
    if args.only in (None, "w1"):
        bench("w1", 2000, 2000, 2000, args.repeat)
    if args.only in (None, "w2"):
        bench("w2", 10000, 10000, 1000, args.repeat)


if __name__ == "__main__":
    main()
