"""Reference implementation (test oracle) of the 3D-shape-retrieval measures.

This module is a deliberately slow, plain-Python re-statement of the binding
definitions of ``docs/measures.md`` (sources: the SHREC 2006 web page
"Performance measures used" and the SHREC 2006 contest report, for SHREC 2012
/ PSB the SHREC 2012 generic track's evaluation methods).  It exists only so
that the fast, vectorised engine can be tested against an independent
implementation: every measure is one small function written with plain
loops, so that each line can be checked against the text of the
definitions.  Nothing here is meant to be fast or clever.

Only the standard library is used (``math`` for log2, ``fractions`` so that
all rational measures are computed exactly and rounded to float once, at the
very end, and recall levels are compared exactly).

Conventions (spec sections 1, 2, 3, 5):

* ``gains``  -- grades of the ranked list, in rank order (G[1..Va]).
* ``judged`` -- grades of all collection items with grade >= 1 for the query
  (self-match already removed by the caller).
* ``ds``     -- collection size Ds (already minus 1 for a self-match).
* ``top``    -- top grade of the assessment (1 binary, 2 SHREC 2006).
* "highly relevant" = grade == top;  "relevant" = grade >= 1.
* Ranks are 1-based in comments and docstrings, Python lists are 0-based:
  G[i] is ``gains[i - 1]``.
* A value that the spec calls undefined is returned as ``None``.

Entry points: ``reference_query`` (per-query scalar measures, keyed by the
stable keys of spec section 7) and ``reference_curves`` (per-query curves).
Run ``python3 tests/reference.py`` to check the oracle against the worked
example of the spec / seed 000.
"""

import math
from fractions import Fraction

# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def is_highly_relevant(grade, top):
    """Spec 1: highly relevant = grade equal to the top grade."""
    return grade == top


def is_relevant(grade):
    """Spec 1: relevant = grade >= 1."""
    return grade >= 1


def as_float(value):
    """Round an exact value (int or Fraction) to float; keep None as None."""
    if value is None:
        return None
    return float(value)


def gain_at(gains, i):
    """G[i] for a 1-based rank i; ranks past the end of the list gain 0
    (spec 2: "past the end of a truncated list nothing more is gained")."""
    if i <= len(gains):
        return gains[i - 1]
    return 0


def count_within(gains, n, wanted):
    """Number of items among the first n of the ranked list for which
    wanted(grade) is true.  Positions past the end of the list are misses."""
    count = 0
    for i in range(1, n + 1):
        if i > len(gains):
            break
        if wanted(gains[i - 1]):
            count += 1
    return count


def count_all(gains, wanted):
    """V: number of items of the whole ranked list for which wanted(grade)."""
    return count_within(gains, len(gains), wanted)


# ---------------------------------------------------------------------------
# Spec 2: SHREC 2006 per-query measures.  Each function gets the predicate of
# the variant (highly relevant or relevant) and C of the variant (Ch or Cr).
# ---------------------------------------------------------------------------


def true_positives(gains, wanted):
    """TP = V."""
    return count_all(gains, wanted)


def false_positives(gains, wanted):
    """FP = Va - V."""
    return len(gains) - count_all(gains, wanted)


def true_negatives(gains, wanted, c, ds):
    """TN = Ds + V - Va - C."""
    return ds + count_all(gains, wanted) - len(gains) - c


def false_negatives(gains, wanted, c):
    """FN = C - V."""
    return c - count_all(gains, wanted)


def accuracy(gains, wanted, c, ds):
    """Accuracy = (TP + TN) / (TP + TN + FP + FN)  (seed 004, eq. 4.6).
    The denominator equals Ds; for the degenerate Ds = 0 we return 0."""
    tp = true_positives(gains, wanted)
    tn = true_negatives(gains, wanted, c, ds)
    fp = false_positives(gains, wanted)
    fn = false_negatives(gains, wanted, c)
    denominator = tp + tn + fp + fn
    if denominator == 0:
        return Fraction(0)
    return Fraction(tp + tn, denominator)


