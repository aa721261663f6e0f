"""Property tests: the vectorised engine against the deliberately simple
per-query oracle of tests/reference.py, on random graded assessments and
random (truncated, empty, missing) runs, leave-one-out and external."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference_curves, reference_query
from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate
from tiers import examples

RANKS = (1, 3, 5, 10)
CURVE = 12


@st.composite
def contests(draw):
    ds = draw(st.integers(1, 40))
    # grade levels: binary, SHREC 2006, or sparse TREC-like levels
    levels = draw(st.sampled_from([[1], [1, 2], [1, 2, 3], [2, 5], [1, 4, 7]]))
    top = levels[-1]
    mode = draw(st.sampled_from(["external", "leave-one-out", "mixed"]))
    items = [f"m{j}" for j in range(ds)]
    nq = draw(st.integers(1, 6)) if mode == "external" else draw(st.integers(1, min(ds, 6)))
    if mode == "external":
        queries, selfs = [f"q{i}" for i in range(nq)], {}
    elif mode == "leave-one-out":
        queries, selfs = items[:nq], {q: q for q in items[:nq]}
    else:  # some queries are collection items, others are not
        queries = [f"q{i}" for i in range(nq)]
        selfs = {q: items[i] for i, q in enumerate(queries) if draw(st.booleans())}
    judgments, lists = {}, {}
    for q in queries:
        grades = draw(st.lists(st.sampled_from([0] + levels), min_size=ds, max_size=ds))
        judgments[q] = {it: g for it, g in zip(items, grades) if g > 0}
        if draw(st.integers(0, 9)) == 0:
            continue  # query missing from the run
        perm = draw(st.permutations(items))
        length = draw(st.integers(0, ds))
        lists[q] = list(perm[:length])
    remove_self = draw(st.booleans())
    a = Assessment.from_judgments(
        judgments, items, queries=queries, query_items=selfs, top_grade=top
    )
    return a, lists, judgments, selfs if remove_self else {}, remove_self


def oracle_inputs(q, items_all, lists, judgments, selfs):
    ranked = list(lists.get(q, []))
    judged = dict(judgments[q])
    ds = len(items_all)
    if q in selfs:
        ranked = [it for it in ranked if it != selfs[q]]
        judged.pop(selfs[q], None)
        ds -= 1
    gains = [judged.get(it, 0) for it in ranked]
    return gains, list(judged.values()), ds


def close(got, want):
    if want is None:
        return math.isnan(got)
    return not math.isnan(got) and abs(got - want) <= 1e-9 * max(1.0, abs(want))


@pytest.mark.slow
@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contests(), st.sampled_from([1, 2**12, 2**30]))
def test_engine_matches_oracle(contest, budget):
    a, lists, judgments, self_removed, remove_self = contest
    run = RankedRun.from_lists("r", lists, a)
    opts = EvalOptions(
        ranks=RANKS, curve_length=CURVE, pr_levels=11, remove_self=remove_self, memory_budget=budget
    )
    res = evaluate(a, run, opts)
    for qi, q in enumerate(a.query_ids):
        gains, judged, ds = oracle_inputs(q, a.item_ids, lists, judgments, self_removed)
        ref = reference_query(gains, judged, ds, a.top_grade, ranks=RANKS)
        for key, want in ref.items():
            got = res.column(key)[qi]
            assert close(got, want), (q, key, got, want, gains, judged, ds)
        curves = reference_curves(gains, judged, ds, a.top_grade, length=CURVE, levels=11)
        for key, mine in (
            ("cg", "cg"),
            ("dcg", "dcg"),
            ("ncg", "ncg"),
            ("ndcg", "ndcg"),
            ("pr", "pr"),
            ("f", "f"),
            ("cg_at_recall", "cg_recall"),
            ("dcg_at_recall", "dcg_recall"),
        ):
            want = curves[key]
            got = res.curves[mine].per_query[qi]
            assert len(got) == len(want)
            for x, (g, w) in enumerate(zip(got, want)):
                assert close(g, w), (q, key, x, g, w, gains, judged)
    # means: over defined values only
    for key in ("ap_r", "ndcg@10", "adr", "tp_hr"):
        col = res.column(key)
        ok = ~np.isnan(col)
        want = col[ok].mean() if ok.any() else None
        got = res.mean(key)
        assert (got is None and want is None) or abs(got - want) < 1e-12
        assert res.n_undefined(key) == int((~ok).sum())
