"""The engine scores from where the judged items landed (``Run.judged_ranks``),
never from a whole gain matrix.  A dissimilarity matrix finds those ranks by
binary search in its sorted keys, a list run by a table of the judged pairs:
both must give exactly what the ranked lists themselves give, whatever the
options (self-matches removed or not, trec_eval's -M cut, missing queries,
ties, graded judgments)."""

import numpy as np
import pytest
from shrec_eval import evaluate
from shrec_eval.model.assessment import PAD, Assessment
from shrec_eval.model.runs import RankedRun, ranks_in_lists
from shrec_eval.options import EvalOptions
from shrec_eval.reading.formats.matrix import MatrixRun
from shrec_eval.scoring.list_views import query_detail


def graded(n: int, rng) -> Assessment:
    items = [f"m{i}" for i in range(n)]
    judg = {}
    for q in items:
        pick = rng.choice(n, size=rng.integers(0, 12), replace=False)
        judg[q] = {items[j]: int(rng.integers(1, 3)) for j in pick}
    classes = {q: f"c{i % 4}" for i, q in enumerate(items)}
    return Assessment.from_judgments(judg, items, leave_one_out=True, query_classes=classes)


def as_lists(name, m: np.ndarray, a: Assessment, rows=None) -> RankedRun:
    order = np.argsort(m, axis=1, kind="stable")
    rows = range(m.shape[0]) if rows is None else rows
    lists = {a.query_ids[r]: [a.item_ids[j] for j in order[r]] for r in rows}
    return RankedRun.from_lists(name, lists, a)


def assert_same(x, y):
    np.testing.assert_array_equal(x.values, y.values)
    assert x.curves.keys() == y.curves.keys()
    for k in x.curves:
        np.testing.assert_array_equal(x.curves[k].per_query, y.curves[k].per_query)
        np.testing.assert_array_equal(x.curves[k].mean, y.curves[k].mean)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "options",
    [
        EvalOptions(),
        EvalOptions(remove_self=False),
        EvalOptions(profile="trec_eval", max_rank=7),
        EvalOptions(profile="psbtable"),
        EvalOptions(pr_interpolation="psb", memory_budget=1 << 16),  # blocks of a few queries
    ],
    ids=["default", "keep-self", "trec-M7", "psbtable", "small-blocks"],
)
def test_a_matrix_scores_as_its_ranked_lists(dtype, options):
    rng = np.random.default_rng(11)
    n = 60
    a = graded(n, rng)
    m = rng.integers(0, 9, (n, n)).astype(dtype)  # many ties: broken by column
    m[5] += 2.0**-40  # float64 values that differ in the lowest bits only
    run = MatrixRun("m", m, a)
    assert_same(evaluate(a, run, options), evaluate(a, as_lists("m", m, a), options))


def test_missing_queries_score_as_empty_lists_both_ways():
    rng = np.random.default_rng(2)
    a = graded(30, rng)
    m = rng.random((30, 30))
    kept = [r for r in range(30) if r % 3]
    lists = as_lists("l", m, a, rows=kept)
    full = evaluate(a, as_lists("l", m, a))
    part = evaluate(a, lists)
    np.testing.assert_array_equal(part.values[kept], full.values[kept])
    dropped = [r for r in range(30) if r % 3 == 0]
    empty = RankedRun.from_lists("e", {a.query_ids[r]: [] for r in dropped}, a)
    np.testing.assert_array_equal(part.values[dropped], evaluate(a, empty).values[dropped])


def test_ranks_in_lists_against_a_search_of_each_list():
    rng = np.random.default_rng(4)
    n_items, B, L = 50, 7, 20
    idx = np.stack([rng.permutation(n_items)[:L] for _ in range(B)]).astype(np.int32)
    idx[2, 15:] = PAD
    idx[3, 4] = -2  # an id the assessment does not know
    pairs = {
        (int(r), int(i)) for r, i in zip(rng.integers(0, B, 200), rng.integers(0, n_items, 200))
    }
    pr = np.array([p[0] for p in pairs], dtype=np.int64)
    pi = np.array([p[1] for p in pairs], dtype=np.int64)
    want = [list(idx[r]).index(i) if i in idx[r] else -1 for r, i in zip(pr, pi)]
    assert ranks_in_lists(idx, pr, pi, n_items).tolist() == want


