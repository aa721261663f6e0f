"""``trec_eval``: TREC runs scored as trec_eval reads and averages them
(docs/profiles.md).

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

import numpy as np

from ..chunk import ratio, row_sums
from .base import Profile


def ndcg_cut(ctx, k: int) -> np.ndarray:
    """trec_eval's ndcg_cut_k: sum of gain / log2(rank + 1) over the first k
    ranks, over the same sum of the ideal (judged grades, descending)."""
    disc = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))
    n = min(k, ctx.Gp.shape[1])
    dcg = row_sums(ctx.Gp[:, :n] * disc[:n])
    idcg = row_sums(ctx.ideal[:, :k] * disc)
    return ratio(dcg, idcg, ctx.no_rel)


def included(assessment, options, class_size, present) -> np.ndarray:
    """trec_eval averages over the queries of the run (``-c``: all)."""
    out = np.ones(assessment.n_queries, dtype=bool) if options.complete_queries else present
    if options.psb_class_cutoff:
        out = out & (class_size > 2)
    return out


PROFILE = Profile(
    name="trec_eval",
    label="trec_eval",
    source="usnistgov/trec_eval (trec_eval 9)",
    help="NIST trec_eval: its tie order, ndcg_cut, and averages over the run's queries",
    reading={"trec_order": True, "normalize_ids": False, "c_numbers": True},
    included=included,
    overrides={"ndcg@{k}": ndcg_cut},
    undefined_is_zero=True,
    # trec_eval's own measures: map, Rprec, recip_rank, P_5, P_10, recall_100,
    # ndcg_cut_10, num_rel_ret (docs/profiles.md)
    headline=("ap_trec_r", "ft_psb", "rr", "p@5", "p@10", "r@100", "ndcg@10", "tp_r"),
    rank_key="ap_trec_r",
)
