"""Small builders shared by the tests."""

from __future__ import annotations

from shrec_eval import Assessment, RankedRun


def gains_contest(cases, ds, top=2):
    """An assessment and a run realising given gain vectors.

    ``cases`` is ``{query_id: (gains, judged)}`` where ``gains`` are the
    grades of the ranked list in order and ``judged`` the grades (>= 1) of
    every relevant item of the query.  Items are named so that the ranked
    list uses the relevant items of each grade first, then non-relevant ones.
    """
    items = [f"i{j}" for j in range(ds)]
    judgments, lists = {}, {}
    for q, (gains, judged) in cases.items():
        by_grade: dict[int, list[str]] = {}
        pos = 0
        jq = {}
        for g in sorted(judged, reverse=True):
            jq[items[pos]] = g
            by_grade.setdefault(g, []).append(items[pos])
            pos += 1
        nonrel = iter(items[pos:])
        pools = {g: iter(v) for g, v in by_grade.items()}
        lists[q] = [next(pools[g]) if g else next(nonrel) for g in gains]
        judgments[q] = jq
    a = Assessment.from_judgments(judgments, items, queries=list(cases), top_grade=top)
    return a, RankedRun.from_lists("run", lists, a)
