"""Where the first tier goes wrong (issue 14): the classes filling the first
tiers of a class's queries, counted by hand on a small leave-one-out contest."""

from __future__ import annotations

import pytest
from shrec_eval import Assessment, EvalOptions, RankedRun
from shrec_eval.scoring.confusion import (
    NOT_RETRIEVED,
    UNKNOWN_ID,
    first_tier_confusion,
    item_classes,
)

# classes: A = a1 a2 a3, B = b1 b2, C = c1; every model a query (self removed)
CLASSES = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B", "c1": "C"}


def _contest():
    items = list(CLASSES)
    judgments = {
        q: {i: 1 for i, c in CLASSES.items() if c == cq and i != q} for q, cq in CLASSES.items()
    }
    a = Assessment.from_judgments(
        judgments, items, leave_one_out=True, query_classes=CLASSES, top_grade=1
    )
    lists = {
        # R = 2 for class A: first tiers a1 -> [b1, a2], a2 -> [a2 (self, removed), c1, a3],
        # a3 -> [zz (unknown)] (one place not retrieved)
        "a1": ["b1", "a2", "a3"],
        "a2": ["a2", "c1", "a3", "b2"],
        "a3": ["zz"],
        "b1": ["b2", "a1"],
        "b2": ["a1", "b1"],
        "c1": ["a1"],
    }
    return a, RankedRun.from_lists("r", lists, a)


def test_item_classes_follow_the_queries_that_are_items():
    a, _ = _contest()
    assert item_classes(a) == list(CLASSES.values())


def test_first_tier_counts_by_hand():
    a, run = _contest()
    got = first_tier_confusion(a, run, "A", EvalOptions())
    # places: 3 queries x R = 2 = 6: A (a2, a3) 2, B (b1) 1, C (c1) 1, unknown 1, not retrieved 1
    assert got.queries == 3 and got.slots == 6
    assert got.counts == {"A": 2, "B": 1, "C": 1, UNKNOWN_ID: 1, NOT_RETRIEVED: 1}
    assert list(got.counts)[0] == "A"  # most frequent first
    assert got.fractions() == pytest.approx(
        {"A": 2 / 6, "B": 1 / 6, "C": 1 / 6, UNKNOWN_ID: 1 / 6, NOT_RETRIEVED: 1 / 6}
    )
    b = first_tier_confusion(a, run, "B")  # R = 1: b1 -> b2, b2 -> a1
    assert b.slots == 2 and b.counts == {"A": 1, "B": 1}
    c = first_tier_confusion(a, run, "C")  # R = 0: no place
    assert c.slots == 0 and c.counts == {} and c.fractions() == {}


def test_unknown_class_is_refused():
    a, run = _contest()
    with pytest.raises(ValueError, match="no query of class 'D'"):
        first_tier_confusion(a, run, "D")