def test_ranks_in_a_large_collection_are_searched_as_a_table_would_find_them():
    """Lists from a collection far larger than they are (a qrels of millions
    of documents) are searched among the sorted pairs instead of a table of
    every list x every item: the same ranks, unknown ids and padding never
    taken for an item."""
    rng = np.random.default_rng(6)
    for n_items, B, L in ((5_000, 9, 30), (200_000, 3, 7), (2_000, 1, 1)):
        idx = np.stack([rng.permutation(n_items)[:L] for _ in range(B)]).astype(np.int32)
        idx[rng.random(idx.shape) < 0.15] = PAD
        idx[rng.random(idx.shape) < 0.1] = -2  # ids the assessment does not know
        rows = rng.integers(0, B, 300)
        items = np.where(rng.random(300) < 0.5, idx[rows, rng.integers(0, L, 300)], 0)
        items = np.where(items < 0, rng.integers(0, n_items, 300), items)
        pairs = sorted(set(zip(rows.tolist(), items.tolist())))
        pr = np.array([p[0] for p in pairs], dtype=np.int64)
        pi = np.array([p[1] for p in pairs], dtype=np.int64)
        want = [list(idx[r]).index(i) if i in idx[r] else -1 for r, i in zip(pr, pi)]
        assert ranks_in_lists(idx, pr, pi, n_items).tolist() == want


def test_blocks_of_queries_follow_the_lists_not_the_collection():
    """400 lists of 100 against a collection of 300,000 items: one block of
    lists (a table of every list x every item set the block size: 164
    queries, three blocks, each clearing 49 MB), with the numbers of a
    small budget's many blocks."""
    rng = np.random.default_rng(3)
    items = [f"d{i}" for i in range(300_000)]
    judg = {f"q{q}": {items[j]: 1 for j in rng.integers(0, 300_000, 20)} for q in range(400)}
    a = Assessment.from_judgments(judg, items)
    lists = {}
    for r, q in enumerate(judg):  # its judged items somewhere among others
        others = [items[j] for j in rng.integers(0, 300_000, 100)]
        lists[q] = list(dict.fromkeys(others[: r % 60] + list(judg[q]) + others[r % 60 :]))[:100]
    run = RankedRun.from_lists("r", lists, a)
    calls = []
    real = run.judged_ranks
    run.judged_ranks = lambda rows, *rest: calls.append(rows.size) or real(rows, *rest)
    got = evaluate(a, run)
    assert calls == [400]
    assert_same(got, evaluate(a, run, EvalOptions(memory_budget=1 << 16)))
    assert np.nanmean(got.values[:, got.keys.index("tp_r")]) > 1


def test_a_run_scored_in_one_part_keeps_its_arrays():
    """The per-query curves of a run scored in one part (the command line,
    the app: 80,000 queries x 541 points, 350 MB) become the result's as
    they are, not a copy."""
    from shrec_eval.scoring.engine import Scoring

    rng = np.random.default_rng(7)
    a = graded(30, rng)
    run = as_lists("l", rng.random((30, 30)), a)
    job = Scoring(a, run)
    part = job.score(0, a.n_queries)
    res = job.result([part])
    assert all(res.curves[k].per_query is part.curves[k] for k in part.curves)
    assert res.values is part.values
    assert_same(res, evaluate(a, run))


def test_query_detail_gains_are_the_scored_hits():
    rng = np.random.default_rng(8)
    a = graded(40, rng)
    m = rng.random((40, 40)).astype(np.float32)
    run = MatrixRun("m", m, a)
    for q in a.query_ids[:10]:
        d = query_detail(a, run, q)
        order = [j for j in np.argsort(m[a.query_index(q)], kind="stable") if a.item_ids[j] != q]
        want = [a.judgments(q).get(a.item_ids[j], 0) for j in order]
        assert d.gains.tolist() == want
        assert d.item_indices.tolist() == order


