"""The metric engine: scores a run against an assessment.

For a block of queries at a time it builds the gain matrix (queries x ranked
list, grades of the ranked items) with numpy and derives every measure of the
registry and every curve from its cumulative sums.  Blocks are sized from a
memory budget, so memory stays bounded whatever the contest size; between
blocks the engine reports progress and checks whether it should stop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import Cancelled
from ..model.assessment import MAX_EXAMPLES, Assessment, DataWarning, make_warning
from ..model.parallel import WORKERS, in_order
from ..model.runs import Run
from ..options import EvalOptions, OptionsError
from ..profiles.evaluator import Evaluator
from .averages import ClassGroups
from .blocks import Prepared as _Prepared
from .blocks import check_run_fits as _check_fits
from .blocks import chunk_size as _chunk_size
from .blocks import collection_size
from .blocks import hits_block as _hits_block
from .blocks import prepare as _prepare
from .blocks import query_rows as _query_rows
from .chunk import ChunkContext
from .curves import CURVES, RECALL_PERCENT_LEVELS
from .list_views import with_own_items
from .missing import kinds, score_missing
from .reading_checks import run_checks
from .results import CurveData, CurveMeans, QueryDetail, RunResult
from .rows import QueryRows, joined_rows

__all__ = [
    "Cancelled",
    "CurveData",
    "RunResult",
    "QueryDetail",
    "QueryScores",
    "Scoring",
    "evaluate",
    "evaluate_runs",
    "RECALL_PERCENT_LEVELS",
]

ProgressFn = Callable[[int, int], None]
StopFn = Callable[[], bool]

#: queries measured at once at the most (the measures of a group run while
#: the workers rank the next blocks; larger groups saved nothing measurable
#: and held more memory)
GROUP_CAP = 2048


# ---------------------------------------------------------------------------


def evaluate(
    assessment: Assessment,
    run: Run,
    options: EvalOptions | Evaluator | None = None,
    *,
    progress: ProgressFn | None = None,
    should_stop: StopFn | None = None,
) -> RunResult:
    """Score one run: every measure of the registry per query, the run
    means, and every curve.

    ``progress(done, total)`` is called after each block of queries and
    ``should_stop()`` before each; when it answers True, :class:`Cancelled`
    is raised and nothing is returned.
    """
    job = Scoring(assessment, run, options)
    nq = assessment.n_queries
    part = job.score(0, nq, progress=progress, should_stop=should_stop)
    return job.result([part])


@dataclass
class QueryScores:
    """The per-query part of a run's scoring, for queries ``[start, stop)``
    of the assessment: what :meth:`Scoring.result` merges (a shard of
    queries scored apart, on a cluster's worker, is one of these)."""

    start: int
    stop: int
    values: np.ndarray
    curves: dict[str, QueryRows]
    lengths: np.ndarray
    #: what the run noted of these rows while ranking them (its ties)
    run_state: object = None


class Scoring:
    """One run's scoring, in parts: the setting (options under the profile,
    the measures, what the assessment gives), :meth:`score` for any range
    of queries and :meth:`result` for the whole run from the parts.  Each
    query's values depend on that query alone (and on no block size), so
    parts scored anywhere merge to the bits of one pass."""

    def __init__(
        self, assessment: Assessment, run: Run, options: EvalOptions | Evaluator | None = None
    ) -> None:
        _check_types(assessment, run, options)
        evaluator = Evaluator.of(options)  # the profile resolved once, its options applied
        o, profile = evaluator.options, evaluator.profile
        a = assessment
        if o.average == "macro" and a.query_classes is None:
            raise OptionsError(
                "the macro average needs query classes; this assessment has none "
                "(choose micro, proportional or reciprocal)"
            )
        _check_fits(a, run)
        profile.check_reading(a, run)  # read by the profile's rules, or other numbers
        a = with_own_items(a, run)
        self.a, self.run, self.o, self.profile = a, run, o, profile
        self.evaluator = evaluator
        self.measures = list(evaluator.measures)
        size, self.size_notes = collection_size(a, run, o)
        self.prep = prep = _prepare(a, o, size)
        self.qrow, self.warnings = _query_rows(a, run)
        nq = a.n_queries
        self.width = width = max(max(o.ranks), o.curve_length)
        self.curve_list = CURVES + tuple(profile.curves)
        self.curve_x = {c.key: c.x(o) for c in self.curve_list}
        self.query_data = profile.query_data(a, o) if profile.query_data is not None else {}
        self.max_relevant = max_relevant = int((prep.ch + prep.cm).max()) if nq else 0
        # two blocks are ranked at once (one per thread): half the budget each
        self.step = step = _chunk_size(a, run, width, o.memory_budget // WORKERS)
        # the measures of several ranked blocks at once: their arrays span the
        # prefix of the lists, not the lists, and a few large numpy calls cost
        # less than many small ones
        prefix = min(max(run.max_length, width), max(width, 32, 2 * max_relevant, 1))
        self.group_size = max(step, min(o.memory_budget // (64 * prefix + 64), GROUP_CAP))

    def score(
        self,
        start: int,
        stop: int,
        *,
        progress: ProgressFn | None = None,
        should_stop: StopFn | None = None,
    ) -> QueryScores:
        """The measures, curves and list lengths of queries ``[start, stop)``
        (``progress(done, total)`` counts the assessment's queries)."""
        a, run, o, prep, profile = self.a, self.run, self.o, self.prep, self.profile
        qrow, width, step, measures = self.qrow, self.width, self.step, self.measures
        nq = a.n_queries
        n = stop - start
        values = np.empty((n, len(measures)))
        va_all = np.zeros(n, dtype=np.int64)
        # the queries the run answers are ranked; the others have no list,
        # and those alike are measured once (missing.py)
        answered = np.flatnonzero(qrow[start:stop] >= 0) + start
        missing = np.flatnonzero(qrow[start:stop] < 0) + start
        alike = (prep.ch, prep.cm, prep.ds, prep.nge, prep.selfs >= 0)
        reps, kind = kinds(missing, [*alike, *self.query_data.values()])
        # the curves' rows: the answered queries', then one per kind
        which = np.empty(n, dtype=np.intp)
        which[answered - start] = np.arange(answered.size)
        which[missing - start] = answered.size + kind
        tables = {
            c.key: np.empty((answered.size + reps.size, self.curve_x[c.key].size))
            for c in self.curve_list
        }

        def blocks():
            for first in range(0, answered.size, step):
                if should_stop is not None and should_stop():
                    raise Cancelled()
                yield answered[first : first + step]

        def ranked(qs: np.ndarray):
            """Where a block's judged items landed (a worker thread: numpy's
            sorts and look-ups run without the GIL)."""
            return qs, *_hits_block(a, run, prep, qs, qrow)

        def measure(qs: np.ndarray, lengths, hits, W: int) -> None:
            """The measures and curves of the queries ``qs`` (their lists'
            ``lengths`` and ``hits``), written at their rows."""
            at, trow = qs - start, which[qs - start]
            ctx = ChunkContext(
                hits,
                max(W, width),
                lengths,
                prep.ch[qs],
                prep.cm[qs],
                prep.ds[qs],
                prep.nge[qs],
                prep.levels,
                a.top_grade,
                o,
                self.max_relevant,
                {
                    **{k: v[qs] for k, v in self.query_data.items()},
                    "self_removed": prep.selfs[qs] >= 0,
                },
            )
            for j, m in enumerate(measures):
                own = profile.overrides.get(m.key) or profile.overrides.get(m.measure.key)
                if own is None:
                    values[at, j] = m.compute(ctx)
                else:
                    values[at, j] = own(ctx) if m.k is None else own(ctx, m.k)
            for c in self.curve_list:
                arr = c.compute(ctx, o)
                own = profile.curve_rows.get(c.key)
                tables[c.key][trow] = own(ctx, arr) if own is not None else arr

        def score(group: list) -> None:
            """The measures and curves of ranked blocks (the calling thread,
            while the workers rank the next blocks)."""
            qs = np.concatenate([g[0] for g in group])
            lengths = np.concatenate([g[1] for g in group])
            # each block's hit rows count from its own first query
            offsets = np.cumsum([0] + [g[0].size for g in group[:-1]])
            hits = tuple(
                map(
                    np.concatenate,
                    zip(*((r + off, c, g) for off, (_, _, _, (r, c, g)) in zip(offsets, group))),
                )
            )
            measure(qs, lengths, hits, max(g[2] for g in group))
            va_all[qs - start] = lengths

        if missing.size:
            if should_stop is not None and should_stop():
                raise Cancelled()
            score_missing(missing, reps, kind, self.group_size, measure, values, start)
        done = start + missing.size
        if progress is not None and missing.size:
            progress(done, nq)
        group: list = []
        for item in in_order(ranked, blocks(), ahead=WORKERS):
            group.append(item)
            done += item[0].size
            if sum(g[0].size for g in group) >= self.group_size or done == stop:
                score(group)
                group = []
            if progress is not None:
                progress(done, nq)
        if nq == 0 and progress is not None:
            progress(0, 0)
        rows = qrow[start:stop]
        state = run.row_state(rows[rows >= 0])
        curves_pq = {k: QueryRows(t, which) for k, t in tables.items()}
        return QueryScores(start, stop, values, curves_pq, va_all, state)

    def result(self, parts: Sequence[QueryScores]) -> RunResult:
        """The run's result from the parts that cover its queries (in any
        order): the per-query values as one pass would give them, then the
        data checks, the means and the averages.  The parts' arrays are
        taken over (changed in place, a single part's not copied)."""
        a, run, o, prep, profile = self.a, self.run, self.o, self.prep, self.profile
        parts = sorted(parts, key=lambda p: p.start)
        nq = a.n_queries
        if [p.start for p in parts] != [0, *(p.stop for p in parts[:-1])] or (
            parts[-1].stop if parts else 0
        ) != nq:
            raise ValueError("the parts do not cover the queries once each")
        for p in parts:
            rows = self.qrow[p.start : p.stop]
            run.set_row_state(rows[rows >= 0], p.run_state)
        if parts:
            # one part (the whole run scored here) is taken as it is: its
            # curves are the largest arrays of a run (80,000 queries: 350 MB)
            values = _joined([p.values for p in parts])
            curves_pq = {
                c.key: joined_rows([p.curves[c.key] for p in parts]) for c in self.curve_list
            }
            va_all = _joined([p.lengths for p in parts])
        else:
            values = np.empty((0, len(self.measures)))
            curves_pq = {
                c.key: QueryRows.of(np.empty((0, self.curve_x[c.key].size)))
                for c in self.curve_list
            }
            va_all = np.zeros(0, dtype=np.int64)
        qrow = self.qrow
        scored, notes = profile.scored(a, o)
        if profile.undefined_is_zero and scored.all():  # in place (no copy of every value)
            # NaN to 0 in one pass: nan_to_num looks for infinities a pass each (none, as a rule)
            np.copyto(values, 0.0, where=np.isnan(values))
            if not np.isfinite(values).all():
                np.nan_to_num(values, copy=False)
        elif profile.undefined_is_zero:
            values[scored] = np.nan_to_num(values[scored], nan=0.0)
        values[~scored] = np.nan
        for pq in curves_pq.values():
            pq[~scored] = np.nan
        cutoff = scored & ~(prep.class_size > 2) if o.psb_class_cutoff else np.zeros(nq, bool)
        included = scored & profile.included(a, o, prep.class_size, qrow >= 0)
        n_rel = prep.ch + prep.cm
        warnings = (
            list(a.notes)  # the assessment's own data checks (ids normalised, classes by position)
            # with the matrix order's check: NN as read and read otherwise, by these rules
            + run_checks(a, run, o, profile, self.measures, values, included, n_rel)
            + self.size_notes
            + self.warnings
            + notes
            + _engine_warnings(a, prep, va_all, qrow, cutoff, scored)
        )
        groups = ClassGroups(a.query_classes, included)
        # the curves' means are made when first read (trec_eval's text reads none)
        curves = {
            key: CurveData(
                key,
                self.curve_x[key],
                pq,
                CurveMeans(included, groups, n_rel, o.average, key in profile.empty_levels_zero),
            )
            for key, pq in curves_pq.items()
        }
        return RunResult(
            run.name,
            run.source,
            run.format,
            a.query_ids,
            self.measures,
            values,
            included,
            curves,
            warnings,
            o,
            a.query_classes,
            n_rel,
        )


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The arrays one after another (the array itself when there is one)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _check_types(assessment, run, options) -> None:
    """Clear errors for arguments of the wrong kind (swapped, a dict...)."""
    for name, value, kind, what in (
        ("assessment", assessment, Assessment, "an Assessment"),
        ("run", run, Run, "a Run"),
        ("options", options, (EvalOptions, Evaluator, type(None)), "an EvalOptions or None"),
    ):
        if not isinstance(value, kind):
            raise TypeError(
                f"evaluate(assessment, run, options): {name} must be {what}, "
                f"not {type(value).__name__}"
            )


def _engine_warnings(
    a: Assessment,
    prep: _Prepared,
    va: np.ndarray,
    qrow: np.ndarray,
    cutoff: np.ndarray,
    scored: np.ndarray,
) -> list[DataWarning]:
    ids = np.asarray(a.query_ids, dtype=object)
    out = []
    cr = np.where(scored, prep.ch + prep.cm, 1)
    if (cr == 0).any():
        out.append(
            make_warning(
                "no_relevant",
                "queries without any relevant item "
                "(their measures are undefined and left out of the means)",
                list(ids[cr == 0]),
            )
        )
    if a.top_grade > 1 and ((prep.ch == 0) & (cr > 0) & scored).any():
        out.append(
            make_warning(
                "no_highly_relevant",
                "queries without any highly relevant "
                "item (their highly relevant measures are undefined)",
                list(ids[(prep.ch == 0) & (cr > 0) & scored]),
            )
        )
    trunc = (va < prep.ds) & (qrow >= 0) & scored
    # TREC runs against qrels are cut (at 1000) by convention and every
    # measure counts the rest as not retrieved: nothing to tell there
    if trunc.any() and "qrels" not in a.kind:
        first = np.flatnonzero(trunc)[:MAX_EXAMPLES]
        out.append(
            DataWarning(
                "truncated_lists",
                "ranked lists shorter than the collection "
                "(items past the end count as not retrieved)",
                int(trunc.sum()),
                tuple(f"{ids[i]} ({va[i]} of {prep.ds[i]})" for i in first),
            )
        )
    if cutoff.any():
        out.append(
            make_warning(
                "psb_class_cutoff",
                "queries of classes with at most 2 members left out of the means (PSB cutoff)",
                list(ids[cutoff]),
            )
        )
    return out


def evaluate_runs(
    assessment: Assessment,
    runs: Iterable[Run],
    options: EvalOptions | None = None,
    *,
    progress: ProgressFn | None = None,
    should_stop: StopFn | None = None,
) -> list[RunResult]:
    """Score several runs; progress counts queries over all runs."""
    runs = list(runs)
    nq = assessment.n_queries
    total = nq * len(runs)
    # resolved once for every run (evaluate says what is wrong with other arguments)
    evaluator = Evaluator.of(options) if isinstance(options, (EvalOptions, type(None))) else options
    results = []
    for i, run in enumerate(runs):
        cb = None if progress is None else (lambda d, t, base=i * nq: progress(base + d, total))
        results.append(evaluate(assessment, run, evaluator, progress=cb, should_stop=should_stop))
    return results