def precision(gains, wanted):
    """Precision = V / Va; 0 for an empty list."""
    va = len(gains)
    if va == 0:
        return Fraction(0)
    return Fraction(count_all(gains, wanted), va)


def recall(gains, wanted, c):
    """Recall = V / C; undefined when C = 0."""
    if c == 0:
        return None
    return Fraction(count_all(gains, wanted), c)


def first_tier(gains, wanted, c):
    """First Tier = hits within the first d1 items / d1, d1 = min(Va, C)
    (C of the variant, [resolved]).  Undefined when C = 0; 0 for an empty
    list (d1 = 0)."""
    if c == 0:
        return None
    d1 = min(len(gains), c)
    if d1 == 0:
        return Fraction(0)
    return Fraction(count_within(gains, d1, wanted), d1)


def second_tier(gains, wanted, c):
    """Second Tier (SHREC 2006) = hits within the first d2 items / d2,
    d2 = min(Va, 2C).  Undefined when C = 0; 0 for an empty list."""
    if c == 0:
        return None
    d2 = min(len(gains), 2 * c)
    if d2 == 0:
        return Fraction(0)
    return Fraction(count_within(gains, d2, wanted), d2)


def sum_of_precisions_at_hits(gains, wanted):
    """Sum of precision@i over the ranks i of the retrieved hits."""
    total = Fraction(0)
    hits = 0
    for i in range(1, len(gains) + 1):
        if wanted(gains[i - 1]):
            hits += 1
            total += Fraction(hits, i)
    return total


def average_precision_shrec(gains, wanted, c):
    """AP (SHREC 2006) = mean of precision@i over the retrieved hits, i.e.
    the sum divided by V.  Undefined when C = 0.  When nothing relevant is
    retrieved (V = 0, which includes the empty list) the value is 0."""
    if c == 0:
        return None
    v = count_all(gains, wanted)
    if v == 0:
        return Fraction(0)
    return sum_of_precisions_at_hits(gains, wanted) / v


def average_precision_trec(gains, wanted, c):
    """AP (trec) = the same sum divided by C.  Undefined when C = 0."""
    if c == 0:
        return None
    return sum_of_precisions_at_hits(gains, wanted) / c


def average_dynamic_recall(gains, ch, cr, top):
    """ADR = (1/q) sum_{i=1..q} f_i / i, q = min(Va, Cr);
    f_i = highly relevant within the first i if i <= Ch,
          relevant within the first i otherwise.
    Undefined when Cr = 0; 0 for an empty list (q = 0)."""
    if cr == 0:
        return None
    q = min(len(gains), cr)
    if q == 0:
        return Fraction(0)
    total = Fraction(0)
    for i in range(1, q + 1):
        if i <= ch:
            f = count_within(gains, i, lambda g: is_highly_relevant(g, top))
        else:
            f = count_within(gains, i, is_relevant)
        total += Fraction(f, i)
    return total / q


def cumulated_gain_vector(gain_vector, length):
    """CG[1] = G[1], CG[i] = CG[i-1] + G[i], for ranks 1..length.
    Past the end of gain_vector the gain is 0, so CG stays at CG[Va]."""
    cg = []
    for i in range(1, length + 1):
        if i == 1:
            cg.append(gain_at(gain_vector, 1))
        else:
            cg.append(cg[i - 2] + gain_at(gain_vector, i))
    return cg


def discounted_cumulated_gain_vector(gain_vector, length):
    """DCG[1] = G[1], DCG[i] = DCG[i-1] + G[i] / log2(i), ranks 1..length.
    Past the end of gain_vector the gain is 0, so DCG stays at DCG[Va]."""
    dcg = []
    for i in range(1, length + 1):
        if i == 1:
            dcg.append(float(gain_at(gain_vector, 1)))
        else:
            dcg.append(dcg[i - 2] + gain_at(gain_vector, i) / math.log2(i))
    return dcg