@pytest.mark.parametrize("profile", ["shrec", "psbtable", "trec_eval", "boli"])
def test_the_blocks_and_groups_of_queries_change_no_value(profile):
    # ragged lists (some empty, some missing, widths differing from block to
    # block) ranked a few queries at a time and measured in groups of blocks,
    # or all at once: the same numbers, bit for bit
    rng = np.random.default_rng(21)
    a = graded(80, rng)
    lists = {}
    for r, q in enumerate(a.query_ids):
        if r % 11 == 3:
            continue  # missing
        length = 0 if r % 13 == 5 else int(rng.integers(1, 80 if r < 40 else 12))
        lists[q] = [a.item_ids[j] for j in rng.permutation(80)[:length]]
    run = RankedRun.from_lists("r", lists, a)
    big = evaluate(a, run, EvalOptions(profile=profile))
    for budget in (1 << 12, 1 << 15):
        small = evaluate(a, run, EvalOptions(profile=profile, memory_budget=budget))
        assert_same(small, big)


def test_grade_levels_counted_or_sorted_are_the_distinct_grades_and_the_top():
    from shrec_eval.scoring.blocks import _grade_levels

    rng = np.random.default_rng(5)
    cases = [
        (np.ones(1000, np.int32), 1),
        (np.array([1, 3, 3, 1], np.int32), 3),
        (np.zeros(0, np.int32), 7),
        (rng.integers(1, 5, 300).astype(np.int32), 9),
        (np.array([5, 2**31 - 1], np.int32), 2**31 - 1),  # too many levels to count
        # one grade for all (a qrels made from classes): read off its least and largest
        (np.full(500, 2, np.int32), 5),
        (np.full(3, 7, np.int32), 7),
        (np.full(4, 3, np.int64), 2**31 - 1),
        (np.array([2, 2, 2, 3], np.int32), 3),
    ]
    for grades, top in cases:
        want = np.unique(np.concatenate((grades, [top]))).astype(np.int64)
        got = _grade_levels(grades, top, int(grades.min()) if grades.size else 1)
        assert np.array_equal(got, want) and got.dtype == want.dtype


def _rows_measured(monkeypatch) -> list[int]:
    """The number of queries of every chunk context the engine makes."""
    import shrec_eval.scoring.engine as engine

    seen: list[int] = []

    class Counted(engine.ChunkContext):
        def __init__(self, hits, W, va, *args, **kwargs):
            seen.append(int(va.size))
            super().__init__(hits, W, va, *args, **kwargs)

    monkeypatch.setattr(engine, "ChunkContext", Counted)
    return seen


@pytest.mark.parametrize(
    "options",
    [
        EvalOptions(),
        EvalOptions(profile="psbtable"),
        EvalOptions(profile="trec_eval", complete_queries=True),
        EvalOptions(profile="boli"),
        EvalOptions(remove_self=False, memory_budget=1 << 13),
    ],
)
def test_missing_queries_are_scored_once_per_kind(monkeypatch, options):
    # 300 queries, 7 answered: the 293 others have no list; those alike in
    # what the engine knows of them (relevant counts by grade, collection
    # size, self-match) are measured once, and every one of them has the
    # row an empty list of its own gives, bit for bit
    rng = np.random.default_rng(8)
    a = graded(300, rng)
    answered = [3, 4, 50, 51, 52, 190, 299]
    m = rng.random((300, 300))
    seen = _rows_measured(monkeypatch)
    got = evaluate(a, as_lists("l", m, a, rows=answered), options)
    # what tells the missing queries apart: their grades' counts and their own grade
    alike = set()
    for r, q in enumerate(a.query_ids):
        if r not in answered:
            grades = list(a.judgments(q).values())
            alike.add((grades.count(1), grades.count(2), a.judgments(q).get(q, 0)))
    assert len(alike) < 100
    assert len(answered) < sum(seen) <= len(answered) + len(alike)
    monkeypatch.undo()
    lists = {q: [] for r, q in enumerate(a.query_ids) if r not in answered}
    order = np.argsort(m, axis=1, kind="stable")
    lists.update({a.query_ids[r]: [a.item_ids[j] for j in order[r]] for r in answered})
    want = evaluate(a, RankedRun.from_lists("l", lists, a), options)
    assert_same(got, want)
    assert want.values[:, 0].tolist() != [want.values[0, 0]] * 300  # rows of several kinds


