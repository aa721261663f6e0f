"""A run's lists read beside the scores (``shrec_eval.scoring.list_views``):
the first K of many queries' lists computed in one pass (``top_lists``, the
report's gallery) are one query's detail (``query_detail``, the app's ranked
lists) cut at K, whatever the run's kind and the options."""

import numpy as np
import pytest
from shrec_eval.model.assessment import PAD
from shrec_eval.model.runs import RankedRun
from shrec_eval.options import EvalOptions
from shrec_eval.reading.formats.matrix import MatrixRun
from shrec_eval.scoring.list_views import query_detail, top_lists
from test_scoring_engine_hits import graded


def ragged(a, rng) -> RankedRun:
    """Lists of any length (some empty, some missing, ids of their own)."""
    lists = {}
    for r, q in enumerate(a.query_ids):
        if r % 7 == 3:
            continue  # missing: an empty list
        length = 0 if r % 9 == 5 else int(rng.integers(1, a.n_items + 1))
        ids = [a.item_ids[j] for j in rng.permutation(a.n_items)[:length]]
        if r % 5 == 1:
            ids.insert(int(rng.integers(0, len(ids) + 1)), f"stranger{r}")
        lists[q] = ids
    return RankedRun.from_lists("r", lists, a)


@pytest.mark.parametrize(
    "options",
    [
        EvalOptions(),
        EvalOptions(remove_self=False),
        EvalOptions(profile="trec_eval", max_rank=5),
        EvalOptions(profile="psbtable"),
        EvalOptions(memory_budget=1 << 12),  # blocks of a few queries
    ],
    ids=["default", "keep-self", "trec-M5", "psbtable", "small-blocks"],
)
@pytest.mark.parametrize("kind", ["matrix", "lists"])
@pytest.mark.parametrize("k", [1, 4, 10, 200])
def test_top_lists_are_each_querys_detail_cut_at_k(options, kind, k):
    rng = np.random.default_rng(17)
    n = 30
    a = graded(n, rng)
    if kind == "matrix":
        m = rng.integers(0, 5, (n, n)).astype(np.float32)  # ties, broken by column
        run = MatrixRun("m", m, a)
    else:
        run = ragged(a, rng)
    queries = rng.permutation(n)[:20]  # in no order; not every query
    items, gains, lengths = top_lists(a, run, queries, k, options)
    assert items.shape == gains.shape == (20, k)
    some_hit, longest = False, 0
    for row, q in enumerate(queries):
        d = query_detail(a, run, a.query_ids[q], options)
        got = int(lengths[row])
        assert got == min(k, d.gains.size)
        assert items[row, :got].tolist() == d.item_indices[:k].tolist()
        assert gains[row, :got].tolist() == d.gains[:k].tolist()
        assert (items[row, got:] == PAD).all() and (gains[row, got:] == 0).all()
        some_hit |= bool((gains[row] > 0).any())
        longest = max(longest, d.gains.size)
    assert some_hit  # the lists found relevant items: the gains were checked
    assert lengths.max() == min(k, longest) > 0


def test_top_lists_of_no_query():
    rng = np.random.default_rng(3)
    a = graded(10, rng)
    run = MatrixRun("m", rng.random((10, 10)).astype(np.float32), a)
    items, gains, lengths = top_lists(a, run, [], 5)
    assert items.shape == gains.shape == (0, 5) and lengths.size == 0