def ideal_gain_vector(judged):
    """Ideal gain vector I: the judged grades sorted in descending order,
    then zeros (the zeros are supplied by gain_at, which returns 0 past the
    end).  Ranks past Ds therefore also gain 0: ICG / IDCG stay at their
    value at Ds."""
    return sorted(judged, reverse=True)


def normalized_vector(values, ideal_values, cr):
    """NCG = CG / ICG, NDCG = DCG / IDCG, element-wise.  Undefined (None
    entries) when Cr = 0.  With Cr > 0 the ideal is > 0 at every rank."""
    if cr == 0:
        return [None for _ in values]
    result = []
    for value, ideal in zip(values, ideal_values):
        if isinstance(value, int) and isinstance(ideal, int):
            result.append(Fraction(value, ideal))
        else:
            result.append(value / ideal)
    return result


def precision_at_k(gains, k):
    """P@K = relevant within the first K / K (divides by K even when the
    list is shorter)."""
    return Fraction(count_within(gains, k, is_relevant), k)


def recall_at_k(gains, k, cr):
    """R@K = relevant within the first K / Cr; undefined when Cr = 0."""
    if cr == 0:
        return None
    return Fraction(count_within(gains, k, is_relevant), cr)


# ---------------------------------------------------------------------------
# Spec 3: PSB / SHREC 2012 family.  Relevant = grade >= 1, R = Cr.
# All undefined when Cr = 0.
# ---------------------------------------------------------------------------


def nearest_neighbour(gains, cr):
    """NN = G[1] with binary gains (1 if the first item is relevant)."""
    if cr == 0:
        return None
    if len(gains) >= 1 and is_relevant(gains[0]):
        return Fraction(1)
    return Fraction(0)


def first_tier_psb(gains, cr):
    """First Tier (PSB) = relevant within the first R / R."""
    if cr == 0:
        return None
    return Fraction(count_within(gains, cr, is_relevant), cr)


def second_tier_psb(gains, cr):
    """Second Tier (PSB) = relevant within the first 2R / R."""
    if cr == 0:
        return None
    return Fraction(count_within(gains, 2 * cr, is_relevant), cr)


def e_measure(gains, cr, ds):
    """E-Measure = F1 over the first k = min(32, Ds) positions:
    P = hits@k / k, R = hits@k / Cr, E = 2 / (1/P + 1/R), 0 when either is 0.
    Positions past the end of the list are misses."""
    if cr == 0:
        return None
    k = min(32, ds)
    if k == 0:
        return Fraction(0)
    hits = count_within(gains, k, is_relevant)
    p = Fraction(hits, k)
    r = Fraction(hits, cr)
    if p == 0 or r == 0:
        return Fraction(0)
    return 2 / (1 / p + 1 / r)


def dcg_psb(gains, cr):
    """DCG (PSB) = DCG over the whole list with binary gains, divided by the
    ideal 1 + sum_{j=2..R} 1/log2(j)."""
    if cr == 0:
        return None
    binary = []
    for g in gains:
        if is_relevant(g):
            binary.append(1)
        else:
            binary.append(0)
    if len(binary) == 0:
        dcg_of_list = 0.0
    else:
        dcg_of_list = discounted_cumulated_gain_vector(binary, len(binary))[-1]
    ideal = 1.0
    for j in range(2, cr + 1):
        ideal += 1 / math.log2(j)
    return dcg_of_list / ideal


def map_at_r(gains, cr):
    """MAP@R (Musgrave, Belongie and Lim, "A Metric Learning Reality Check",
    2020) = (1/R) sum_{i=1..R} P(i) rel(i), with R = Cr, rel(i) = 1 if the
    item at rank i is relevant, P(i) = relevant within the first i / i.
    Ranks past the end of the list are not relevant.  Undefined when Cr = 0."""
    if cr == 0:
        return None
    total = Fraction(0)
    for i in range(1, cr + 1):
        if is_relevant(gain_at(gains, i)):
            total += Fraction(count_within(gains, i, is_relevant), i)
    return total / cr


# ---------------------------------------------------------------------------
# Main entry point: per-query scalar measures
# ---------------------------------------------------------------------------


