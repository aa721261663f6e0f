"""What the measures with parameters are worth: every variant against values
computed by hand on small lists, against the plain-loop oracle of
tests/reference.py (hypothesis: random contests, random parameters, cutoffs
inside and past the prefix the engine keeps dense), and against
pytrec-eval-terrier where trec_eval computes the same measure (ndcg_cut_K,
ndcg, map_cut_K, P_K, recall_K and Rprec at relevance levels 1 and 2)."""

import math

import numpy as np
import pytest
from helpers import gains_contest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import reference_param
from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate
from shrec_eval.scoring.families import BY_NAME
from test_measures_oracle_property import close, contests, oracle_inputs
from tiers import examples

L2 = math.log2

# -- the motivating case: NDCG as a SHREC track's scorer computes it ----------------------

# four relevant items, three retrieved: the ideal made of the retrieved hits
# differs from the one made of every judged item
MISSING_ONE = {"q": ([0, 1, 1, 0, 1], [1, 1, 1, 1])}


def scores(cases, names, ds=12, top=2, **options):
    a, run = gains_contest(cases, ds=ds, top=top)
    r = evaluate(a, run, EvalOptions(measures=names, **options))
    return r, {n: r.mean(n) for n in names}


def test_ndcg_log2_from_1_over_the_retrieved_hits_is_the_hand_value():
    name = "ndcg(discount=log2_from_1,ideal=retrieved)"
    r, got = scores(MISSING_ONE, [name, "ndcg(discount=log2_from_1)"], top=1)
    # gain / log2(rank + 1) from rank 1 over the whole list; ideal: the 3 hits first
    dcg = 1 / L2(3) + 1 / L2(4) + 1 / L2(6)
    assert got[name] == pytest.approx(dcg / (1 / L2(2) + 1 / L2(3) + 1 / L2(4)), abs=1e-15)
    assert got[name] == pytest.approx(0.7122631, abs=1e-7)
    # the ideal of every judged item: a fourth term
    every = 1 / L2(2) + 1 / L2(3) + 1 / L2(4) + 1 / L2(5)
    assert got["ndcg(discount=log2_from_1)"] == pytest.approx(dcg / every, abs=1e-15)
    # and the default NDCG (rank 1 undiscounted, then log2 rank) is neither
    default = r.mean("ndcg@100")
    assert default == pytest.approx((1 + 1 / L2(3) + 1 / L2(5)) / (2 + 1 / L2(3) + 1 / L2(4)))
    assert (
        abs(default - got[name]) > 0.05 and abs(got["ndcg(discount=log2_from_1)"] - got[name]) > 0.1
    )


# a graded list (top grade 2): grades at ranks 1..7, five relevant items judged
E = {"q": ([2, 0, 1, 0, 1, 2, 0], [2, 2, 1, 1, 1])}
# precisions at the hits (grade >= 1): ranks 1, 3, 5, 6
AP_SUM = 1 + 2 / 3 + 3 / 5 + 4 / 6
AP_SUM_5 = 1 + 2 / 3 + 3 / 5

