"""Data checks made when a run is scored, because their figures follow the
scoring's rules: the matrix-order check
(:func:`shrec_eval.reading.formats.order.order_note`) gives the run's NN as
read and in the other reading with the profile's self-match rule, the
relevance level, the queries it scores and keeps and the average, so that
its "as read" figure is the table's NN."""

from __future__ import annotations

import numpy as np

from ..model.assessment import Assessment, DataWarning
from ..model.runs import Run
from ..options import EvalOptions
from ..reading.formats.order import first_hits, order_note
from .averages import ClassGroups, average_all

__all__ = ["order_check", "run_checks"]


def run_checks(a, run: Run, o: EvalOptions, profile, measures, values, included, n_rel) -> list:
    """The run's data checks with the matrix order's (:func:`order_check`)
    where its reader put it, before the ties it counted while ranking."""
    keys = [m.key for m in measures]
    out = list(run.warnings)
    if "nn" in keys:
        fixed_by = profile.name if "matrix_order" in profile.reading else None
        nn = values[:, keys.index("nn")]
        at = next((i for i, w in enumerate(out) if w.code == "ties"), len(out))
        out[at:at] = order_check(
            a, run, o, fixed_by, profile.undefined_is_zero, nn, included, n_rel
        )
    return out


def order_check(
    a: Assessment,
    run: Run,
    o: EvalOptions,
    fixed_by: str | None,
    undefined_is_zero: bool,
    nn: np.ndarray,
    included: np.ndarray,
    n_rel: np.ndarray,
) -> list[DataWarning]:
    """The matrix-order check of a matrix run whose assessment can be read
    in the other order (``a.other_order``), or nothing.  ``nn``: the run's
    per-query NN as the engine scored it (NaN: undefined, or not scored);
    ``included`` and ``n_rel``: the queries that enter the averages and
    their weights; ``fixed_by``: the profile that fixes the matrix order;
    ``undefined_is_zero``: the profile counts a query without a relevant
    item 0 (trec_eval), else it is left out of the means."""
    matrix = getattr(run, "positional", None)
    if a.other_order is None or matrix is None:
        return []
    groups = ClassGroups(a.query_classes, included)
    undefined = np.isnan(nn)

    def mean(per_query: np.ndarray, left_out: np.ndarray, weights: np.ndarray) -> float | None:
        values = np.where(left_out, np.nan, per_query)[:, None]
        got = average_all(values, included, groups, weights)[o.average]
        return None if got is None or np.isnan(got[0]) else float(got[0])

    def hits(order, remove_self: bool) -> np.ndarray:
        return first_hits(matrix, a, *order, remove_self=remove_self, level=o.relevance_level)

    here = mean(nn, undefined, n_rel), mean(hits(a.other_order, o.remove_self), undefined, n_rel)
    there = None
    own = a.query_items
    if not o.remove_self and (own >= 0).any():
        # each query finds itself first in either reading: its nearest other
        # item tells the readings apart (undefined without another relevant item)
        relevant = a.judged_grades >= o.relevance_level
        rows = np.repeat(np.arange(a.n_queries), np.diff(a.indptr))
        own_rel = np.bincount(rows[relevant & (a.judged_items == own[rows])], minlength=a.n_queries)
        others = n_rel - own_rel
        left_out = undefined | ((others <= 0) & (not undefined_is_zero))
        ident = np.arange(a.n_queries), np.arange(a.n_items)
        there = (
            mean(hits(ident, True), left_out, others),
            mean(hits(a.other_order, True), left_out, others),
        )
    return [order_note(a, here, there, fixed_by)]
