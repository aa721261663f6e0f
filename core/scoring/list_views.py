"""A run's lists as the engine ranks them, one query or a few items at a
time, for what reads them beside the scores: a query's gain vector and
precision-recall points (:func:`query_detail`: the app's ranked lists),
the first K of many queries' lists at once (:func:`top_lists`: the report's
gallery), the first tiers (:func:`first_tier_lists`: confusion
counts), where given items land (:func:`ranks_of_items`: trec_eval's own
measures), and the queries that are collection items
(:func:`with_own_items`).  The self-match and the ranks kept are the
engine's (:mod:`.blocks`), so these agree with the scores."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np

from ..model.assessment import PAD, Assessment
from ..model.runs import Run
from ..options import EvalOptions
from ..profiles.evaluator import Evaluator
from .blocks import check_run_fits as _check_fits
from .blocks import chunk_size as _chunk_size
from .blocks import collection_size
from .blocks import hits_block as _hits_block
from .blocks import lists_block as _lists_block
from .blocks import prepare as _prepare
from .blocks import query_rows as _query_rows
from .results import QueryDetail

__all__ = [
    "check_fits",
    "first_tier_lists",
    "query_detail",
    "ranks_of_items",
    "top_lists",
    "with_own_items",
]


def with_own_items(a: Assessment, run: Run) -> Assessment:
    """The assessment with the queries the run says are collection items
    (an embedding run whose query row is an item's row: the query's own
    item, removed from its list as a leave-one-out query's is)."""
    own = run.own_items
    if own is None or not (own >= 0).any():
        return a
    merged = np.where(a.query_items >= 0, a.query_items, own)
    return replace(a, query_items=merged)


def ranks_of_items(
    assessment: Assessment,
    run: Run,
    options: EvalOptions,
    indptr: np.ndarray,
    items: np.ndarray,
    labels: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where some items of each query of ``assessment`` land in ``run``'s
    lists as the engine scores them, whatever the run's kind (TREC run,
    rank lists, matrix, embeddings, top-K): the self-match taken out (the
    items after it move up a rank) and ranks past ``max_rank`` dropped.
    ``items[indptr[q]:indptr[q + 1]]`` are query ``q``'s items (distinct,
    collection indices), each with a label.  Returns (query index, 0-based
    rank, label) of every item found, in query and rank order, and the
    length of every query's list (0 for a query the run does not answer)."""
    o = Evaluator.of(options).options
    a = assessment
    _check_fits(a, run)
    prep = _prepare(a, o, collection_size(a, run, o)[0])
    counts: np.ndarray = np.diff(np.asarray(indptr, dtype=np.int64))
    asked = replace(
        prep,
        judged_rows=np.repeat(np.arange(a.n_queries), counts),
        judged_items=np.asarray(items, dtype=np.int64),
        judged_grades=np.asarray(labels),
        indptr=np.asarray(indptr, dtype=np.int64),
    )
    qrow, _ = _query_rows(a, run)
    step = _chunk_size(a, run, 1, o.memory_budget)
    parts, lengths = [], np.zeros(a.n_queries, dtype=np.int64)
    for start in range(0, a.n_queries, step):
        qs = np.arange(start, min(start + step, a.n_queries))
        got, _, (r, k, lab) = _hits_block(a, run, asked, qs, qrow)
        lengths[qs] = got
        parts.append((r + start, k, lab))
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.asarray(labels)[:0], lengths
    q, k, lab = (np.concatenate(p) for p in zip(*parts))
    return q, k, lab, lengths


def check_fits(a: Assessment, run: Run) -> None:
    """An AssessmentError when ``run`` was read against another assessment."""
    _check_fits(a, run)


