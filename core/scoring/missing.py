"""The queries a run does not answer: scored without ranking anything.

A query's values depend on that query alone (the engine's rule), and a
query the run does not answer has no list: no hit, length 0.  What is left
to tell its row from another's is what the engine knows of the query
itself: its relevant counts (``ch``, ``cm``, the judged items of each grade
level ``nge``), its collection size ``ds``, whether its own item is taken
out of its list, and the per-query arrays its profile prepares.  Queries
alike in all of these get the same row: each kind is scored once, by the
same measures and curves on the same chunk context, and its row is given
to every query of that kind (under trec_eval's ``-c``, 80,000 missing
queries of a 4 M-line qrels are a few hundred kinds).
"""

from __future__ import annotations

import numpy as np


def kinds(qs: np.ndarray, parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The queries ``qs`` by kind: one query of each kind (``reps``) and
    each query's kind (``inverse``: ``qs[i]`` is scored as ``reps[inverse[i]]``).
    ``parts`` are per-query arrays (first axis: the assessment's queries),
    compared byte for byte; an array of objects makes every query its own
    kind."""
    n = qs.size
    if not n:
        return qs, np.zeros(0, dtype=np.intp)
    rows = []
    for p in parts:
        p = np.asarray(p)
        if p.dtype.hasobject:
            return qs, np.arange(n)
        rows.append(np.ascontiguousarray(p[qs]).reshape(n, -1).view(np.uint8).reshape(n, -1))
    keys = np.ascontiguousarray(np.concatenate(rows, axis=1))
    width = keys.shape[1]
    if not width:
        return qs[:1], np.zeros(n, dtype=np.intp)
    # one opaque value per query (its bytes), compared whole
    flat = keys.view(np.dtype((np.void, width))).ravel()
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    return qs[first], inverse.reshape(-1)


def score_missing(missing, reps, kind, group: int, measure, values, start: int) -> None:
    """The rows of the queries ``missing``: one query of each kind
    (``reps``, :func:`kinds`) measured, ``group`` at a time, as a list of
    length 0 (``measure(qs, lengths, hits, width)``: the engine's), and its
    row of ``values`` (the queries' from ``start``) given to every query of
    its kind (the curves keep the kind's row once)."""
    empty = (np.zeros(0, np.int64),) * 3  # no hit: row, rank, grade
    for first in range(0, reps.size, group):
        qs = reps[first : first + group]
        measure(qs, np.zeros(qs.size, dtype=np.int64), empty, 0)
    if reps.size < missing.size:
        # a block of rows at a time: one copy of every row at once was the
        # whole values array again (80,000 queries x 107 columns: 65 MiB);
        # the rows read are the kinds' own, written with their own values
        step = max(1, (1 << 20) // max(values[0].nbytes if values.size else 8, 8))
        for at in range(0, missing.size, step):
            values[missing[at : at + step] - start] = values[reps[kind[at : at + step]] - start]