def test_kinds_of_queries_are_their_bytes():
    from shrec_eval.scoring.missing import kinds

    qs = np.array([0, 2, 3, 5, 6])
    ch = np.array([1, 9, 1, 1, 9, 1, 1])
    ds = np.array([10, 10, 10, 9, 10, 10, 10])
    nge = np.array([[1, 0], [0, 0], [1, 0], [1, 0], [0, 0], [1, 1], [1, 0]])
    data = np.array([0.5, 0.0, 0.5, 0.5, 0.0, 0.5, np.nan])
    reps, inverse = kinds(qs, [ch, ds, nge, data])
    by_query = dict(zip(qs.tolist(), reps[inverse].tolist()))
    # 0 and 2 alike; 3 differs in ds, 5 in nge, 6 in its profile's value
    assert by_query[0] == by_query[2] in (0, 2)
    assert sorted({by_query[q] for q in (0, 3, 5, 6)}) == sorted([by_query[0], 3, 5, 6])
    assert len(reps) == 4
    # an array of objects: every query its own kind
    reps, inverse = kinds(qs, [ch, np.array([None] * 7, dtype=object)])
    assert reps.tolist() == qs.tolist() and inverse.tolist() == [0, 1, 2, 3, 4]
    reps, inverse = kinds(qs[:0], [ch])
    assert reps.size == 0 and inverse.size == 0


def _cross(rng, n_q: int, n_items: int, grades) -> Assessment:
    """Queries that are no collection items, each judging a few items."""
    items = [f"g{i}" for i in range(n_items)]
    judg = {
        f"q{i}": {
            items[j]: int(rng.choice(grades))
            for j in rng.choice(n_items, size=int(rng.integers(1, 9)), replace=False)
        }
        for i in range(n_q)
    }
    return Assessment.from_judgments(judg, items)


def _prepared_by_hand(a: Assessment, o: EvalOptions) -> dict:
    """What ``prepare`` must give, judgment by judgment."""
    kept = []
    for q in range(a.n_queries):
        for j in range(a.indptr[q], a.indptr[q + 1]):
            item, grade = int(a.judged_items[j]), int(a.judged_grades[j])
            if grade >= o.relevance_level and not (o.remove_self and item == a.query_items[q]):
                kept.append((q, item, grade))
    levels = sorted(set(a.judged_grades.tolist()) | {a.top_grade})
    nge = np.zeros((a.n_queries, len(levels)), dtype=np.int64)
    for q, _, grade in kept:
        nge[q] += [grade >= g for g in levels]
    own = [
        int(
            a.query_items[q] >= 0
            and a.query_items[q] not in a.judged_items[a.indptr[q] : a.indptr[q + 1]]
        )
        for q in range(a.n_queries)
    ]
    return {
        "rows": [k[0] for k in kept],
        "items": [k[1] for k in kept],
        "grades": [k[2] for k in kept],
        "nge": nge,
        "indptr": np.concatenate(
            ([0], np.cumsum(np.bincount([k[0] for k in kept], minlength=a.n_queries)))
        ),
        "class_size": np.diff(a.indptr) + own,
    }


