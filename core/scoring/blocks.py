"""The engine's blocks of queries: what is prepared once per assessment and
options (relevant counts, the collection size, self-matches), a block's
ranked lists as item indices and where its judged items landed (the hits the
measures are computed from), how many queries a block holds under the memory
budget, and each query's row of a run.

For the engine: Prepared and prepare, lists_block, hits_block, chunk_size,
query_rows, check_run_fits and collection_size."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import AssessmentError
from ..model.assessment import PAD, Assessment, DataWarning, make_warning
from ..model.runs import MARKS_PER_ENTRY, Run
from ..options import EvalOptions


@dataclass
class Prepared:
    """What the engine needs of an assessment for one option set."""

    ch: np.ndarray
    cm: np.ndarray
    nge: np.ndarray
    levels: np.ndarray
    ds: np.ndarray
    selfs: np.ndarray
    judged_rows: np.ndarray
    judged_items: np.ndarray
    judged_grades: np.ndarray
    indptr: np.ndarray
    class_size: np.ndarray
    #: only the first max_rank entries of a list count (trec_eval's -M)
    max_rank: int | None = None


def collection_size(a: Assessment, run: Run, options: EvalOptions) -> tuple[int, list]:
    """Ds for a run, with the data check that says how it was found.  The
    collection holds at least the judged items and every id the run
    retrieves, so that TN, accuracy and the E-measure stay in range: without
    a given size (qrels alone) it is exactly those; a given size smaller
    than that is an error; a listed collection (.cla, --collection) that
    misses ids of the run counts them as further items."""
    least = a.n_items + run.unknown_count
    given = options.collection_size
    if given is None and a.size_inferred:
        others = run.unknown_count
        plus = " plus the unjudged ones the run retrieves" if others else ""
        text = (
            "no collection size was given for the qrels: the collection is taken as its "
            f"{a.n_items} judged documents{plus} (give --collection-size N or --collection "
            "FILE when true negatives, accuracy or the E-measure matter)"
        )
        if others:
            text += "; unjudged documents retrieved"
        return least, [DataWarning("collection_inferred", text, others)]
    size = given if given is not None else a.collection_size
    if size >= least:
        return size, []
    if given is not None or not a.closed:
        raise AssessmentError(
            f"the collection size {size} (--collection-size) is smaller than the "
            f"{least} documents judged or retrieved by run {run.name!r} "
            f"({a.n_items} in the assessment, {run.unknown_count} others): the collection "
            "holds at least those (trec_eval reads -N only for measures it does not print "
            "by default: leave -N out there)"
        )
    return least, [
        DataWarning(
            "collection_extended",
            f"ids outside the collection of {size} are counted as further collection "
            f"items (collection of {least} for TN, accuracy, E-measure)",
            run.unknown_count,
        )
    ]


def _grade_levels(grades: np.ndarray, top: int, low: int) -> np.ndarray:
    """The distinct grades (1..top) and ``top``, ascending (``low``: the
    least grade): one grade for all (a qrels made from classes) is read off
    ``low`` and the largest grade, else the grades are counted when they
    are few (a sort of a million judgments is 50 ms), else sorted."""
    if grades.size and int(grades.max()) == low:
        return np.unique(np.array([low, top], dtype=np.int64))
    if top <= max(1 << 16, grades.size):
        seen = np.bincount(grades, minlength=top + 1)
        seen[top] = 1
        return np.flatnonzero(seen).astype(np.int64)
    return np.unique(np.concatenate((grades, [top])))


def prepare(a: Assessment, options: EvalOptions, size: int) -> Prepared:
    nq = a.n_queries
    counts = np.diff(a.indptr).astype(np.int64)
    qidx = np.repeat(np.arange(nq), counts)
    items, grades = a.judged_items, a.judged_grades
    selfs = a.query_items if options.remove_self else np.full(nq, -1, dtype=np.int64)
    # (queries that are no items, judgments all at the relevance level or
    # above, as a qrels made from classes: every judgment kept as it is,
    # without a pass over them for each step)
    items_queries = bool((a.query_items >= 0).any())
    low = int(grades.min()) if grades.size else options.relevance_level
    # class size for the PSB cutoff: relevant items, the query itself included
    self_judged = np.zeros(nq, dtype=bool)
    if items_queries:
        self_judged[qidx[items == a.query_items[qidx]]] = True
    class_size = counts + ((a.query_items >= 0) & ~self_judged)
    levels = _grade_levels(a.judged_grades, a.top_grade, low)
    kept = counts
    # judgments below the relevance level (trec_eval's -l) count as not relevant
    if (selfs >= 0).any() or low < options.relevance_level:
        keep = (items != selfs[qidx]) & (grades >= options.relevance_level)
        qidx, items, grades = qidx[keep], items[keep], grades[keep]
        low = int(grades.min()) if grades.size else low
        kept = np.bincount(qidx, minlength=nq)
    # judged items of grade >= each distinct grade level (the ideal vectors)
    nge = np.stack(
        [kept if g <= low else np.bincount(qidx[grades >= g], minlength=nq) for g in levels],
        axis=1,
    ).astype(np.int64)
    ch = nge[:, -1]
    cm = nge[:, 0] - ch
    if size < a.n_items:
        raise AssessmentError(
            f"collection size {size} is smaller than the {a.n_items} items the assessment names"
        )
    ds = np.full(nq, size, dtype=np.int64) - (selfs >= 0)
    indptr = np.concatenate(([0], np.cumsum(kept)))
    return Prepared(
        ch, cm, nge, levels, ds, selfs, qidx, items, grades, indptr, class_size, options.max_rank
    )


def lists_block(
    a: Assessment, run: Run, prep: Prepared, qs: np.ndarray, qrow: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The ranked lists of the assessment queries ``qs`` as item indices
    (padded with PAD, self-matches removed, cut at ``max_rank``) and their
    lengths: what a person looks at (one query's list, the first tiers).
    Scoring needs only where the judged items landed (:func:`hits_block`)."""
    B = qs.size
    rows = qrow[qs]
    present = rows >= 0
    if present.all():
        idx, lengths = run.ranked_block(rows)
    else:
        sub, sub_len = (
            run.ranked_block(rows[present])
            if present.any()
            else (np.zeros((0, 0), np.int32), np.zeros(0, np.int64))
        )
        idx = np.full((B, sub.shape[1]), PAD, dtype=np.int32)
        idx[present] = sub
        lengths = np.zeros(B, dtype=np.int64)
        lengths[present] = sub_len
    lengths = np.asarray(lengths, dtype=np.int64)
    selfs = prep.selfs[qs]
    if (selfs >= 0).any() and idx.size:
        match = (idx == selfs[:, None]) & (selfs >= 0)[:, None]
        found = match.any(axis=1)
        if found.any():
            pos = np.where(found, match.argmax(axis=1), idx.shape[1])
            shifted = np.empty_like(idx)
            shifted[:, :-1] = idx[:, 1:]
            shifted[:, -1] = PAD
            idx = np.where(np.arange(idx.shape[1]) >= pos[:, None], shifted, idx)
            lengths = lengths - found
    if prep.max_rank is not None and idx.shape[1] > prep.max_rank:
        idx = idx[:, : prep.max_rank]
        lengths = np.minimum(lengths, prep.max_rank)
    return idx, lengths