def first_tier_lists(
    a: Assessment, run: Run, queries: Sequence[int], options: EvalOptions
) -> Iterator[tuple[int, np.ndarray]]:
    """For each assessment query of ``queries`` (indices), one at a time:
    the size of its first tier (its relevant items, as the engine counts
    them under ``options``) and the item indices its ranked list puts
    there (PAD removed; UNKNOWN for ids outside the collection): what the
    first-tier confusion counts."""
    prep = _prepare(a, options, collection_size(a, run, options)[0])
    qrow, _ = _query_rows(a, run)
    for q in queries:
        tier = int(prep.ch[q] + prep.cm[q])
        idx, lengths = _lists_block(a, run, prep, np.array([q]), qrow)
        got = idx[0, : min(tier, int(lengths[0]))]
        yield tier, got[got != PAD]


def _listed(assessment: Assessment, run: Run, options: EvalOptions | None):
    """What listing a run's queries as the scores have them needs: the
    options under their profile (its list handling: the self-match rule),
    the assessment with the run's own items, its preparation and the run's
    row of each query; a ValueError when the run was read otherwise."""
    evaluator = Evaluator.of(options)
    o, profile = evaluator.options, evaluator.profile
    _check_fits(assessment, run)
    profile.check_reading(assessment, run)
    assessment = with_own_items(assessment, run)
    prep = _prepare(assessment, o, collection_size(assessment, run, o)[0])
    qrow, _ = _query_rows(assessment, run)
    return o, assessment, prep, qrow


def top_lists(
    assessment: Assessment,
    run: Run,
    queries: Sequence[int],
    k: int,
    options: EvalOptions | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first ``k`` entries of the lists of the assessment queries
    ``queries`` (indices, distinct) in ``run``, as :func:`query_detail`
    gives them (its ``item_indices`` and ``gains``), in blocks of queries
    under the memory budget rather than one query at a time: item indices
    (``len(queries)`` x ``k``, PAD past a list's end), their gains (0
    there) and each list's length cut at ``k``."""
    o, a, prep, qrow = _listed(assessment, run, options)
    wanted = np.asarray(queries, dtype=np.int64)
    n = wanted.size
    items = np.full((n, k), PAD, dtype=np.int64)
    gains = np.zeros((n, k), dtype=np.int64)
    lengths = np.zeros(n, dtype=np.int64)
    order = np.argsort(wanted, kind="stable")  # a block's queries ascend
    step = _chunk_size(a, run, 1, o.memory_budget)
    for start in range(0, n, step):
        at = order[start : start + step]
        qs = wanted[at]
        idx, got = _lists_block(a, run, prep, qs, qrow)
        w = min(k, idx.shape[1])
        items[at, :w] = idx[:, :w]
        lengths[at] = np.minimum(got, k)
        _, _, (row, rank, grade) = _hits_block(a, run, prep, qs, qrow)
        top = rank < k
        gains[at[row[top]], rank[top]] = grade[top]
    past = np.arange(k) >= lengths[:, None]
    items[past] = PAD
    gains[past] = 0
    return items, gains, lengths


def query_detail(
    assessment: Assessment, run: Run, query_id: str, options: EvalOptions | None = None
) -> QueryDetail:
    """The gain vector of one query of a run (self-match removed as the
    options, under their profile, say) and its raw, non-interpolated
    precision-recall points."""
    q = assessment.query_index(query_id)
    if q is None:
        raise KeyError(f"query {query_id!r} is not in the assessment")
    _, assessment, prep, qrow = _listed(assessment, run, options)
    idx, lengths = _lists_block(assessment, run, prep, np.array([q]), qrow)
    va = int(lengths[0])
    _, _, (_, at, grade) = _hits_block(assessment, run, prep, np.array([q]), qrow)
    gains = np.zeros(va, dtype=np.int64)
    gains[at] = grade
    cr = int(prep.ch[q] + prep.cm[q])
    hits = np.cumsum(gains >= 1)
    ranks = np.arange(1, va + 1)
    recall = hits / cr if cr else np.full(va, np.nan)
    return QueryDetail(
        query_id,
        gains,
        idx[0, :va].astype(np.int64),
        int(prep.ch[q]),
        int(prep.cm[q]),
        recall,
        hits / ranks,
    )
