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
a data check (:func:`order_note`, made when the run is scored: the engine
knows the self-match rule and the averages) with the NN of both readings.
"""

from __future__ import annotations

import numpy as np

from ...errors import FormatError
from ...model.assessment import MAX_EXAMPLES, Assessment, DataWarning
from ...model.data_warnings import OtherReading
from .ids import normalize_id

__all__ = [
    "by_id",
    "first_hits",
    "id_positions",
    "order_note",
    "readable_by_id",
    "with_other_order",
]

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


def readable_by_id(a: Assessment) -> bool:
    """Whether matrices can be read by id against ``a``: its ids are
    exactly 0..N-1 (read in either order)."""
    return a.matrix_order == "id" or _positions(a) is not None


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


def _bad_ids(ids) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The ids that are not one of 0..N-1, each with why, and the numbers
    of 0..N-1 that no id is."""
    n = len(ids)
    bad, seen = [], np.zeros(n, dtype=bool)
    for s in ids:
        if s.isascii() and s.isdigit():
            v = int(s) if len(s) <= 18 else n
            if v >= n:
                why = f"is past {n - 1}"
            elif seen[v]:
                why = f"is {v} again"
            else:
                seen[v] = True
                continue
        elif s[:1] == "-" and s[1:].isascii() and s[1:].isdigit():
            why = "is negative"
        elif s.isdigit():
            why = "is written in other digits than 0-9"
        else:
            why = "is not a whole number"
        bad.append((s, why))
    return bad, np.flatnonzero(~seen)


def _lines_in_file(source, field: int, wanted: set, normalize: bool) -> dict[str, int]:
    """The first line of a text file (qrels) whose ``field`` is each id of
    ``wanted`` (normalised as the reader did): for messages only."""
    found: dict[str, int] = {}
    try:
        text = source.read().decode("utf-8", "replace")
    except (AttributeError, OSError):
        return found
    for number, line in enumerate(text.split("\n"), 1):
        parts = line.split()
        if len(parts) > field:
            token = normalize_id(parts[field]) if normalize else parts[field]
            if token in wanted and token not in found:
                found[token] = number
                if len(found) == len(wanted):
                    break
    return found


def _not_ids(a: Assessment, path) -> FormatError:
    """Why the ids of ``a`` cannot be read as matrix indices: the ids that
    are not one of 0..N-1 with their line, and the numbers no id is."""
    items = id_positions(a.item_ids) is None
    what, ids = ("item", a.item_ids) if items else ("query", a.query_ids)
    cla = a.classification if items else a.query_classification
    where = path
    bad, missing = _bad_ids(ids)
    shown = bad[:MAX_EXAMPLES]
    if cla is not None:
        where = cla.path
        lines = cla.model_lines
    else:  # qrels: the first line that names each id
        wanted = {s for s, _ in shown}
        lines = _lines_in_file(path, 2 if items else 0, wanted, a.normalize_ids)
    n = len(ids)
    first = lines.get(shown[0][0]) if shown else None  # the message's line
    parts = [
        f"{s!r}" + (f" (line {lines[s]})" if s in lines and i else "") + f" {why}"
        for i, (s, why) in enumerate(shown)
    ]
    if len(bad) > len(shown):
        parts.append(f"{len(bad) - len(shown)} more ids are not one of 0..{n - 1}")
    if missing.size:
        some = ", ".join(str(int(m)) for m in missing[:MAX_EXAMPLES])
        more = f" and {missing.size - MAX_EXAMPLES} more" if missing.size > MAX_EXAMPLES else ""
        parts.append(f"{some}{more} {'is' if missing.size == 1 else 'are'} missing")
    return FormatError(
        where,
        f"reading matrices by id (matrix order id) needs the {what} ids to be exactly "
        f"0..{n - 1}: " + "; ".join(parts),
        line=first,
    )


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
        raise _not_ids(a, path)
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


def first_hits(
    matrix, a: Assessment, rows: np.ndarray, cols: np.ndarray, *, remove_self: bool, level: int
) -> np.ndarray:
    """Per assessment query, whether the first item of its list is relevant
    (grade >= ``level``) when the matrix is read with row r = query
    ``rows[r]`` and column c = item ``cols[c]``: the engine's ranking of a
    row (ties to the lower column, the collection order of either reading),
    the query's own item left out when ``remove_self`` (the profile's
    self-match rule), 0 or 1 for every query (defined or not: the caller
    knows which queries the measure leaves undefined)."""
    col_of_item = _inverse(cols)
    relevant = a.judged_grades >= level
    qs = np.repeat(np.arange(a.n_queries), np.diff(a.indptr))[relevant]
    keys = qs * np.int64(a.n_items) + a.judged_items[relevant]
    out = np.zeros(a.n_queries)
    for start in range(0, len(rows), ROWS_AT_ONCE):
        r = np.arange(start, min(start + ROWS_AT_ONCE, len(rows)))
        block = np.array(matrix[start : r[-1] + 1], dtype=np.float64)
        block[np.isnan(block)] = np.inf
        q = rows[r]
        own = a.query_items[q]
        if remove_self:
            has = own >= 0
            block[np.flatnonzero(has), col_of_item[own[has]]] = np.inf
        best = cols[np.argmin(block, axis=1)]
        out[q] = np.isin(q * np.int64(a.n_items) + best, keys)
    return out


def order_note(
    a: Assessment,
    here: tuple[float | None, float | None],
    there: tuple[float | None, float | None] | None,
    fixed_by: str | None,
) -> DataWarning:
    """The data check of a matrix read against an assessment whose ids are
    0..N-1 listed out of order: which reading was used and the run's NN in
    both (``here``: the NN as read and in the other reading, by the
    profile's self-match rule; ``there``: the same with each query's own
    item left out, when the rule keeps it in its list, where it comes
    first in either reading); ``fixed_by``: the profile that fixes the
    reading (its note then advises no option it would refuse)."""
    other = "listing" if a.matrix_order == "id" else "id"
    what = {
        "listing": "in listing order (row and column = the files' order of queries and items)",
        "id": "by id (row r = the query of id r, column c = the item of id c)",
    }
    other_words = what[other].split(" (")[0]
    text = (
        f"the ids are 0..N-1 listed out of order, so a matrix may be laid out by listing or by "
        f"id: read {what[a.matrix_order]}; NN {_shown(here[0])} as read, {_shown(here[1])} read "
        f"{other_words}"
    )
    if there is not None:
        text += (
            f"; each query is kept in its own list (the profile's self-match rule) and finds "
            f"itself first either way: its nearest other item is relevant for "
            f"{_shown(there[0])} as read, {_shown(there[1])} read {other_words}"
        )
    advice = ""  # the command line's words: the app says its own
    if fixed_by is not None:
        text += f" (the {fixed_by} profile reads {what[a.matrix_order].split(' (')[0]})"
    else:
        advice = f" (--matrix-order {other})"
    return DataWarning(
        "matrix_order",
        text + advice,
        0,
        advice=advice,
        other=OtherReading("matrix_order", other, "nn", here[0], here[1], fixed_by, there),
    )


def _shown(value: float | None) -> str:
    return "undefined" if value is None or value != value else f"{value:.4f}"
