"""``--format trec_eval``: a run's scores printed exactly as the trec_eval
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

from .errors import UsageError
from .profiles import get_profile

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


def _bpref(assessment, run, result) -> np.ndarray:
    """trec_eval's bpref per query of the assessment: over the judged
    documents of the list only (relevant = grade >= -l, judged non-relevant
    = a lower grade or a grade-0 line), each relevant one adds 1 - min(n, R)
    / min(N, R), n = judged non-relevant ranked above it, N = all judged
    non-relevant of the query, R = relevant; the sum is divided by R."""
    level = result.options.relevance_level
    cut = result.options.max_rank
    zero = assessment.judged_zero
    row_of = {q: r for r, q in enumerate(run.query_ids)}
    out = np.zeros(assessment.n_queries)
    for qi, q in enumerate(assessment.query_ids):
        lo, hi = assessment.indptr[qi], assessment.indptr[qi + 1]
        items, grades = assessment.judged_items[lo:hi], assessment.judged_grades[lo:hi]
        rel = items[grades >= level]
        nonrel = items[grades < level]
        if zero is not None:
            nonrel = np.concatenate((nonrel, zero[1][zero[0][qi] : zero[0][qi + 1]]))
        R, N = rel.size, nonrel.size
        r = row_of.get(q)
        if r is None or R == 0:
            continue
        lst = run.flat[run.indptr[r] : run.indptr[r + 1]]
        if cut is not None:
            lst = lst[:cut]
        is_rel = np.isin(lst, rel)
        is_non = np.isin(lst, nonrel)
        seen = np.cumsum(is_non)[is_rel]  # judged non-relevant above each relevant one
        den = min(N, R)
        terms = [1.0 - min(int(n), R) / den if n > 0 else 1.0 for n in seen]
        total = 0.0
        for t in terms:  # trec_eval's running sum, in rank order
            total += t
        out[qi] = total / R
    return out


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
        return np.nan_to_num(result.column(key), nan=0.0)

    tp, fp, fn = col("tp_r"), col("fp_r"), col("fn_r")
    reals = [
        ("map", col("ap_trec_r")),
        ("Rprec", col("ft_psb")),
        ("bpref", _bpref(assessment, run, result)),
        ("recip_rank", col("rr")),
        *((f"iprec_at_recall_{k[6:]}", col(k)) for k in IPREC_KEYS),
        *((f"P_{k}", col(f"p@{k}")) for k in P_CUTOFFS),
    ]
    present = set(run.query_ids)
    complete = o.complete_queries
    order = sorted(
        (q for q in range(assessment.n_queries) if complete or assessment.query_ids[q] in present),
        key=lambda q: assessment.query_ids[q].encode("utf-8"),
    )
    if not order:
        raise UsageError("no query has both results and relevance judgments (trec_eval: exit 7)")
    lines = []
    sums = {name: 0.0 for name, _ in reals}
    counts = {"num_ret": 0, "num_rel": 0, "num_rel_ret": 0}
    gm = 0.0
    for q in order:
        qid = assessment.query_ids[q]
        vals = {
            "num_ret": int(tp[q] + fp[q]) if qid in present else 0,
            "num_rel": int(tp[q] + fn[q]),
            "num_rel_ret": int(tp[q]),
        }
        for name, v in vals.items():
            counts[name] += v
        if per_query:
            lines += [_row(name, qid, v) for name, v in vals.items()]
        for name, values in reals:
            sums[name] += float(values[q])
            if per_query:
                lines.append(_real(name, qid, float(values[q])))
        gm += math.log(max(float(reals[0][1][q]), MIN_GEO_MEAN))
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
