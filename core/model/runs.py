"""Runs as the engine reads them: a dissimilarity matrix (Run) or ranked lists
(RankedRun) over the assessment's queries and items, and the helpers that
find repeated and missing items in lists."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..errors import AssessmentError
from .data_warnings import MAX_EXAMPLES, PAD, UNKNOWN, DataWarning

if TYPE_CHECKING:  # annotations only
    from .assessment import Assessment


class MatrixRows(Protocol):
    """A 2-D matrix whose rows are read as numpy arrays: an ndarray, a
    file's rows read a block at a time (``FileRows``) or distances made a
    tile at a time (``Distances``)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> np.dtype: ...

    def __getitem__(self, rows: Any, /) -> Any: ...


class Run:
    """A participant's ranked lists, as indices into an assessment's collection.

    Subclasses provide :meth:`ranked_block`; the engine asks for blocks of
    lists so that a run may be produced lazily (a memory-mapped matrix is
    ranked a block of rows at a time).
    """

    name: str
    source: str
    format: str
    query_ids: tuple[str, ...]
    n_items: int
    warnings: list[DataWarning]
    #: the collection the run was read against (``Assessment.item_ids``);
    #: the engine refuses to score it against another collection
    item_ids: Sequence[str] | None = None
    #: distinct retrieved ids the assessment does not know
    unknown_count: int = 0
    #: the run tags its file carries (TREC), to tell runs apart
    tags: tuple[str, ...] = ()
    #: the reading rules the file was read with (those that apply to its
    #: format: :data:`shrec_eval.reading.readers.RULES`); empty for lists built in code
    reading: Mapping = {}
    #: per assessment query, the collection item that is the query itself
    #: when the run says so (an embedding run whose query row is an item's
    #: row), else -1; None: only the assessment says (``query_items``)
    own_items: np.ndarray | None = None
    #: a dissimilarity matrix whose row r and column c stand for the
    #: assessment's query r and item c by their place (matrix runs), which
    #: the matrix-order data check reads again; None for other runs
    positional: object = None

    def fits(self, assessment: Assessment) -> bool:
        """Whether the run was read against this assessment's collection."""
        if self.item_ids is None:
            return self.n_items == assessment.n_items
        return self.item_ids is assessment.item_ids or self.item_ids == assessment.item_ids

    @property
    def max_length(self) -> int:
        """Upper bound of the list lengths (sizes the engine's blocks)."""
        return self.n_items

    def ranked_block(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Ranked lists of the run's queries ``rows``: an int array of shape
        (len(rows), L) padded with :data:`PAD`, and their lengths."""
        raise NotImplementedError

    def judged_ranks(
        self, rows: np.ndarray, pair_row: np.ndarray, pair_item: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Where some items landed in the lists ``rows``: the lists' lengths
        and the 0-based rank of item ``pair_item[i]`` in list
        ``rows[pair_row[i]]`` (-1 where the list does not hold it); the
        pairs are distinct.  What the engine scores with (it needs the ranks
        of the judged items, not the lists)."""
        idx, lengths = self.ranked_block(rows)
        return lengths, ranks_in_lists(idx, pair_row, pair_item, self.n_items)

    def row_of(self) -> dict[str, int]:
        return {q: i for i, q in enumerate(self.query_ids)}

    def row_state(self, rows: np.ndarray):
        """What the run noted of its rows ``rows`` while ranking them (a
        matrix run's tied pairs: its ``warnings`` count them), for a copy of
        the run that ranks the other rows elsewhere (a cluster's worker) to
        take in with :meth:`set_row_state`; None: nothing."""
        return None

    def set_row_state(self, rows: np.ndarray, state) -> None:
        """Take in what :meth:`row_state` gave for ``rows``."""


#: a table of marks, one per (list, item), is used where it is at most this
#: many bytes per list entry; past that (a large collection) the pairs are
#: searched instead, whose cost follows the lists, not the collection
MARKS_PER_ENTRY = 16


def ranks_in_lists(
    idx: np.ndarray, pair_row: np.ndarray, pair_item: np.ndarray, n_items: int
) -> np.ndarray:
    """The rank of item ``pair_item[i]`` in row ``pair_row[i]`` of the padded
    lists ``idx`` (-1 where absent).  Where the collection is small beside
    the lists, every entry of the lists is looked up in a table marking the
    (distinct) pairs, then the few entries found matched to their pairs;
    where it is large (a qrels of millions of documents: a table of every
    list x every item would be cleared for each block of lists), every entry
    is searched among the sorted pairs."""
    ranks = np.full(pair_row.size, -1, dtype=np.int64)
    B, L = idx.shape
    if not pair_row.size or not L:
        return ranks
    # (row, item) as row * width + item + 2; column 0 = an unknown id, 1 = padding
    width = n_items + 2
    key = np.asarray(pair_row, np.int64) * width + np.asarray(pair_item, np.int64) + 2
    if width > MARKS_PER_ENTRY * L:
        order = np.argsort(key)
        sorted_key = key[order]
        at = idx.astype(np.int64)
        at += (np.arange(B, dtype=np.int64) * width + 2)[:, None]
        at = at.reshape(-1)
        where = np.minimum(np.searchsorted(sorted_key, at), sorted_key.size - 1)
        pos = np.flatnonzero(sorted_key[where] == at)
        ranks[order[where[pos]]] = pos % L
        return ranks
    wide = B * width >= 2**31 or idx.dtype.itemsize > 4
    marks = np.zeros(B * width, dtype=bool)
    marks[key] = True
    at = idx.astype(np.int64 if wide else np.int32)  # a copy: idx may be the run's own view
    at += (np.arange(B, dtype=at.dtype) * width + 2)[:, None]
    pos = np.flatnonzero(np.take(marks, at))
    order = np.argsort(key, kind="stable")
    pair = order[np.searchsorted(key[order], at.reshape(-1)[pos])]
    ranks[pair] = pos % L
    return ranks


def repeated_positions(key: np.ndarray, key_range: int) -> np.ndarray:
    """Positions of the keys that already occurred earlier in ``key``."""
    if key.size and key_range <= min(1 << 28, 32 * key.size):
        # the common case, no repeat at all, told by a mark per possible key
        # (where the marks are few beside the keys: 100,000 ShapeNet
        # judgments have 10,265 x 10,265 possible keys, a sort is cheaper)
        marks = np.zeros(key_range, dtype=np.uint8)
        marks[key] = 1
        if int(np.count_nonzero(marks)) == key.size:
            return np.zeros(0, dtype=np.int64)
    s = np.argsort(key, kind="stable")
    ks = key[s]
    return s[np.flatnonzero(ks[1:] == ks[:-1]) + 1]


#: entries whose (list, code) pairs are checked at once for repeats
_MARK_BLOCK = 1 << 18  # int32 marks: 1 MiB, in the processor's cache


def repeated_in_lists(eq: np.ndarray, ec: np.ndarray, n_codes: int) -> np.ndarray:
    """Positions of the entries whose code already occurred earlier in the
    same list (``eq`` is non-decreasing: the lists one after another).

    Lists are taken a block at a time, so that the block's (list, code)
    cells fit in a small mark array: every entry writes its own index into
    its cell, and reads it back; an entry reading another's index shares its
    cell with it (whichever write won).  Only then is the block sorted to
    name the repeats.  No mark array is ever cleared: a cell holds an index
    of an earlier block, which no entry of this block has."""
    n = eq.size
    if not n:
        return np.zeros(0, dtype=np.int64)
    n_codes = max(n_codes, 1)
    per = max(1, _MARK_BLOCK // n_codes)  # lists per block
    marks = np.full(per * n_codes, -1, dtype=np.int32 if n < 2**31 else np.int64)
    first_list = int(eq[0])
    bounds = np.arange(first_list, int(eq[-1]) + per + 1, per).astype(eq.dtype)
    cuts = np.searchsorted(eq, bounds)
    found = []
    for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        if b <= a:
            continue
        cell = (eq[a:b] - eq[a]).astype(np.intp) * n_codes + ec[a:b]
        own = np.arange(a, b, dtype=marks.dtype)
        marks[cell] = own
        if (marks[cell] == own).all():
            continue
        s = np.argsort(cell, kind="stable")
        cs = cell[s]
        found.append(a + s[np.flatnonzero(cs[1:] == cs[:-1]) + 1])
    return np.sort(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


class RankedRun(Run):
    """Ranked lists held in memory in CSR form (``flat[indptr[r]:indptr[r+1]]``
    is the list of run query ``r``)."""

    def __init__(
        self,
        name: str,
        query_ids: Sequence[str],
        indptr: np.ndarray,
        flat: np.ndarray,
        n_items: int,
        *,
        source: str = "",
        format: str = "ranked lists",
        warnings: Iterable[DataWarning] = (),
        item_ids: Sequence[str] | None = None,
        unknown_count: int = 0,
        tags: Sequence[str] = (),
    ) -> None:
        self.name = name
        self.source = source
        self.format = format
        self.item_ids = item_ids
        self.unknown_count = int(unknown_count)
        self.tags = tuple(tags)
        self.query_ids = tuple(query_ids)
        self.indptr = np.asarray(indptr, dtype=np.int64)
        self.flat = np.asarray(flat)
        if self.flat.dtype != np.int32:
            self.flat = self.flat.astype(np.int32)
        self.n_items = int(n_items)
        self.warnings = list(warnings)
        if self.indptr.shape != (len(self.query_ids) + 1,):
            raise AssessmentError("run: one list offset per query expected")
        if len(set(self.query_ids)) != len(self.query_ids):
            raise AssessmentError("run: a query appears twice")
        lengths = np.diff(self.indptr)
        self._uniform = int(lengths[0]) if lengths.size and np.all(lengths == lengths[0]) else None

    @classmethod
    def from_lists(
        cls,
        name: str,
        lists: Mapping[str, Sequence[str]],
        assessment: Assessment,
        *,
        source: str = "",
        format: str = "ranked lists",
        where: Callable[[str, int], str] | None = None,
        warnings: Iterable[DataWarning] = (),
        tags: Sequence[str] = (),
    ) -> RankedRun:
        """Build a run from ``{query_id: [item_id, ...]}`` in rank order.

        Ids the assessment does not know are kept as retrieved non-relevant
        items and reported; a repeated id keeps its first rank and is
        reported.  ``where(query_id, rank)`` says where in the source a list
        entry was read (``"line 17"``), for the reports' examples.
        ``warnings`` are the reader's own findings, reported after the
        builder's.
        """
        qids = [str(q) for q in lists]
        ranked = list(lists.values())
        codes: dict[str, int] = {}
        entry_code = [codes.setdefault(str(it), len(codes)) for lst in ranked for it in lst]
        lengths = np.array([len(lst) for lst in ranked], dtype=np.int64)
        entry_query = np.repeat(np.arange(len(qids)), lengths)
        starts = np.concatenate(([0], np.cumsum(lengths)))
        if where is None:

            def describe(e: int) -> str:
                return f"rank {e - starts[entry_query[e]] + 1}"
        else:

            def describe(e: int) -> str:
                q = int(entry_query[e])
                return where(qids[q], int(e - starts[q] + 1))

        return cls.from_codes(
            name,
            qids,
            entry_query,
            np.asarray(entry_code, dtype=np.int64),
            list(codes),
            assessment,
            where=describe,
            source=source,
            format=format,
            warnings=warnings,
            tags=tags,
        )

    @classmethod
    def from_codes(
        cls,
        name: str,
        query_ids: Sequence[str],
        entry_query: np.ndarray,
        entry_code: np.ndarray,
        code_ids: Sequence[str],
        assessment: Assessment,
        *,
        where: Callable[[int], str] | None = None,
        source: str = "",
        format: str = "ranked lists",
        warnings: Iterable[DataWarning] = (),
        tags: Sequence[str] = (),
    ) -> RankedRun:
        """Vectorised builder: entry ``e`` (in source order) puts the id
        ``code_ids[entry_code[e]]`` into the list of query
        ``query_ids[entry_query[e]]``; the entries of a query keep their
        source order.  Unknown ids are kept as retrieved non-relevant items,
        a repeated id keeps its first rank; both are reported, with
        ``where(e)`` saying where entry ``e`` was read; ``warnings`` (the
        reader's findings) come after those."""
        entry_query = np.asarray(entry_query)
        entry_code = np.asarray(entry_code)
        n_q, n_c = len(query_ids), len(code_ids)
        code_item = assessment.item_codes(code_ids, UNKNOWN)
        order = None
        if entry_query.size > 1 and np.any(entry_query[1:] < entry_query[:-1]):
            order = np.argsort(entry_query, kind="stable")
            eq, ec = entry_query[order], entry_code[order]
        else:
            eq, ec = entry_query, entry_code
        dup = repeated_in_lists(eq, ec, n_c)
        keep = None
        if dup.size:
            keep = np.ones(eq.size, dtype=bool)
            keep[dup] = False
        items = code_item.astype(np.int32)[ec]
        unknown = items == UNKNOWN
        if keep is not None:
            unknown &= keep
        unknown = np.flatnonzero(unknown) if unknown.any() else np.zeros(0, np.int64)

        def warning(code: str, message: str, pos: np.ndarray) -> DataWarning:
            src = np.sort(pos if order is None else order[pos])[:MAX_EXAMPLES]
            describe = where or (lambda e: f"entry {e + 1}")
            return DataWarning(
                code,
                message,
                int(pos.size),
                tuple(
                    f"{code_ids[entry_code[e]]} in query {query_ids[entry_query[e]]} "
                    f"({describe(int(e))})"
                    for e in src
                ),
            )

        found = []
        if unknown.size and assessment.closed:
            found.append(
                warning(
                    "unknown_ids",
                    "ids the assessment does not know (ranked as non-relevant)",
                    unknown,
                )
            )
        if dup.size:
            found.append(
                warning("duplicate_ids", "ids repeated within a ranked list (first rank kept)", dup)
            )
        kept = eq if keep is None else eq[keep]
        # the lists one after another: where each starts
        indptr = np.searchsorted(kept, np.arange(n_q + 1, dtype=kept.dtype)).astype(np.int64)
        return cls(
            name,
            query_ids,
            indptr,
            items if keep is None else items[keep],
            assessment.n_items,
            source=source,
            format=format,
            warnings=found + list(warnings),
            item_ids=assessment.item_ids,
            unknown_count=np.unique(ec[unknown]).size,
            tags=tags,
        )

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.indptr)

    @property
    def max_length(self) -> int:
        return int(self.lengths.max()) if self.query_ids else 0

    def ranked_block(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.asarray(rows, dtype=np.int64)
        starts = self.indptr[rows]
        lengths = self.indptr[rows + 1] - starts
        if self._uniform is not None:
            width = self._uniform
            if rows.size and np.all(np.diff(rows) == 1):  # contiguous rows: a view
                block = self.flat[starts[0] : starts[0] + rows.size * width]
                return block.reshape(rows.size, width), lengths
            take = starts[:, None] + np.arange(width)
            return self.flat[take], lengths
        width = int(lengths.max()) if rows.size else 0
        out = np.full((rows.size, width), PAD, dtype=np.int32)
        mask = np.arange(width) < lengths[:, None]
        total = int(lengths.sum())
        src = np.repeat(
            starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths
        ) + np.arange(total)
        out[mask] = self.flat[src]
        return out, lengths