def reference_query(gains, judged, ds, top, ranks=(5, 10, 25, 50, 100)):
    """All per-query measures of the spec, keyed by the stable keys of
    spec section 7.  Values are float, or None when undefined (spec 5)."""
    gains = list(gains)
    judged = list(judged)

    ch = 0
    cm = 0
    for g in judged:
        if g == top:
            ch += 1
        elif 1 <= g < top:
            cm += 1
    cr = len(judged)

    def highly(g):
        return is_highly_relevant(g, top)

    out = {}
    for suffix, wanted, c in (("hr", highly, ch), ("r", is_relevant, cr)):
        out["tp_" + suffix] = as_float(true_positives(gains, wanted))
        out["fp_" + suffix] = as_float(false_positives(gains, wanted))
        out["tn_" + suffix] = as_float(true_negatives(gains, wanted, c, ds))
        out["fn_" + suffix] = as_float(false_negatives(gains, wanted, c))
        out["acc_" + suffix] = as_float(accuracy(gains, wanted, c, ds))
        out["prec_" + suffix] = as_float(precision(gains, wanted))
        out["rec_" + suffix] = as_float(recall(gains, wanted, c))
        out["ft_" + suffix] = as_float(first_tier(gains, wanted, c))
        out["st_" + suffix] = as_float(second_tier(gains, wanted, c))
        out["ap_" + suffix] = as_float(average_precision_shrec(gains, wanted, c))
        out["ap_trec_" + suffix] = as_float(average_precision_trec(gains, wanted, c))

    out["adr"] = as_float(average_dynamic_recall(gains, ch, cr, top))

    length = max(ranks) if len(ranks) > 0 else 0
    ideal = ideal_gain_vector(judged)
    cg = cumulated_gain_vector(gains, length)
    dcg = discounted_cumulated_gain_vector(gains, length)
    icg = cumulated_gain_vector(ideal, length)
    idcg = discounted_cumulated_gain_vector(ideal, length)
    ncg = normalized_vector(cg, icg, cr)
    ndcg = normalized_vector(dcg, idcg, cr)
    for k in ranks:
        out["p@%d" % k] = as_float(precision_at_k(gains, k))
        out["r@%d" % k] = as_float(recall_at_k(gains, k, cr))
        out["cg@%d" % k] = as_float(cg[k - 1])
        out["dcg@%d" % k] = as_float(dcg[k - 1])
        out["ncg@%d" % k] = as_float(ncg[k - 1])
        out["ndcg@%d" % k] = as_float(ndcg[k - 1])

    out["nn"] = as_float(nearest_neighbour(gains, cr))
    out["ft_psb"] = as_float(first_tier_psb(gains, cr))
    out["st_psb"] = as_float(second_tier_psb(gains, cr))
    out["e_measure"] = as_float(e_measure(gains, cr, ds))
    out["dcg_psb"] = as_float(dcg_psb(gains, cr))
    out["map@r"] = as_float(map_at_r(gains, cr))
    return out


# ---------------------------------------------------------------------------
# Measures with parameters (docs/measures.md, "Measures with parameters"):
# each family written out from its definition, with plain loops.
# ---------------------------------------------------------------------------


def discount_at(discount, i):
    """The factor of a gain at 1-based rank i."""
    if discount == "log2_from_2":
        return 1.0 if i == 1 else 1 / math.log2(i)
    if discount == "log2_from_1":
        return 1 / math.log2(i + 1)
    return 1.0  # none


def gain_of(gain, g):
    """What an item of grade g gains."""
    if gain == "grade":
        return g
    if gain == "binary":
        return 1 if g >= 1 else 0
    return 2**g - 1  # exp2


def discounted_sum(grades, depth, gain, discount):
    """sum over the first ``depth`` items (None: all) of gain x discount."""
    total = 0.0
    for i in range(1, len(grades) + 1):
        if depth is not None and i > depth:
            break
        total += gain_of(gain, grades[i - 1]) * discount_at(discount, i)
    return total


