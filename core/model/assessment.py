"""Data model of the metric engine: assessments, runs and data-check warnings.

Ids are strings at the edges (what files and users see) and integer indices
inside (what the engine computes with).  An :class:`Assessment` owns the
index space: item ``j`` of the collection is ``assessment.item_ids[j]`` and a
run's ranked lists are arrays of such indices.

No Qt here, ever (import-linter contract in pyproject.toml).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..errors import AssessmentError
from .data_warnings import (  # noqa: F401
    MAX_EXAMPLES,
    PAD,
    UNKNOWN,
    DataWarning,
    make_warning,
)
from .limits import is_real


class ClassFile(Protocol):
    """What the layers read of a parsed ``.cla`` (the reader's
    ``Classification``, a layer above the model)."""

    path: str
    classes: list
    models: list[str]
    model_class: dict[str, str]
    model_lines: dict[str, int]

    def class_path(self, name: str) -> str: ...


@dataclass(frozen=True, eq=False)
class Assessment:
    """Relevance judgments: which items of the collection are relevant to
    which query, and how much (grade >= 1; everything else is grade 0).

    Judgments are stored per query in CSR form: the judged items of query
    ``q`` are ``judged_items[indptr[q]:indptr[q+1]]`` with grades
    ``judged_grades[...]``.  ``query_items[q]`` is the collection index of
    the query when the query is itself a collection item (leave-one-out),
    else -1 (external query).
    """

    query_ids: tuple[str, ...]
    item_ids: Sequence[str]  # a tuple, or the ids a reader's table holds
    indptr: np.ndarray
    judged_items: np.ndarray
    judged_grades: np.ndarray
    query_items: np.ndarray
    collection_size: int
    top_grade: int
    query_classes: tuple[str, ...] | None = None
    kind: str = "graded"
    source: str = ""
    #: False when the collection is not listed (TREC qrels with a size only):
    #: then ids of runs that the assessment does not name are not reported.
    closed: bool = True
    #: True when nobody gave the collection (TREC qrels without a size or a
    #: list): the collection is then the judged items plus the other ids a
    #: run retrieves (the engine adds them, with a data check)
    size_inferred: bool = False
    #: what the readers noted (ids normalised, ...), as DataWarnings
    notes: tuple = ()
    #: whether the readers normalised ids (runs then follow the same rule)
    normalize_ids: bool = False
    #: the parsed class hierarchy (``formats.cla.Classification``), if any
    classification: ClassFile | None = field(default=None, repr=False, compare=False)
    #: the queries' classes as their file lists them (the query ``.cla``; the
    #: target ``.cla`` itself for leave-one-out), if any
    query_classification: ClassFile | None = field(default=None, repr=False, compare=False)
    #: judged but not relevant (TREC qrels' grade-0 lines), per query as CSR
    #: ``(indptr, collection indices)``; trec_eval's bpref reads them
    judged_zero: tuple | None = field(default=None, repr=False, compare=False)
    #: the reading rules the file was read with (rule -> value, those that
    #: apply to its format: :data:`shrec_eval.reading.readers.RULES`); a profile
    #: refuses to score an assessment read by other rules than its own
    reading: Mapping = field(default_factory=dict, repr=False, compare=False)
    #: the reading rules of the profile it was read under: runs read against
    #: it follow them unless told otherwise (empty: the project's defaults)
    rules: Mapping = field(default_factory=dict, repr=False, compare=False)
    #: how dissimilarity matrices map onto it: ``listing`` (rows and columns
    #: in the order the file lists queries and items) or ``id`` (row r = the
    #: query of id r, column c = the item of id c)
    matrix_order: str = field(default="listing", compare=False)
    #: when the other matrix order is possible and differs (ids exactly
    #: 0..N-1, listed out of order): ``(rows, columns)``, the query and item
    #: of this assessment that row r / column c of a matrix laid out in the
    #: other order stands for (the data check of the matrix readers)
    other_order: tuple | None = field(default=None, repr=False, compare=False)
    #: ``{id: index}``, built in __post_init__ unless given: a dict, or the
    #: qrels reader's table answering as one (``TokenIndex``: get, in, [], len)
    _item_index: Any = field(default=None, repr=False, compare=False)
    _query_index: dict = field(default=None, repr=False, compare=False)  # type: ignore[arg-type]  # built in __post_init__
    #: the (item_ids, query_ids) tuples the two indexes above were built
    #: from: a copy (``dataclasses.replace``) that keeps them keeps its
    #: indexes (a million ids: 0.2 s each time), one given new ids builds them
    _indexed: tuple = field(default=(None, None), repr=False, compare=False)

    def __post_init__(self) -> None:
        items, queries = self._indexed
        if items is not self.item_ids or self._item_index is None:
            index = dict(zip(self.item_ids, range(len(self.item_ids))))
            object.__setattr__(self, "_item_index", index)
        if queries is not self.query_ids or self._query_index is None:
            index = dict(zip(self.query_ids, range(len(self.query_ids))))
            object.__setattr__(self, "_query_index", index)
        object.__setattr__(self, "_indexed", (self.item_ids, self.query_ids))
        if len(self._item_index) != len(self.item_ids):
            raise AssessmentError("the collection lists an item id twice")
        if len(self._query_index) != len(self.query_ids):
            raise AssessmentError("the assessment lists a query id twice")
        if self.collection_size < len(self.item_ids):
            raise AssessmentError(
                f"collection size {self.collection_size} is smaller than the "
                f"{len(self.item_ids)} items the assessment names"
            )
        if self.top_grade < 1:
            raise AssessmentError("the assessment has no relevant item at all (top grade < 1)")
        if self.judged_grades.size and (
            self.judged_grades.max() > self.top_grade or self.judged_grades.min() < 1
        ):
            raise AssessmentError(f"judged grades must lie in 1..{self.top_grade}")

    # -- construction -------------------------------------------------
    @classmethod
    def from_judgments(
        cls,
        judgments: Mapping[str, Mapping[str, int]],
        items: Sequence[str] | None = None,
        *,
        queries: Sequence[str] | None = None,
        collection_size: int | None = None,
        query_items: Mapping[str, str] | None = None,
        leave_one_out: bool = False,
        query_classes: Mapping[str, str] | None = None,
        top_grade: int | None = None,
        kind: str | None = None,
        source: str = "",
    ) -> Assessment:
        """Build an assessment from ``{query_id: {item_id: grade}}``.

        ``items`` is the collection in its order (the order of dissimilarity
        matrix columns); when omitted it is every judged item in first-seen
        order, and ``collection_size`` should then say how large the
        collection really is.  Grades <= 0 are "not relevant" and dropped.
        ``leave_one_out`` makes every query the collection item of the same
        id; ``query_items`` maps some queries to their collection item.
        """
        qids = list(queries) if queries is not None else list(judgments)
        item_list = _collection(judgments, qids, items, leave_one_out)
        index = {s: i for i, s in enumerate(item_list)}
        if len(index) != len(item_list):
            dup = sorted({s for s in item_list if item_list.count(s) > 1})[:MAX_EXAMPLES]
            raise AssessmentError(f"the collection lists item ids twice: {', '.join(dup)}")
        indptr, j_items, j_grades = _judged_rows(judgments, qids, index)
        mapping = dict(query_items or {})
        if leave_one_out:
            mapping.update({q: q for q in qids})
        qitems = _query_items(qids, index, mapping)
        grades = np.asarray(j_grades, dtype=np.int32)
        top = int(top_grade if top_grade is not None else (grades.max() if grades.size else 1))
        if grades.size and grades.max() > top:
            raise AssessmentError(f"a grade {int(grades.max())} is above the top grade {top}")
        classes = None
        if query_classes is not None:
            classes = tuple(str(query_classes.get(q, "")) for q in qids)
        return cls(
            query_ids=tuple(str(q) for q in qids),
            item_ids=tuple(item_list),
            indptr=np.asarray(indptr, dtype=np.int64),
            judged_items=np.asarray(j_items, dtype=np.int64),
            judged_grades=grades,
            query_items=qitems,
            collection_size=int(collection_size if collection_size is not None else len(item_list)),
            top_grade=top,
            query_classes=classes,
            kind=kind or ("binary" if top == 1 else "graded"),
            source=source,
        )

    # -- look-ups -------------------------------------------------------
    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def leave_one_out(self) -> bool:
        """True when every query is an item of the collection."""
        return bool(self.n_queries) and bool(np.all(self.query_items >= 0))

    def item_index(self, item_id: str) -> int | None:
        return self._item_index.get(item_id)

    def item_codes(self, ids: Sequence[str], missing: int = -1) -> np.ndarray:
        """The collection index of each of ``ids`` (``missing`` where it is
        not in the collection), int64: what :meth:`item_index` gives one by
        one, looked up at once where the index can (the collection of a
        large qrels file is looked up in its reader's table)."""
        index = self._item_index
        many = getattr(index, "codes", None)
        if many is not None:
            return many(ids, missing)
        return np.fromiter((index.get(i, missing) for i in ids), np.int64, len(ids))

    def query_index(self, query_id: str) -> int | None:
        return self._query_index.get(query_id)

    def judgments(self, query_id: str) -> dict[str, int]:
        """``{item_id: grade}`` of the relevant items of one query."""
        q = self._query_index[query_id]
        a, b = self.indptr[q], self.indptr[q + 1]
        return {
            self.item_ids[i]: int(g)
            for i, g in zip(self.judged_items[a:b], self.judged_grades[a:b])
        }


def _collection(judgments, qids: list, items, leave_one_out: bool) -> list[str]:
    """The collection's ids in their order: ``items`` as given, else every
    judged item in first-seen order (and the queries, leave-one-out)."""
    if items is not None:
        return [str(i) for i in items]
    seen: dict[str, None] = {}
    for q in qids:
        for it in judgments.get(q, {}):
            seen.setdefault(str(it), None)
    if leave_one_out:
        for q in qids:
            seen.setdefault(str(q), None)
    return list(seen)


def _judged_rows(judgments, qids: list, index: dict) -> tuple[list, list, list]:
    """Each query's relevant items (grade > 0) in collection order, as CSR
    arrays (indptr, item indices, grades); an AssessmentError for a grade
    that is no whole number or an item not in the collection."""
    indptr = [0]
    j_items: list[int] = []
    j_grades: list[int] = []
    for q in qids:
        row = []
        for it, g in judgments.get(q, {}).items():
            if not is_real(g) or g != int(g):
                raise AssessmentError(f"query {q}, item {it}: grades are whole numbers, not {g!r}")
            g = int(g)
            if g <= 0:
                continue
            try:
                row.append((index[str(it)], g))
            except KeyError:
                raise AssessmentError(
                    f"query {q}: judged item {it} is not in the collection"
                ) from None
        row.sort()
        j_items.extend(r[0] for r in row)
        j_grades.extend(r[1] for r in row)
        indptr.append(len(j_items))
    return indptr, j_items, j_grades


def _query_items(qids: list, index: dict, mapping: dict) -> np.ndarray:
    """Each query's collection item (-1: none), from ``mapping``."""
    qitems = np.full(len(qids), -1, dtype=np.int64)
    for k, q in enumerate(qids):
        if q in mapping:
            try:
                qitems[k] = index[str(mapping[q])]
            except KeyError:
                raise AssessmentError(
                    f"query {q} is said to be collection item {mapping[q]}, "
                    "which is not in the collection"
                ) from None
    return qitems