@pytest.mark.parametrize(
    "kind, grades, level",
    [
        ("cross", (1,), 1),  # a qrels from classes: every judgment kept as it is
        ("cross", (1, 2, 3), 1),
        ("cross", (2, 3), 2),
        ("cross", (0, 1, 2), 1),  # grade 0: judged, not relevant
        ("cross", (1, 2, 3), 2),
        ("items", None, 1),  # queries that are items: their own item taken out
    ],
)
def test_prepare_counts_the_kept_judgments(kind, grades, level):
    """The judgments kept (relevant, not the query's own item), their counts
    at each grade level, where each query's begin and its class size are
    those counted judgment by judgment; where every judgment is kept they
    are the assessment's own arrays, not copied."""
    from shrec_eval.scoring.blocks import prepare

    rng = np.random.default_rng(len(grades or ()) * 10 + level)
    a = _cross(rng, 30, 50, grades) if kind == "cross" else graded(40, rng)
    o = EvalOptions(relevance_level=level)
    p = prepare(a, o, a.n_items)
    want = _prepared_by_hand(a, o)
    assert p.judged_rows.tolist() == want["rows"]
    assert p.judged_items.tolist() == want["items"]
    assert p.judged_grades.tolist() == want["grades"]
    np.testing.assert_array_equal(p.nge, want["nge"])
    np.testing.assert_array_equal(p.ch, want["nge"][:, -1])
    np.testing.assert_array_equal(p.cm, want["nge"][:, 0] - want["nge"][:, -1])
    np.testing.assert_array_equal(p.indptr, want["indptr"])
    np.testing.assert_array_equal(p.class_size, want["class_size"])
    all_kept = len(want["rows"]) == a.judged_items.size
    assert all_kept == (kind == "cross" and int(a.judged_grades.min()) >= level)
    assert np.shares_memory(p.judged_items, a.judged_items) == all_kept


@pytest.mark.parametrize("missing", [False, True])
def test_hits_of_every_answered_query_are_found_in_its_list(missing):
    """Where each judged relevant item landed (row, rank, grade), as its
    list shows it; when every query is answered and none is an item, the
    run is asked the prepared judgments themselves (a qrels of R = 1,000:
    2,000,000 pairs a block, not copied)."""
    from shrec_eval.scoring.blocks import hits_block, lists_block, prepare, query_rows

    rng = np.random.default_rng(3)
    a = _cross(rng, 25, 40, (1, 2))
    m = rng.standard_normal((a.n_queries, a.n_items))
    rows = range(1, a.n_queries) if missing else None
    run = as_lists("r", m, a, rows=rows)
    asked, rows_asked = [], []
    judged_ranks = run.judged_ranks

    def spy(rows, pair_row, pair_item):
        asked.append(pair_item)
        rows_asked.append(pair_row)
        return judged_ranks(rows, pair_row, pair_item)

    run.judged_ranks = spy
    o = EvalOptions()
    p = prepare(a, o, a.n_items)
    qrow, _ = query_rows(a, run)
    qs = np.arange(a.n_queries)
    lengths, _, (hrow, hrank, hgrade) = hits_block(a, run, p, qs, qrow)
    idx, want_lengths = lists_block(a, run, p, qs, qrow)
    np.testing.assert_array_equal(lengths, want_lengths)
    relevant = {
        (int(r), int(i)): int(g) for r, i, g in zip(p.judged_rows, p.judged_items, p.judged_grades)
    }
    want = [
        (r, k, relevant[r, int(idx[r, k])])
        for r in range(idx.shape[0])
        for k in range(int(want_lengths[r]))
        if (r, int(idx[r, k])) in relevant
    ]
    assert list(zip(hrow.tolist(), hrank.tolist(), hgrade.tolist())) == want
    assert len(want) > 20
    assert np.shares_memory(asked[0], p.judged_items) != missing
    # the first block's rows are the prepared rows themselves (no pass over them)
    assert np.shares_memory(rows_asked[0], p.judged_rows) != missing
    # a later block's rows count from its own first query
    later = qs[7:]
    _, _, (hrow2, hrank2, _) = hits_block(a, run, p, later, qrow)
    keep = hrow >= 7
    np.testing.assert_array_equal(hrow2, hrow[keep] - 7)
    np.testing.assert_array_equal(hrank2, hrank[keep])
