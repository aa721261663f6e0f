"""The trec_eval profile's own text output (``--format trec_eval``, its
``text_writer``), with trec_eval's own averaging (sums over the queries in
byte order of their ids, ``-c``), bpref and gm_map: a run's scores printed
exactly as the trec_eval
binary (version 10) prints its default measure set, so that
``shrec-eval evaluate --profile trec_eval --format trec_eval [-q] qrels run``
can replace ``trec_eval [-q] qrels run`` in a script (docs/formats.md).

The values are the engine's (the trec_eval profile's registry measures:
``ap_trec_r`` is ``map``, ``ft_psb`` ``Rprec``, ``rr`` ``recip_rank``,
``iprec_*``, ``p@K``, ``tp_r`` ``num_rel_ret``); only bpref, which needs the
judged non-relevant documents and so no registry measure has, is computed
here from the run's lists.  What is trec_eval's own is the layout: queries
in byte order of their ids, ``%-22s\\t%s\\t%6.4f`` lines, counts as
integers, the summary's sums in that query order, and its ``-c`` rules
(a query without results scores 0 and counts in every mean; the summary's
``num_rel`` then counts every relevant judgment of the qrels).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import UsageError
from ..model.names import name_bytes
from ..scoring.list_views import ranks_of_items
from . import get_profile

#: trec_eval's default cut-offs of P (and what --format trec_eval adds to --ranks)
P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
IPREC_KEYS = tuple(f"iprec_{j / 10:.2f}" for j in range(11))
#: trec_eval's MIN_GEO_MEAN: gm_map's floor for a query's AP
MIN_GEO_MEAN = 0.00001

__all__ = ["P_CUTOFFS", "trec_eval_text"]


def _row(name: str, qid: str, value) -> str:
    return f"{name:<22s}\t{qid}\t{value}\n"


def _real(name: str, qid: str, value: float) -> str:
    return _row(name, qid, f"{value:6.4f}")


def bpref(rel_ranks: np.ndarray, nonrel_ranks: np.ndarray, n_rel: int, n_nonrel: int) -> float:
    """trec_eval's bpref of one query from the 0-based ranks at which its
    judged documents were retrieved: each relevant one retrieved adds
    1 - min(n, R) / min(N, R) (1 when n = 0), n = judged non-relevant ones
    ranked above it, N = every judged non-relevant one of the query, R =
    ``n_rel``; the sum (trec_eval's running sum, in rank order) over R.
    Judged non-relevant: grades 0 .. L-1; a negative grade is neither
    relevant nor judged (trec_eval's "unjudged"), so it is in neither list."""
    if n_rel == 0:
        return 0.0
    above = np.searchsorted(np.sort(nonrel_ranks), np.sort(rel_ranks))
    den = min(n_nonrel, n_rel)
    total = 0.0
    for n in above.tolist():
        total += 1.0 - min(n, n_rel) / den if n > 0 else 1.0
    return total / n_rel


def _running_sum(values: np.ndarray) -> float:
    """0.0 + values[0] + values[1] + ..., added in that order (as trec_eval's
    loop adds: numpy's cumulative sum adds one value at a time)."""
    return float(np.cumsum(np.concatenate(([0.0], values)))[-1])


def _selfs(assessment, remove_self: bool) -> np.ndarray:
    """Each query's own collection item when the lists leave it out, else -3."""
    a = assessment
    return np.where((a.query_items >= 0) & remove_self, a.query_items, -3)


def _counts(mask: np.ndarray | None, indptr: np.ndarray) -> np.ndarray:
    """How many elements of each CSR row (``indptr``) ``mask`` holds (None:
    every element)."""
    if mask is None:
        return np.diff(indptr)
    total = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
    return total[indptr[1:]] - total[indptr[:-1]]


def _picked(indptr: np.ndarray, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, index) of every element of the CSR rows ``qs``, row by row."""
    lens = indptr[qs + 1] - indptr[qs]
    ends = np.cumsum(lens)
    idx = np.arange(int(ends[-1]) if ends.size else 0, dtype=np.int64)
    return np.repeat(qs, lens), idx + np.repeat(indptr[qs] - (ends - lens), lens)


def judged_nonrelevant(
    assessment, relevance_level: int, remove_self: bool = True, queries: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query of the assessment the documents judged non-relevant: a
    grade 1 .. L-1 judgment (below ``-l``) or a grade-0 line of the qrels
    (``judged_zero``); never a negative grade (the qrels reader leaves those
    out of ``judged_zero``), nor the query itself when the lists leave it
    out.  How many each query has, and (CSR: indptr, collection indices)
    those of the queries of the mask ``queries`` (None: every query; the
    others' rows empty: 80,000 queries of which a run answers one are not
    gathered and sorted for it)."""
    a = assessment
    nq = a.n_queries
    qs = np.arange(nq) if queries is None else np.flatnonzero(queries)
    selfs = _selfs(a, remove_self)
    parts = [
        (np.asarray(a.indptr, dtype=np.int64), a.judged_items, a.judged_grades < relevance_level)
    ]
    if a.judged_zero is not None:
        zptr, zitems = a.judged_zero
        zitems = np.asarray(zitems)
        parts.append((np.asarray(zptr, dtype=np.int64), zitems, None))
    counts = np.zeros(nq, dtype=np.int64)
    rows_l, items_l = [], []
    for indptr, items, low in parts:
        counts += _counts(low, indptr)
        if (selfs >= 0).any():  # not the query itself (a leave-one-out collection)
            rows = np.repeat(np.arange(nq), np.diff(indptr))
            own = items == selfs[rows]
            counts -= np.bincount(rows[own if low is None else low & own], minlength=nq)
        rows, at = _picked(indptr, qs)
        if low is not None:
            take = low[at]
            rows, at = rows[take], at[take]
        picked = items[at]
        keep = picked != selfs[rows]
        rows_l.append(rows[keep])
        items_l.append(picked[keep])
    rows, items = np.concatenate(rows_l), np.concatenate(items_l).astype(np.int64)
    order = np.lexsort((items, rows))
    picked_counts = np.zeros(nq, dtype=np.int64)
    picked_counts[qs] = counts[qs]
    indptr = np.concatenate(([0], np.cumsum(picked_counts)))
    return counts, indptr, items[order]


def _bpref(assessment, run, result) -> np.ndarray:
    """bpref of every query of the assessment, from the run's lists as the
    engine scores them (any run kind: TREC run, rank lists, matrix,
    embeddings, top-K; the self-match out, -M applied)."""
    a, o = assessment, result.options
    level = o.relevance_level
    nq = a.n_queries
    # only the queries the run answers retrieve anything: only their
    # documents are looked for (the others' are counted)
    answered = np.zeros(nq, dtype=bool)
    answered[[i for i in map(a.query_index, run.query_ids) if i is not None]] = True
    n_non, nptr, nitems = judged_nonrelevant(a, level, o.remove_self, answered)
    # the relevant documents: judged at grade >= L, not the query itself
    selfs = _selfs(a, o.remove_self)
    indptr = np.asarray(a.indptr, dtype=np.int64)
    high = a.judged_grades >= level
    n_rel = _counts(high, indptr)
    if (selfs >= 0).any():
        rows = np.repeat(np.arange(nq), np.diff(indptr))
        n_rel -= np.bincount(rows[high & (a.judged_items == selfs[rows])], minlength=nq)
    r_rows, at = _picked(indptr, np.flatnonzero(answered))
    keep = high[at] & (a.judged_items[at] != selfs[r_rows])
    r_rows, r_items = r_rows[keep], a.judged_items[at[keep]]
    n_rows = np.repeat(np.arange(nq), np.diff(nptr))
    # both kinds asked at once: label 1 relevant, 0 judged non-relevant
    all_rows = np.concatenate((r_rows, n_rows))
    order = np.argsort(all_rows, kind="stable")
    items = np.concatenate((r_items, nitems))[order]
    labels = np.concatenate((np.ones(r_rows.size, np.int8), np.zeros(n_rows.size, np.int8)))
    indptr = np.concatenate(([0], np.cumsum((n_rel + n_non) * answered)))
    q, rank, lab = ranks_of_items(a, run, o, indptr, items, labels[order])[:3]
    bounds = np.searchsorted(q, np.arange(nq + 1))
    out = np.zeros(nq)
    for qi in np.flatnonzero((n_rel > 0) & answered).tolist():
        k, is_rel = rank[bounds[qi] : bounds[qi + 1]], lab[bounds[qi] : bounds[qi + 1]] == 1
        out[qi] = bpref(k[is_rel], k[~is_rel], int(n_rel[qi]), int(n_non[qi]))
    # the others retrieve nothing: one value per count of their judgments
    # (the pairs told apart by one int64 key, each count below the qrels'
    # lines: a sort of 80,000 numbers, where np.unique(axis=0) of the pairs
    # sorted them as records, 30 times longer)
    unanswered = np.flatnonzero((n_rel > 0) & ~answered)
    if not unanswered.size:
        return out
    none = np.zeros(0, dtype=np.int64)
    rel, non = n_rel[unanswered], n_non[unanswered]
    _, first, kind = np.unique(
        rel * (int(non.max()) + 1) + non, return_index=True, return_inverse=True
    )
    got = np.array([bpref(none, none, int(r), int(n)) for r, n in zip(rel[first], non[first])])
    out[unanswered] = got[kind]
    return out


def _id_bytes(ids) -> list[bytes]:
    """:func:`name_bytes` of every id (one encoding of them all, split,
    when no id holds a line end or a surrogate that never was a byte)."""
    try:
        got = "\n".join(ids).encode("utf-8", "surrogateescape").split(b"\n")
    except UnicodeEncodeError:
        got = []
    return got if len(got) == len(ids) else [name_bytes(q) for q in ids]


def trec_eval_text(assessment, run, result, *, per_query: bool = False) -> str:
    """What ``trec_eval [-q] [-c] [-M N] [-l L] qrels run`` prints for one
    run: ``result`` is the run scored under the trec_eval profile with the
    ranks of :data:`P_CUTOFFS` (``run`` the run read against ``assessment``,
    for bpref and the run tag)."""
    o = result.options
    if get_profile(o.profile).text_writer is not trec_eval_text:
        raise UsageError("--format trec_eval needs --profile trec_eval")
    missing = [k for k in P_CUTOFFS if k not in o.ranks]
    if missing:
        raise UsageError(f"--format trec_eval needs the ranks {','.join(map(str, missing))}")

    def col(key: str) -> np.ndarray:
        # np.nan_to_num(v, nan=0.0), which looks for infinities a pass each
        v = result.column(key)
        out = np.where(np.isnan(v), 0.0, v)
        return out if np.isfinite(out).all() else np.nan_to_num(out)

    tp, fp, fn = col("tp_r"), col("fp_r"), col("fn_r")
    reals = [
        ("map", col("ap_trec_r")),
        ("Rprec", col("ft_psb")),
        ("bpref", _bpref(assessment, run, result)),
        ("recip_rank", col("rr")),
        *((f"iprec_at_recall_{k[6:]}", col(k)) for k in IPREC_KEYS),
        *((f"P_{k}", col(f"p@{k}")) for k in P_CUTOFFS),
    ]
    present = np.zeros(assessment.n_queries, dtype=bool)
    present[[i for i in map(assessment.query_index, run.query_ids) if i is not None]] = True
    complete = o.complete_queries
    order = sorted(
        range(assessment.n_queries) if complete else np.flatnonzero(present).tolist(),
        key=_id_bytes(assessment.query_ids).__getitem__,
    )
    if not order:
        raise UsageError("no query has both results and relevance judgments (trec_eval: exit 7)")
    at = np.asarray(order, dtype=np.intp)
    answered = present[at]
    counts = {
        "num_ret": (tp[at] + fp[at]).astype(np.int64) * answered,
        "num_rel": (tp[at] + fn[at]).astype(np.int64),
        "num_rel_ret": tp[at].astype(np.int64),
    }
    lines = []
    if per_query:
        for i, q in enumerate(order):
            qid = assessment.query_ids[q]
            lines += [_row(name, qid, int(v[i])) for name, v in counts.items()]
            lines += [_real(name, qid, float(values[q])) for name, values in reals]
    # trec_eval's sums: one query after another, in that order (from 0.0)
    sums = {name: _running_sum(values[at]) for name, values in reals}
    ap = reals[0][1][at]
    # (math.log of each distinct value, as trec_eval's log: given to every
    # query of that value by its index, not looked up query by query)
    alike, which = np.unique(ap, return_inverse=True)
    logs = np.array([math.log(max(v, MIN_GEO_MEAN)) for v in alike.tolist()], dtype=np.float64)
    gm = _running_sum(logs[which.reshape(-1)])
    counts = {name: int(v.sum()) for name, v in counts.items()}
    n = len(order)
    if complete:  # trec_eval -c: every relevant judgment of the qrels
        counts["num_rel"] = int((assessment.judged_grades > 0).sum())
    tag = run.tags[-1] if run.tags else run.name
    lines += [_row("runid", "all", tag), _row("num_q", "all", n)]
    lines += [_row(name, "all", v) for name, v in counts.items()]
    for name, _ in reals:
        lines.append(_real(name, "all", sums[name] / n))
        if name == "map":
            lines.append(_real("gm_map", "all", math.exp(gm / n)))
    return "".join(lines)