def rank_of_nth(gains, wanted, n):
    """The 1-based rank of the n-th item of ``wanted`` grade, None if fewer."""
    seen = 0
    for i in range(1, len(gains) + 1):
        if wanted(gains[i - 1]):
            seen += 1
            if seen == n:
                return i
    return None


def reference_param(family, params, at, gains, judged, ds, top, contest_max=None):
    """One measure with parameters for one query: ``params`` maps every
    parameter of the family to its value, ``at`` is K, "R" or None (the
    whole list), ``contest_max`` the largest Cr of the contest (ap's
    divide=contest_max).  None when undefined."""
    gains = list(gains)
    rel = params.get("rel", "1")
    level = top if rel == "top" else int(rel)

    def wanted(g):
        return g >= level

    c = sum(1 for g in judged if g >= level)
    va = len(gains)
    v = count_all(gains, wanted)
    depth = None if at is None else (c if at == "R" else at)
    if family == "tp":
        return float(v)
    if family == "fp":
        return float(va - v)
    if family == "fn":
        return float(c - v)
    if family == "tn":
        return float(ds + v - va - c)
    if family == "acc":
        tp, tn, fp, fn = v, ds + v - va - c, va - v, c - v
        return float(Fraction(tp + tn, tp + tn + fp + fn)) if ds else 0.0
    if family == "p":
        if at is None:
            return float(Fraction(v, va)) if va else 0.0
        if at == "R":
            return None if c == 0 else float(Fraction(count_within(gains, c, wanted), c))
        return float(Fraction(count_within(gains, at, wanted), at))
    if family == "r":
        if c == 0:
            return None
        hits = v if depth is None else count_within(gains, depth, wanted)
        return float(Fraction(hits, c))
    if family in ("ft", "st"):
        if c == 0:
            return None
        t = c if params["tier"] == "C" else max(c - 1, 0)
        look = t if family == "ft" else 2 * t
        hits = count_within(gains, look, wanted) + (1 if params["plus_one"] == "true" else 0)
        divisor = {"T": t, "2T": 2 * t, "min_va": min(va, look)}[params["divide"]]
        value = float(Fraction(hits, divisor)) if divisor else 0.0
        if family == "st" and params["early_exit"] == "1":
            last = rank_of_nth(gains, wanted, c)
            if last is None or last < look:
                value = 1.0
        return value
    if family == "ap":
        if c == 0:
            return None
        total, hits = Fraction(0), 0
        for i in range(1, va + 1):
            if depth is not None and i > depth:
                break
            if wanted(gains[i - 1]):
                hits += 1
                total += Fraction(hits, i)
        divisor = {
            "relevant": c,
            "found": hits,
            "min_k": min(c, va if depth is None else depth),
            "contest_max": contest_max,
        }[params["divide"]]
        return float(total / divisor) if divisor else 0.0
    if family == "e":
        if c == 0:
            return None
        k = min(depth, ds)
        return float(Fraction(2 * count_within(gains, k, wanted), k + c))
    if family in ("dcg", "ndcg"):
        cr = len(judged)
        cut = None if at is None else (cr if at == "R" else at)
        dcg = discounted_sum(gains, cut, params["gain"], params["discount"])
        if family == "dcg":
            return dcg
        if cr == 0:
            return None
        if params["ideal"] == "judged":
            ideal = sorted(judged, reverse=True)
        else:
            ideal = sorted((g for g in gains if g >= 1), reverse=True)
        best = discounted_sum(ideal, cut, params["gain"], params["discount"])
        return dcg / best if best else 0.0
    raise ValueError(family)


# ---------------------------------------------------------------------------
# Curves
# ---------------------------------------------------------------------------