HAND = {
    # counts of grade >= 2: V = 2 (ranks 1, 6), C = 2, Va = 7, Ds = 12
    "tp(rel=2)": 2,
    "fp(rel=2)": 5,
    "fn(rel=2)": 0,
    "tn(rel=2)": 12 + 2 - 7 - 2,
    "acc(rel=2)": 7 / 12,
    "fn": 1,  # grade >= 1: 5 judged, 4 retrieved
    # precision and recall
    "p(rel=2)@5": 1 / 5,
    "p(rel=2)": 2 / 7,
    "p@R": 3 / 5,
    "p(rel=2)@R": 1 / 2,
    "r(rel=2)@5": 1 / 2,
    "r@3": 2 / 5,
    "r": 4 / 5,
    "r@R": 3 / 5,
    # first tier: T = 5 (C), 4 (C - 1)
    "ft": 3 / 5,
    "ft(tier=C-1)": 2 / 4,
    "ft(divide=min_va)": 3 / 5,
    "ft(plus_one=true)": 4 / 5,
    "ft(rel=2)": 1 / 2,
    "ft(rel=top,tier=C-1)": 1 / 1,
    # second tier: the first 2T = 10 (the 7 of the list)
    "st": 4 / 5,
    "st(divide=2T)": 4 / 10,
    "st(divide=min_va)": 4 / 7,
    "st(divide=2T,plus_one=true)": 5 / 10,
    # the 5th relevant item is not retrieved: SHREC 2021's ST stays 1
    "st(divide=2T,plus_one=true,early_exit=1)": 1.0,
    "st(tier=C-1)": 4 / 4,
    "st(rel=2)": 1 / 2,
    # the 2nd grade-2 item is at rank 6 >= 2T = 4: computed
    "st(rel=2,early_exit=1)": 1 / 2,
    # average precision
    "ap": AP_SUM / 5,
    "ap(divide=found)": AP_SUM / 4,
    "ap@5": AP_SUM_5 / 5,
    "ap(divide=found)@5": AP_SUM_5 / 3,
    "ap(divide=min_k)@3": (1 + 2 / 3) / 3,
    "ap(divide=min_k)": AP_SUM / 5,
    "ap(rel=2)": (1 + 2 / 6) / 2,
    "ap@R": AP_SUM_5 / 5,
    # E: F1 over the first min(K, Ds)
    "e@4": 2 * 2 / (4 + 5),
    "e@R": 2 * 3 / (5 + 5),
    "e(rel=2)@4": 2 * 1 / (4 + 2),
    # cumulated gains
    "dcg(gain=exp2,discount=log2_from_1)@4": 3 / L2(2) + 1 / L2(4),
    "dcg(discount=none)@5": 4,
    "dcg(gain=binary,discount=none)": 4,
    "dcg(discount=log2_from_1)": 2 / L2(2) + 1 / L2(4) + 1 / L2(6) + 2 / L2(7),
    "ndcg(gain=binary)": (1 + 1 / L2(3) + 1 / L2(5) + 1 / L2(6))
    / (1 + 1 + 1 / L2(3) + 1 / L2(4) + 1 / L2(5)),
    "ndcg(gain=exp2,discount=log2_from_1,ideal=retrieved)@3": (3 + 1 / L2(4))
    / (3 + 3 / L2(3) + 1 / L2(4)),
    "ndcg@R": (2 + 1 / L2(3) + 1 / L2(5)) / (2 + 2 + 1 / L2(3) + 1 / L2(4) + 1 / L2(5)),
    "ndcg(discount=none,ideal=retrieved)@2": 2 / (2 + 2),
    "ndcg(gain=exp2)": (3 + 1 / L2(3) + 1 / L2(5) + 3 / L2(6))
    / (3 + 3 + 1 / L2(3) + 1 / L2(4) + 1 / L2(5)),
}


@pytest.mark.parametrize("name", list(HAND))
def test_every_variant_is_the_hand_value(name):
    _, got = scores(E, [name], ds=12, top=2)
    assert got[name] == pytest.approx(HAND[name], abs=1e-15), name


def test_the_same_values_past_the_prefix_the_engine_keeps():
    """K deeper than the options' ranks and curve (the dense prefix): the
    sums come from the hits and the ideal from the grade counts; the same
    values as within it."""
    names = [
        "ndcg(gain=exp2,discount=log2_from_1)@6",
        "ndcg(ideal=retrieved)@7",
        "dcg@6",
        "p(rel=2)@6",
        "ap(divide=min_k)@6",
        "e@7",
    ]
    _, deep = scores(E, names, ds=12, top=2, ranks=(1,), curve_length=2)
    _, wide = scores(E, names, ds=12, top=2)
    assert deep == pytest.approx(wide, abs=1e-15)
    assert deep["ndcg(gain=exp2,discount=log2_from_1)@6"] == pytest.approx(
        (3 + 1 / L2(4) + 1 / L2(6) + 3 / L2(7))
        / (3 + 3 / L2(3) + 1 / L2(4) + 1 / L2(5) + 1 / L2(6))
    )