def hits_block(
    a: Assessment, run: Run, prep: Prepared, qs: np.ndarray, qrow: np.ndarray
) -> tuple[np.ndarray, int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """List lengths, list width and the retrieved relevant items (local row,
    0-based rank, grade; in row and rank order) of the assessment queries
    ``qs`` (ascending): the judged items' ranks as the run finds them
    (:meth:`Run.judged_ranks`), the self-match (``remove_self``) taken out
    of each list and the items after it moved up a rank, ranks past
    ``max_rank`` dropped."""
    B = qs.size
    rows = qrow[qs]
    present = np.flatnonzero(rows >= 0)
    jrow, jitem, jgrade = _judged_of(prep, qs)
    selfs = prep.selfs[qs]
    srow = np.flatnonzero(selfs >= 0)
    lengths = np.zeros(B, dtype=np.int64)
    if present.size == B and not srow.size:
        # every query answered, none an item: the judged items are asked as
        # they are (a qrels of R = 1,000: 2,000,000 pairs a block, not copied)
        if B:
            lengths, ranks = run.judged_ranks(rows, jrow, np.asarray(jitem, dtype=np.int64))
            lengths = np.asarray(lengths, dtype=np.int64)
        else:
            ranks = np.zeros(0, dtype=np.int64)
    else:
        # asked of the run: the judged items, then each list's own query item
        local = np.full(B, -1, dtype=np.int64)
        local[present] = np.arange(present.size)
        ask_row = np.concatenate((local[jrow], local[srow]))
        ask_item = np.concatenate((jitem, selfs[srow]))
        asked = ask_row >= 0
        ranks = np.full(ask_row.size, -1, dtype=np.int64)
        if present.size:
            got_len, got = run.judged_ranks(rows[present], ask_row[asked], ask_item[asked])
            lengths[present] = got_len
            ranks[asked] = got
    width = int(lengths.max()) if B else 0
    rank = ranks[: jrow.size]
    self_rank = np.full(B, -1, dtype=np.int64)
    self_rank[srow] = ranks[jrow.size :]
    if (self_rank >= 0).any():
        lengths -= self_rank >= 0
        below = self_rank[jrow]
        rank = rank - ((below >= 0) & (rank > below))
    if prep.max_rank is not None:
        width = min(width, prep.max_rank)
        lengths = np.minimum(lengths, prep.max_rank)
        rank = np.where(rank < prep.max_rank, rank, -1)
    keep = np.flatnonzero(rank >= 0)
    hrow, hrank = jrow[keep], rank[keep]
    order = np.argsort(hrow * (width + 1) + hrank, kind="stable")
    return lengths, width, (hrow[order], hrank[order], jgrade[keep][order])


def _judged_of(prep: Prepared, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The relevant judgments of the queries ``qs`` (ascending): local row
    (the query's place in ``qs``), item and grade, query by query.  One
    slice when the queries are consecutive."""
    if not qs.size:
        return np.zeros(0, np.int64), prep.judged_items[:0], prep.judged_grades[:0]
    if qs[-1] - qs[0] + 1 == qs.size:
        lo, hi = prep.indptr[qs[0]], prep.indptr[qs[-1] + 1]
        rows = prep.judged_rows[lo:hi]  # (a view: the first block asks them as they are)
        return (
            rows - qs[0] if qs[0] else rows,
            prep.judged_items[lo:hi],
            prep.judged_grades[lo:hi],
        )
    starts = prep.indptr[qs]
    counts = prep.indptr[qs + 1] - starts
    local = np.repeat(np.arange(qs.size, dtype=np.int64), counts)
    # each judgment's place: its query's first, plus its place among them
    shift = starts - (np.cumsum(counts) - counts)
    at = np.arange(local.size, dtype=np.int64) + np.repeat(shift, counts)
    return local, prep.judged_items[at], prep.judged_grades[at]


def chunk_size(a: Assessment, run: Run, width: int, budget: int) -> int:
    L = max(run.max_length, width)
    # the lists' arrays, and the marks of ranks_in_lists (none past a size)
    marks = a.n_items + 2
    per_query = 64 * L + (marks if marks <= MARKS_PER_ENTRY * L else 0)
    return int(max(1, min(budget // per_query, 65536)))


def query_rows(a: Assessment, run: Run) -> tuple[np.ndarray, list[DataWarning]]:
    rows_of = run.row_of()
    qrow = np.array([rows_of.get(q, -1) for q in a.query_ids], dtype=np.int64)
    warnings = []
    missing = [q for q, r in zip(a.query_ids, qrow) if r < 0]
    if missing:
        warnings.append(
            make_warning(
                "missing_queries",
                "queries of the assessment missing from the run (scored as empty lists)",
                missing,
            )
        )
    extra = [q for q in run.query_ids if a.query_index(q) is None]
    if extra:
        warnings.append(
            make_warning(
                "extra_queries",
                "queries of the run that the assessment does not have (ignored)",
                extra,
            )
        )
    return qrow, warnings


def check_run_fits(a: Assessment, run: Run) -> None:
    if not run.fits(a):
        raise AssessmentError(
            f"run {run.name!r} was read against another assessment (a collection of "
            f"{run.n_items} items, not this one's {a.n_items} items in this order); "
            "read it again against this one"
        )