def interpolated_precision_recall(gains, cr, levels):
    """Interpolated precision at recall levels j/(levels-1), j = 0..levels-1:
    P(r) = max precision at any rank i in 1..Va whose recall >= r, where
    recall_i = relevant within the first i / Cr and precision_i = relevant
    within the first i / i.  0 when no rank reaches r; None for every level
    when Cr = 0.  Recall is compared exactly (Fractions)."""
    if cr == 0:
        return [None for _ in range(levels)]
    points = []  # (recall_i, precision_i) for i = 1..Va
    for i in range(1, len(gains) + 1):
        rel = count_within(gains, i, is_relevant)
        points.append((Fraction(rel, cr), Fraction(rel, i)))
    curve = []
    for j in range(levels):
        level = Fraction(j, levels - 1)
        best = Fraction(0)
        for rec, prec in points:
            if rec >= level and prec > best:
                best = prec
        curve.append(float(best))
    return curve


def f_measure_curve(gains, cr, length, beta):
    """F-measure with weight beta at ranks k = 1..length:
    P_k = hits@k / k, R_k = hits@k / Cr,
    F = (1 + beta^2) P R / (beta^2 P + R), 0 if the denominator is 0.
    None entries when Cr = 0."""
    if cr == 0:
        return [None for _ in range(length)]
    b2 = beta * beta
    curve = []
    for k in range(1, length + 1):
        hits = count_within(gains, k, is_relevant)
        p = hits / k
        r = hits / cr
        denominator = b2 * p + r
        if p + r == 0 or denominator == 0:
            curve.append(0.0)
        else:
            curve.append((1 + b2) * p * r / denominator)
    return curve


def value_at_recall_levels(gains, cr, vector_over_list):
    """For recall levels 10%, 20%, ..., 100%: the value of vector_over_list
    (CG or DCG over ranks 1..Va) at the first rank i where
    relevant within the first i / Cr >= level (compared exactly).
    None if the list never reaches that level, or Cr = 0."""
    result = []
    for tenth in range(1, 11):
        level = Fraction(tenth, 10)
        found = None
        if cr > 0:
            for i in range(1, len(gains) + 1):
                rel = count_within(gains, i, is_relevant)
                if Fraction(rel, cr) >= level:
                    found = float(vector_over_list[i - 1])
                    break
        result.append(found)
    return result


def reference_curves(gains, judged, ds, top, length=100, levels=21, beta=1.0):
    """Per-query curves as plain lists:
    cg, dcg, ncg, ndcg over ranks 1..length; pr (interpolated precision at
    `levels` recall levels); f (F-measure at ranks 1..length);
    cg_at_recall, dcg_at_recall (recall levels 10%..100%).
    `ds` and `top` are accepted for symmetry with reference_query; the
    curves only need the grades (the ideal vector comes from `judged`)."""
    gains = list(gains)
    judged = list(judged)
    cr = len(judged)

    ideal = ideal_gain_vector(judged)
    cg = cumulated_gain_vector(gains, length)
    dcg = discounted_cumulated_gain_vector(gains, length)
    icg = cumulated_gain_vector(ideal, length)
    idcg = discounted_cumulated_gain_vector(ideal, length)
    ncg = normalized_vector(cg, icg, cr)
    ndcg = normalized_vector(dcg, idcg, cr)

    cg_list = cumulated_gain_vector(gains, len(gains))
    dcg_list = discounted_cumulated_gain_vector(gains, len(gains))

    return {
        "cg": [as_float(x) for x in cg],
        "dcg": [as_float(x) for x in dcg],
        "ncg": [as_float(x) for x in ncg],
        "ndcg": [as_float(x) for x in ndcg],
        "pr": interpolated_precision_recall(gains, cr, levels),
        "f": f_measure_curve(gains, cr, length, beta),
        "cg_at_recall": value_at_recall_levels(gains, cr, cg_list),
        "dcg_at_recall": value_at_recall_levels(gains, cr, dcg_list),
    }


# ---------------------------------------------------------------------------
# Self-check against the worked example (spec section 2, seed 000)
# ---------------------------------------------------------------------------


def _check(name, got, expected, tol=1e-6):
    if expected is None or got is None:
        assert got is None and expected is None, (name, got, expected)
        return
    assert abs(got - expected) <= tol, "%s: got %r, expected %r" % (name, got, expected)


