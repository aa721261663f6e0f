"""Where the first tier goes wrong: for one run and one query class, the
classes of the items that fill the first tiers of that class's queries (a
retrieval confusion view, issue 14).

The first tier of a query is its first R retrieved items, R = the query's
relevant targets (the self-match removed as the options say): PSB's First
Tier.  A list shorter than R leaves the rest of its tier empty (counted as
:data:`NOT_RETRIEVED`); a retrieved id the assessment does not know counts as
:data:`UNKNOWN_ID`; an item of the collection without a class as
:data:`NO_CLASS`.  An item's class comes from the classification of the
collection (a ``.cla``), else from the query that is that item.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.assessment import UNKNOWN, Assessment
from ..model.runs import Run
from ..options import EvalOptions
from .list_views import check_fits, first_tier_lists

__all__ = ["FirstTierConfusion", "first_tier_confusion", "item_classes"]

NOT_RETRIEVED = "(not retrieved)"
UNKNOWN_ID = "(unknown id)"
NO_CLASS = "(no class)"


@dataclass(frozen=True)
class FirstTierConfusion:
    """The first tiers of the queries of ``query_class`` in one run:
    ``counts[c]`` items of class ``c`` over ``slots`` places in all (most
    frequent first; the query class itself included)."""

    run_name: str
    query_class: str
    queries: int
    slots: int
    counts: dict[str, int]

    def fractions(self) -> dict[str, float]:
        """Each class's share of the first-tier places (they sum to 1)."""
        return {c: n / self.slots for c, n in self.counts.items()} if self.slots else {}


def item_classes(a: Assessment) -> list[str]:
    """The class of each collection item (:data:`NO_CLASS` where none is known)."""
    out = [NO_CLASS] * a.n_items
    if a.query_classes is not None:
        for item, c in zip(a.query_items, a.query_classes):
            if item >= 0:
                out[item] = c
    cla = a.classification
    if cla is not None:
        for j, item in enumerate(a.item_ids):
            out[j] = cla.model_class.get(item, out[j])
    return out


def first_tier_confusion(
    a: Assessment, run: Run, query_class: str, options: EvalOptions | None = None
) -> FirstTierConfusion:
    """Count the classes in the first tiers of the queries of ``query_class``."""
    if a.query_classes is None:
        raise ValueError("the assessment has no query classes")
    o = options or EvalOptions()
    check_fits(a, run)
    qs = [q for q, c in enumerate(a.query_classes) if c == query_class]
    if not qs:
        raise ValueError(f"no query of class {query_class!r}")
    names = item_classes(a) + [UNKNOWN_ID]  # index -1 of the look-up: an unknown id
    codes = {c: i for i, c in enumerate(dict.fromkeys(names))}
    of_item = np.array([codes[c] for c in names], dtype=np.int64)
    hist = np.zeros(len(codes) + 1, dtype=np.int64)  # last: not retrieved
    slots = 0
    # one query at a time: the engine's blocks are runs of consecutive queries
    for tier, got in first_tier_lists(a, run, qs, o):
        got = np.where((got == UNKNOWN) | (got >= a.n_items), len(names) - 1, got)
        hist[: len(codes)] += np.bincount(of_item[got], minlength=len(codes))
        hist[-1] += tier - got.size
        slots += tier
    labels = list(codes) + [NOT_RETRIEVED]
    order = np.argsort(-hist, kind="stable")
    counts = {labels[i]: int(hist[i]) for i in order if hist[i]}
    return FirstTierConfusion(run.name, query_class, len(qs), slots, counts)
