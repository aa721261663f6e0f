"""A curve's per-query rows held once per distinct row (``QueryRows``): it
reads as the (queries, points) array it stands for, and the engine keeps the
rows of the queries a run does not answer once each."""

import numpy as np
from shrec_eval import evaluate
from shrec_eval.model.assessment import Assessment
from shrec_eval.model.runs import RankedRun
from shrec_eval.options import EvalOptions
from shrec_eval.scoring.rows import QueryRows, joined_rows


def _rows():
    table = np.array([[0.0, 1.0, 2.0], [5.0, 6.0, 7.0]])
    which = np.array([1, 0, 1, 1, 0])
    return QueryRows(table, which), table[which]


def test_it_reads_as_the_array():
    rows, full = _rows()
    assert rows.shape == full.shape == (5, 3) and rows.dtype == full.dtype and len(rows) == 5
    np.testing.assert_array_equal(np.asarray(rows), full)
    np.testing.assert_array_equal(rows[2], full[2])
    np.testing.assert_array_equal(rows[1:4], full[1:4])
    mask = np.array([True, False, False, True, True])
    np.testing.assert_array_equal(rows[mask], full[mask])
    np.testing.assert_array_equal(rows[:, 1], full[:, 1])
    np.testing.assert_array_equal(rows[[0, 4], 2], full[[0, 4], 2])
    np.testing.assert_array_equal(rows * 2 + 1, full * 2 + 1)
    np.testing.assert_array_equal(np.nanmean(rows, axis=0), full.mean(axis=0))
    assert rows.sum() == full.sum()
    np.testing.assert_array_equal(rows.block(1, 4), full[1:4])
    assert rows.block(1, 4).flags.c_contiguous


def test_setting_a_mask_to_one_value_adds_one_row():
    rows, full = _rows()
    mask = np.array([False, True, True, False, False])
    rows[mask] = np.nan
    full[mask] = np.nan
    np.testing.assert_array_equal(np.asarray(rows), full)
    assert rows.table.shape == (3, 3)  # the two rows, and the NaN row once
    rows[np.zeros(5, bool)] = 1.0  # nothing picked: nothing added
    assert rows.table.shape == (3, 3)
    rows[0] = np.array([9.0, 8.0, 7.0])  # one row
    full[0] = [9.0, 8.0, 7.0]
    np.testing.assert_array_equal(np.asarray(rows), full)
    rows[np.array([0, 1]), 1] = 4.0  # a part of rows: every row its own
    full[np.array([0, 1]), 1] = 4.0
    np.testing.assert_array_equal(np.asarray(rows), full)


def test_parts_joined_one_after_another():
    a, fa = _rows()
    b = QueryRows(np.array([[3.0, 3.0, 3.0]]), np.array([0, 0]))
    got = joined_rows([a, b])
    np.testing.assert_array_equal(np.asarray(got), np.concatenate((fa, np.full((2, 3), 3.0))))
    assert got.table.shape[0] == 3
    assert joined_rows([a]) is a


def test_queries_a_run_does_not_answer_share_their_rows():
    # 400 queries judging 1 or 2 items, 3 answered: the curves hold a few
    # distinct rows, not one per query, and read as an empty list scores
    n = 400
    items = [f"m{i}" for i in range(n)]
    judg = {
        q: {items[(i + 1) % n]: 1, **({items[(i + 2) % n]: 2} if i % 2 else {})}
        for i, q in enumerate(items)
    }
    a = Assessment.from_judgments(judg, items, leave_one_out=True)
    answered = {items[0]: items[1:60], items[7]: items[::-1][:50], items[9]: items[10:30]}
    for options in (EvalOptions(), EvalOptions(profile="trec_eval", complete_queries=True)):
        got = evaluate(a, RankedRun.from_lists("r", answered, a), options)
        lists = {q: [] for q in items} | answered
        want = evaluate(a, RankedRun.from_lists("r", lists, a), options)
        for key, curve in got.curves.items():
            pq = curve.per_query
            assert isinstance(pq, QueryRows) and pq.shape == (n, curve.x.size)
            assert pq.table.shape[0] <= len(answered) + 4, key
            np.testing.assert_array_equal(np.asarray(pq), np.asarray(want.curves[key].per_query))


def test_indices_in_both_axes_as_numpy_pairs_them():
    rows, full = _rows()
    r, c = np.array([0, 3, 4]), np.array([2, 0, 1])
    np.testing.assert_array_equal(rows[r, c], full[r, c])
    np.testing.assert_array_equal(rows[..., 1], full[..., 1])
    np.testing.assert_array_equal(rows[1:3, 0:2], full[1:3, 0:2])
    assert rows[3, 2] == full[3, 2]


def test_rows_made_with_one_index_array_change_alone():
    table = np.array([[0.0, 1.0], [2.0, 3.0]])
    which = np.array([0, 1, 1])
    a, b = QueryRows(table, which), QueryRows(table.copy(), which)
    a[0] = 7.0
    np.testing.assert_array_equal(np.asarray(a), [[7.0, 7.0], [2.0, 3.0], [2.0, 3.0]])
    np.testing.assert_array_equal(np.asarray(b), [[0.0, 1.0], [2.0, 3.0], [2.0, 3.0]])
    assert which.tolist() == [0, 1, 1]


def test_a_mask_of_values_picks_the_values():
    rows, full = _rows()
    full[2, 1] = rows.table[1, 1] = np.nan  # query 2's row (row 1 of the table)
    full = rows.table[rows.which]
    defined = ~np.isnan(rows)
    np.testing.assert_array_equal(defined, ~np.isnan(full))
    np.testing.assert_array_equal(rows[defined], full[defined])
    rows[~defined] = 0.0
    full[~defined] = 0.0
    np.testing.assert_array_equal(np.asarray(rows), full)
