"""What the Ranked list tab draws: one query's ranked list in every run,
each item with its id, class and grade.  Built in the scoring worker (no Qt
here) from the engine's :func:`shrec_eval.query_detail`, so that the GUI
thread only paints and looks items up."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from shrec_eval import query_detail
from shrec_eval.model.assessment import UNKNOWN
from shrec_eval.scoring.confusion import UNKNOWN_ID, item_classes


@dataclass(frozen=True)
class RunList:
    """One run's list for the query: ``gains[r]``, ``items[r]`` (ids) and
    ``classes[r]`` (None when the contest has no classes) at rank r + 1;
    ``error`` instead when the list could not be had."""

    key: int
    name: str
    gains: np.ndarray
    items: tuple[str, ...] = ()
    classes: tuple[str, ...] | None = None
    ch: int = 0  # highly relevant items of the query
    cm: int = 0  # marginally relevant ones
    error: str | None = None

    @classmethod
    def failed(cls, key: int, name: str, message: str) -> RunList:
        return cls(key, name, np.zeros(0, dtype=np.int64), error=message)

    def __len__(self) -> int:
        return len(self.gains)


@dataclass(frozen=True)
class QueryLists:
    """The lists of one query in the runs asked for, in their order."""

    query_id: str
    runs: tuple[RunList, ...]


def class_names(assessment) -> list[str] | None:
    """The class of each collection item (as the Per class tab counts them),
    or None when the contest has no classes at all."""
    if assessment.query_classes is None and assessment.classification is None:
        return None
    return item_classes(assessment)


def run_list(assessment, run, key: int, name: str, query_id: str, options, classes) -> RunList:
    """One run's list for ``query_id``: ids and classes of its items looked
    up once here (``classes``: :func:`class_names` of the assessment)."""
    d = query_detail(assessment, run, query_id, options)
    idx = np.asarray(d.item_indices)
    known = assessment.item_ids
    items = tuple(
        known[i] if 0 <= i < len(known) else UNKNOWN_ID if i == UNKNOWN else f"#{i}"
        for i in idx.tolist()
    )
    cls = None
    if classes is not None:
        cls = tuple(classes[i] if 0 <= i < len(classes) else UNKNOWN_ID for i in idx.tolist())
    return RunList(key, name, np.asarray(d.gains), items, cls, int(d.ch), int(d.cm))
