"""Matrix order: how a dissimilarity matrix's rows and columns map onto an
assessment's queries and items.

* ``listing`` (psbTable's reading, the default): row i is the i-th query and
  column j the j-th item in the order the files list them;
* ``id``: row r is the query whose id is r and column c the item whose id is
  c (SHREC 2021's matrices, written by code that indexes by model id).  The
  ids must then be exactly the integers 0..N-1.  The assessment itself is put
  in id order, so that ties of a row fall to the lower id, as a stable sort
  of the matrix's row does.

When the ids are 0..N-1 but listed out of order, the two readings give other
numbers and nothing in the files says which is meant: the matrix readers add
a data check (:func:`order_note`) with the NN of both readings.
"""

from __future__ import annotations

import numpy as np

from ...errors import FormatError
from ...model.assessment import Assessment, DataWarning

__all__ = ["by_id", "id_positions", "order_note", "with_other_order"]

ROWS_AT_ONCE = 256


def id_positions(ids) -> np.ndarray | None:
    """The ids as integers when they are exactly 0..N-1 (decimal digits, in
    any order), else None."""
    n = len(ids)
    out = np.empty(n, dtype=np.int64)
    for i, s in enumerate(ids):
        if not (s.isascii() and s.isdigit()) or len(s) > 18:
            return None
        out[i] = int(s)
    if n and (out.max() >= n or np.bincount(out, minlength=n).max() != 1):
        return None
    return out


def _positions(a: Assessment) -> tuple[np.ndarray, np.ndarray] | None:
    items = id_positions(a.item_ids)
    if items is None:
        return None
    queries = items[a.query_items] if a.leave_one_out else id_positions(a.query_ids)
    if queries is None:
        return None
    return queries, items


def _inverse(p: np.ndarray) -> np.ndarray:
    out = np.empty_like(p)
    out[p] = np.arange(p.size)
    return out


def with_other_order(a: Assessment) -> Assessment:
    """``a`` (in listing order) knowing the id reading when it is possible
    and differs (:attr:`Assessment.other_order`)."""
    from dataclasses import replace

    pos = _positions(a)
    if pos is None:
        return a
    q, i = pos
    if (q == np.arange(q.size)).all() and (i == np.arange(i.size)).all():
        return a  # listed in id order: both readings are one
    return replace(a, other_order=(_inverse(q), _inverse(i)))


def _csr_reordered(indptr, items, qorder, new_item, extra=None):
    counts = np.diff(indptr)[qorder]
    rows = [np.arange(indptr[q], indptr[q + 1]) for q in qorder.tolist()]
    take = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    new_items = new_item[items[take]]
    row_of = np.repeat(np.arange(qorder.size), counts)
    order = np.lexsort((new_items, row_of))  # each row's items in the new order
    new_indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    out_extra = None if extra is None else extra[take][order]
    return new_indptr, new_items[order], out_extra


def by_id(a: Assessment, path) -> Assessment:
    """``a`` with its queries and items in the order of their ids (matrix
    order ``id``); a FormatError naming ``path`` when the ids are not
    exactly 0..N-1."""
    from dataclasses import replace

    pos = _positions(a)
    if pos is None:
        bad = "item" if id_positions(a.item_ids) is None else "query"
        ids = a.item_ids if bad == "item" else a.query_ids
        n = len(ids)
        shown = ", ".join(sorted(ids, key=lambda s: (len(s), s))[:3])
        raise FormatError(
            path,
            f"reading matrices by id (--matrix-order id, or a profile's rule) needs the {bad} "
            f"ids to be exactly 0..{n - 1}; they are not ({shown}, ...)",
        )
    qpos, ipos = pos
    qorder, iorder = _inverse(qpos), _inverse(ipos)  # new index -> old index
    new_item = ipos  # old item index -> new index (its id)
    indptr, items, grades = _csr_reordered(
        a.indptr, a.judged_items, qorder, new_item, a.judged_grades
    )
    zero = a.judged_zero
    if zero is not None:
        zi, zitems, _ = _csr_reordered(zero[0], zero[1], qorder, new_item)
        zero = (zi, zitems)
    qitems = a.query_items[qorder]
    qitems = np.where(qitems >= 0, new_item[np.maximum(qitems, 0)], -1)
    classes = None if a.query_classes is None else tuple(a.query_classes[q] for q in qorder)
    other = None
    if not ((qpos == np.arange(qpos.size)).all() and (ipos == np.arange(ipos.size)).all()):
        other = (qpos, ipos)  # listing row r is the query of id qpos[r]
    return replace(
        a,
        query_ids=tuple(a.query_ids[q] for q in qorder),
        item_ids=tuple(a.item_ids[i] for i in iorder),
        indptr=indptr,
        judged_items=items,
        judged_grades=grades,
        query_items=qitems,
        query_classes=classes,
        judged_zero=zero,
        matrix_order="id",
        other_order=other,
    )


def _nn(matrix, a: Assessment, rows: np.ndarray, cols: np.ndarray) -> float:
    """The mean NN of a matrix read with row r = query ``rows[r]`` and
    column c = item ``cols[c]``: the nearest other item (the query's own item
    left out), ties to the lower column, over the queries with a relevant item."""
    counts = np.diff(a.indptr)
    keys = np.repeat(np.arange(a.n_queries), counts) * a.n_items + a.judged_items
    col_of_item = _inverse(cols)
    hits = []
    for start in range(0, len(rows), ROWS_AT_ONCE):
        r = np.arange(start, min(start + ROWS_AT_ONCE, len(rows)))
        block = np.array(matrix[start : r[-1] + 1], dtype=np.float64)
        block[np.isnan(block)] = np.inf
        q = rows[r]
        own = a.query_items[q]
        has = own >= 0
        block[np.flatnonzero(has), col_of_item[own[has]]] = np.inf
        best = cols[np.argmin(block, axis=1)]
        found = np.isin(q * a.n_items + best, keys)
        hits.append(np.where(counts[q] > 0, found.astype(np.float64), np.nan))
    values = np.concatenate(hits) if hits else np.zeros(0)
    return float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")


def order_note(matrix, a: Assessment) -> list[DataWarning]:
    """The data check of a matrix read against an assessment whose ids are
    0..N-1 listed out of order: which reading was used, and the NN of both."""
    if a.other_order is None:
        return []
    ident = np.arange(a.n_queries), np.arange(a.n_items)
    here = _nn(matrix, a, *ident)
    there = _nn(matrix, a, *a.other_order)
    other = "listing" if a.matrix_order == "id" else "id"
    what = {
        "listing": "in listing order (row and column = the files' order of queries and items)",
        "id": "by id (row r = the query of id r, column c = the item of id c)",
    }
    return [
        DataWarning(
            "matrix_order",
            f"the ids are 0..N-1 listed out of order, so a matrix may be laid out by listing or "
            f"by id: read {what[a.matrix_order]}; NN {here:.4f} as read, {there:.4f} read "
            f"{what[other].split(' (')[0]} (--matrix-order {other})",
            0,
        )
    ]