def test_st_early_exit_when_every_relevant_item_comes_before_2t():
    # both relevant items in the first 2: the loop ends before rank 2T = 4
    cases = {"q": ([1, 1, 0, 0], [1, 1])}
    names = ["st(divide=2T,plus_one=true,early_exit=1)", "st(divide=2T,plus_one=true)"]
    _, got = scores(cases, names, ds=6, top=1)
    assert got == {names[0]: 1.0, names[1]: 3 / 4}


def test_st_early_exit_when_the_tier_is_empty_and_nothing_is_retrieved():
    # C = 1 and tier C-1: 2T = 0; the one relevant item never retrieved is not
    # retrieved at rank 2T or later, so the early exit's 1.0 stands (as for 2T > 0)
    cases = {"q": ([0, 0, 0], [1]), "r": ([0, 0, 0], [1, 1, 1])}
    name = "st(tier=C-1,divide=T,plus_one=false,early_exit=1)"
    r, _ = scores(cases, [name], ds=8, top=1)
    assert r.value("q", name) == 1.0 and r.value("r", name) == 1.0
    # found at the first rank, 2T = 0: computed as the parameters say (0 hits / T = 0)
    r, _ = scores({"q": ([1, 0, 0], [1])}, [name], ds=8, top=1)
    assert r.value("q", name) == 0.0


def test_ap_divided_by_the_largest_class_of_the_contest():
    cases = {"q": E["q"], "big": ([1] * 3, [1] * 8)}
    r, _ = scores(cases, ["ap(divide=contest_max)"], ds=12, top=2)
    assert r.value("q", "ap(divide=contest_max)") == pytest.approx(AP_SUM / 8, abs=1e-15)
    assert r.value("big", "ap(divide=contest_max)") == pytest.approx(3 / 8, abs=1e-15)


def test_undefined_where_nothing_is_to_be_found():
    """rel=3 on grades up to 2: nothing to find, as a measure of C = 0 is;
    the counts, precision and DCG stay defined."""
    names = ["ft(rel=3)", "ap(rel=3)", "r(rel=3)@5", "e(rel=3)@4", "p(rel=3)@5", "tp(rel=3)"]
    r, got = scores(E, names, ds=12, top=2)
    assert [got[n] for n in names] == [None, None, None, None, 0.0, 0.0]
    assert r.n_undefined("ft(rel=3)") == 1


# -- the oracle ------------------------------------------------------------------------


@st.composite
def bindings(draw):
    family = BY_NAME[draw(st.sampled_from(sorted(BY_NAME)))]
    values = {}
    for p in family.params:
        choices = list(p.values) + (["2", "3", "5"] if p.grade else [])
        values[p.name] = draw(st.sampled_from(choices))
    at = None
    if family.at:
        at = draw(
            st.sampled_from(
                ["R"] + list(range(1, 16)) + ([None] if family.at == "optional" else [])
            )
        )
    text = f"{family.name}({','.join(f'{k}={v}' for k, v in values.items())})"
    return family.name, values, at, text + ("" if at is None else f"@{at}")


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contests(), st.lists(bindings(), min_size=1, max_size=6))
def test_engine_matches_the_oracle(contest, measures):
    """Cutoffs up to 15 against a prefix of 4 ranks: both ways of summing."""
    a, lists, judgments, self_removed, remove_self = contest
    run = RankedRun.from_lists("r", lists, a)
    names = [m[3] for m in measures]
    opts = EvalOptions(ranks=(1, 3), curve_length=4, remove_self=remove_self, measures=names)
    res = evaluate(a, run, opts)
    inputs = [oracle_inputs(q, a.item_ids, lists, judgments, self_removed) for q in a.query_ids]
    contest_max = max((len(judged) for _, judged, _ in inputs), default=0)
    for family, values, at, name in measures:
        col = res.column(name)
        for qi, (gains, judged, ds) in enumerate(inputs):
            want = reference_param(family, values, at, gains, judged, ds, a.top_grade, contest_max)
            assert close(col[qi], want), (name, a.query_ids[qi], col[qi], want, gains, judged, ds)


