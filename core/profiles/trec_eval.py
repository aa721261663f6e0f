"""``trec_eval``: TREC runs scored as trec_eval reads and averages them
(docs/profiles.md).  Its rules are its evaluator file (``builtin/trec_eval.toml``);
this module holds what that file names as code (hooks): ``rr`` and the
``iprec_*`` measures, and trec_eval's text output.

* Run lines of 6 or more fields (the readers already ignore fields past the
  sixth, with a data check, as trec_eval's own test file ``results.trunc``
  needs); ties ranked by score descending, then docno descending
  (``trec_order``).
* ``-M`` = ``max_rank``, ``-l`` = ``relevance_level``, ``-N`` =
  ``collection_size``, ``-c`` = ``complete_queries``: without it only the
  queries the run answers are averaged; with it every query of the qrels,
  a missing one scoring 0.
* Ids kept as written (no normalisation: ``01`` and ``1`` are two
  queries), scores read as C's ``atof`` and grades as ``atol`` read them
  (``1_000`` is 1); :class:`~shrec_eval.contest.Contest` reads the qrels
  so under this profile.
* A query of the qrels without relevant documents scores 0 (trec_eval
  divides by nothing and keeps 0) instead of being undefined.
* ``ndcg@K`` is trec_eval's ``ndcg_cut_K``: every rank discounted by
  log2(rank + 1) (measures.md leaves rank 1 alone and divides by log2 rank).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..scoring.base_measures import Measure
from .hooks import TextOutput
from .trec_eval_text import P_CUTOFFS, trec_eval_text


def m_rr(ctx, v=None, k=None):
    """1 / rank of the first relevant item; 0 when none is retrieved."""
    r, c, _, m = ctx.hit_list
    first = m == 1
    out = np.zeros(ctx.B)
    out[r[first]] = 1.0 / (c[first] + 1.0)
    out[ctx.no_rel] = np.nan
    return out


#: trec_eval's recall levels of iprec_at_recall (the C literals 0.0, 0.1, ...)
IPREC_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _iprec_all(ctx) -> np.ndarray:
    """(B, 11): trec_eval 10's interpolated precision at the 11 recall levels.
    Level r needs n = lround(r * R) hits (at least 1); its value is the best
    precision at the n-th hit or any later one, 0 when fewer hits are
    retrieved.  (trec_eval 9 and pytrec_eval needed int(r * R + 0.9) hits.)
    Cached on the context: the 11 measures share one computation."""
    got = getattr(ctx, "_iprec", None)
    if got is not None:
        return got
    x = np.asarray(IPREC_LEVELS)[None, :] * ctx.cr[:, None].astype(np.float64)
    low = np.floor(x)
    need = np.maximum(low + (x - low >= 0.5), 1).astype(np.int64)  # C's lround, x >= 0
    m = ctx.hit_list[3]
    M = max(int(ctx.vr.max()) if ctx.B else 0, 1)
    prec = ctx.hit_matrix(m / ctx.hit_ranks, M)
    sufmax = np.maximum.accumulate(prec[:, ::-1], axis=1)[:, ::-1]
    val = np.take_along_axis(sufmax, np.clip(need - 1, 0, M - 1), axis=1)
    val = np.where(need <= ctx.vr[:, None], val, 0.0)
    val[ctx.no_rel] = np.nan
    ctx._iprec = val
    return val


@dataclass(frozen=True)
class IprecAt:
    """The compute function of ``iprec_`` at the ``j``-th recall level (an
    object, not a closure: the measures pickle, for a Dask worker)."""

    j: int

    def __call__(self, ctx, v=None, k=None):
        return _iprec_all(ctx)[:, self.j].copy()


#: its own measures: rr and interpolated precision at the 11 recall levels
MEASURES = (
    Measure(
        "rr",
        "Reciprocal Rank",
        "trec",
        "1 / the rank of the first relevant item, 0 when none is retrieved",
        m_rr,
        short="RR",
    ),
    *(
        Measure(
            f"iprec_{lvl:.2f}",
            f"Interpolated Precision at recall {lvl:.2f}",
            "trec",
            f"best precision at or after the n-th relevant item, n = lround({lvl:.1f} R) "
            "(at least 1); 0 when fewer are retrieved (trec_eval 10)",
            IprecAt(j),
            short=f"iP@{lvl:.1f}",
        )
        for j, lvl in enumerate(IPREC_LEVELS)
    ),
)

#: its own text output (the hook ``trec_eval.text``): byte for byte trec_eval's
TEXT = TextOutput("trec_eval", trec_eval_text, P_CUTOFFS)