def _check_vector(name, got, expected, tol=1e-6):
    assert len(got) >= len(expected), (name, len(got), len(expected))
    for i, e in enumerate(expected):
        _check("%s[%d]" % (name, i + 1), got[i], e, tol)


if __name__ == "__main__":
    from worked_example import (  # the worked example's numbers, written once
        CG,
        DCG,
        DS,
        EXPECTED,
        ICG,
        IDCG,
        JUDGED,
        NCG,
        NDCG,
        PRINTED,
        TOP,
        G,
    )

    m = reference_query(G, JUDGED, DS, TOP)

    # Every number of spec section 2's worked example (the counts exact, the
    # decimals as printed).
    spec_numbers = {**{k: v for k, v in EXPECTED.items() if isinstance(v, int)}, **PRINTED}
    for key, value in spec_numbers.items():
        _check(key, m[key], value)

    # Seed 000's vectors (printed as float32, 14 ranks; ICG/IDCG 11 ranks; the
    # decimal NCG, whose fraction list has typos at ranks 8..11, spec 2
    # [resolved]: rank 8 is 11/14).
    seed_cg, seed_dcg, seed_icg, seed_idcg, seed_ncg, seed_ndcg = CG, DCG, ICG, IDCG, NCG, NDCG

    curves = reference_curves(G, JUDGED, DS, TOP)
    _check_vector("cg", curves["cg"], seed_cg)
    _check_vector("dcg", curves["dcg"], seed_dcg)
    _check_vector("ncg", curves["ncg"], seed_ncg)
    _check_vector("ndcg", curves["ndcg"], seed_ndcg)
    _check("ncg[8] == 11/14", curves["ncg"][7], 11 / 14, 1e-12)
    ideal = ideal_gain_vector(JUDGED)
    _check_vector("icg", cumulated_gain_vector(ideal, 100), seed_icg)
    _check_vector("idcg", discounted_cumulated_gain_vector(ideal, 100), seed_idcg)
    # The @K values must be the same numbers as the vectors.
    for k in (5, 10, 25, 50, 100):
        _check("cg@%d" % k, m["cg@%d" % k], curves["cg"][k - 1], 0)
        _check("dcg@%d" % k, m["dcg@%d" % k], curves["dcg"][k - 1], 0)
        _check("ncg@%d" % k, m["ncg@%d" % k], curves["ncg"][k - 1], 0)
        _check("ndcg@%d" % k, m["ndcg@%d" % k], curves["ndcg"][k - 1], 0)
    # Past the end of the list: CG/DCG stay, ICG/IDCG stay at 17 / 9.492018.
    _check("cg@100", m["cg@100"], 14)
    _check("ncg@100", m["ncg@100"], 14 / 17)
    _check("ndcg@100", m["ndcg@100"], 8.091629 / 9.492018)

    # Sanity checks of the undefined-value rules (spec 5), not from the spec
    # example: empty list with C > 0, and Cr = 0.
    empty = reference_query([], JUDGED, DS, TOP)
    for key in (
        "rec_hr",
        "rec_r",
        "ft_hr",
        "ft_r",
        "st_hr",
        "st_r",
        "ap_hr",
        "ap_r",
        "ap_trec_hr",
        "ap_trec_r",
        "adr",
        "prec_hr",
        "prec_r",
        "p@5",
        "r@5",
        "cg@5",
        "ncg@5",
        "nn",
        "ft_psb",
        "e_measure",
        "dcg_psb",
    ):
        _check("empty " + key, empty[key], 0.0)
    nothing = reference_query([0, 0, 0], [], DS, 1)
    for key in (
        "rec_hr",
        "rec_r",
        "ft_r",
        "st_hr",
        "ap_r",
        "ap_trec_hr",
        "adr",
        "ncg@5",
        "ndcg@5",
        "r@5",
        "nn",
        "ft_psb",
        "st_psb",
        "e_measure",
        "dcg_psb",
    ):
        assert nothing[key] is None, key
    _check("Cr=0 prec_r", nothing["prec_r"], 0.0)
    _check("Cr=0 tn_r", nothing["tn_r"], DS - 3)

    print("OK")