def test_engine_matches_the_oracle_on_a_fixed_contest():
    """The oracle on the graded list above, every hand-checked variant."""
    gains, judged = E["q"]
    for name, value in HAND.items():
        from shrec_eval.scoring.params import parse

        b = parse(name)
        want = reference_param(b.family.name, b.params, b.at, gains, judged, 12, 2)
        assert want == pytest.approx(value, abs=1e-12), name


# -- the peer: pytrec_eval ---------------------------------------------------------------

pytrec_eval = pytest.importorskip("pytrec_eval")


def graded_contest(seed, n_items=120, n_queries=20):
    rng = np.random.default_rng(seed)
    items = [f"d{j:04d}" for j in range(n_items)]
    qrels, lists = {}, {}
    for q in range(n_queries):
        n_rel = int(rng.integers(1, 25))
        rel = rng.choice(n_items, n_rel, replace=False)
        grades = rng.integers(1, 4, n_rel)
        grades[0] = 3
        qrels[f"q{q}"] = {items[j]: int(g) for j, g in zip(rel, grades)}
        score = rng.random(n_items)
        score[rel] += rng.random() * grades / 2
        cut = int(rng.integers(1, n_items + 1))  # lists of every length
        lists[f"q{q}"] = [items[j] for j in np.argsort(-score, kind="stable")[:cut]]
    return items, qrels, lists


@pytest.mark.parametrize("seed", range(4))
def test_against_pytrec_eval(seed):
    items, qrels, lists = graded_contest(seed)
    run = {q: {d: float(len(v) - i) for i, d in enumerate(v)} for q, v in lists.items()}
    a = Assessment.from_judgments(qrels, items, top_grade=3)
    pairs = {
        "ndcg(discount=log2_from_1)@10": ("ndcg_cut_10", 1),
        "ndcg(discount=log2_from_1)@1000": ("ndcg_cut_1000", 1),
        "ndcg(discount=log2_from_1)": ("ndcg", 1),
        "ap@10": ("map_cut_10", 1),
        "ap(rel=2)@20": ("map_cut_20", 2),
        "p(rel=2)@5": ("P_5", 2),
        "r(rel=3)@30": ("recall_30", 3),
        "p(rel=2)@R": ("Rprec", 2),
    }
    names = list(pairs)
    res = evaluate(a, RankedRun.from_lists("run", lists, a), EvalOptions(measures=names))
    peer = {}
    for level in (1, 2, 3):
        asked = {m for m, lv in pairs.values() if lv == level}
        ev = pytrec_eval.RelevanceEvaluator(qrels, asked, relevance_level=level)
        peer[level] = ev.evaluate(run)
    compared = 0
    for qi, q in enumerate(res.query_ids):
        for name, (theirs, level) in pairs.items():
            mine = res.column(name)[qi]  # every query has items of grades 1 to 3
            assert mine == pytest.approx(peer[level][q][theirs], abs=1e-12), (q, name)
            compared += 1
    assert compared >= len(pairs) * len(res.query_ids) // 2


def test_the_retrieved_ideal_is_trec_evals_ndcg_when_every_relevant_item_is_retrieved():
    items, qrels, lists = graded_contest(9)
    lists = {q: v + [d for d in qrels[q] if d not in v] for q, v in lists.items()}  # all found
    run = {q: {d: float(len(v) - i) for i, d in enumerate(v)} for q, v in lists.items()}
    a = Assessment.from_judgments(qrels, items, top_grade=3)
    name = "ndcg(discount=log2_from_1,ideal=retrieved)"
    res = evaluate(a, RankedRun.from_lists("run", lists, a), EvalOptions(measures=[name]))
    peer = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(run)
    for qi, q in enumerate(res.query_ids):
        assert res.column(name)[qi] == pytest.approx(peer[q]["ndcg"], abs=1e-12)
