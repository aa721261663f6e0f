"""TREC qrels (``qid iter docno rel``) and collection lists, read with the
one tokenizer of :mod:`.tokens` (whole chunks of lines at a time, every
line's field count checked); TREC runs are :mod:`.trec_run`'s.  For both:
:func:`quoted_ids` (ids written in double quotes, kept as trec_eval keeps
them, and :func:`quote_note`, their data warning) and :func:`probed` (a
chunk's ids looked up by its worker thread)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import repeat

import numpy as np

from ...errors import FormatError
from ...model.assessment import MAX_EXAMPLES, Assessment, DataWarning
from ...model.parallel import in_order
from ...model.runs import repeated_positions
from .columns import Columns, LineNumbers
from .ids import IdNormalizer
from .packed import Packed, Snapshot
from .source import open_source
from .token_ids import IdCodes, TokenIds, TokenIndex, decode_all
from .tokens import (
    CHUNK,
    check_counts,
    check_text,
    decode_token,
    integers,
    read_lines,
    source_chunks,
    tokenize,
)

MAX_GRADE = 2**31 - 1
QRELS_FIELDS = "a qrels line has 4 fields 'qid iter docno rel'"


def read_collection_list(path, *, normalize_ids: bool = True) -> list[str]:
    """A collection list: one item id per line (further tokens ignored)."""
    src = open_source(path, "collection list")
    lines = read_lines(src, "collection list", comments=True)
    norm = IdNormalizer(normalize_ids)
    raws = lines.field(0)
    texts = decode_all(raws)
    # an id changes only if it starts with a zero or an m / model_ prefix
    # (formats.ids): the others skip the normaliser (a million ids: 3x faster)
    out = [norm(t) if t[:1] in "0mM" else t for t in texts]
    if len(set(out)) != len(out):  # a repeat: the first one named, line by line
        norm = IdNormalizer(normalize_ids)  # every spelling seen, for the hint
        seen: dict[str, int] = {}
        for i, text in enumerate(texts):
            it = norm(text)
            n = int(lines.number[i])
            if it in seen:
                raise FormatError(
                    src.path,
                    f"item {it} is listed twice (first on line {seen[it]})" + norm.same_hint(it),
                    line=n,
                    column=lines.column(i, 0),
                    token=decode_token(raws[i]),
                )
            seen[it] = n
    if not out:
        raise FormatError(
            src.path, "the collection list is empty; one item id per line was expected", line=1
        )
    return out


def quoted_ids(lines, k: int) -> int:
    """How many tokens of field ``k`` start or end with a double quote."""
    a, b = lines.bounds(k)
    buf = lines.buffer
    return int(((buf[a] == 34) | (buf[b - 1] == 34)).sum())


@dataclass
class _QrelsChunk:
    """What a worker thread makes of a chunk of qrels."""

    number: np.ndarray
    grades: np.ndarray
    qids: Packed
    docs: Packed
    quoted: int
    size: int


def probed(packed: Packed, snap: Snapshot | None) -> Packed:
    """``packed`` with its tokens looked up in ``snap`` (a worker thread's
    probe of the ids known so far; None: not probed)."""
    if snap is not None:
        packed.probe(snap)
    return packed


def _qrels_chunk(path, c_numbers: bool, piece: tuple[int, bytes, Snapshot | None]) -> _QrelsChunk:
    first, chunk, docs = piece
    check_text(path, chunk, "TREC qrels file", first)
    lines = tokenize(chunk, first, comments=True, text=True)
    check_counts(path, lines, 4, 4, QRELS_FIELDS)
    grades = integers(path, lines, 3, "the relevance (4th field)", c=c_numbers)
    big = np.flatnonzero(grades > MAX_GRADE)
    if big.size:
        i = int(big[0])
        raise FormatError(
            path,
            f"the relevance grade is too large (at most {MAX_GRADE})",
            line=int(lines.number[i]),
            column=lines.column(i, 3),
            token=decode_token(lines.token(i, 3)),
        )
    quoted = quoted_ids(lines, 0) + quoted_ids(lines, 2) if b'"' in chunk else 0
    return _QrelsChunk(
        lines.number,
        # the grades as int32: a negative one counts as -1 (not relevant,
        # not judged), the others are at most MAX_GRADE
        np.maximum(grades, -1).astype(np.int32),
        lines.packed(0),
        probed(lines.packed(2, runs=False), docs),
        quoted,
        len(chunk),
    )


def read_qrels(
    path,
    *,
    collection_size: int | None = None,
    collection: list[str] | None = None,
    normalize_ids: bool = True,
    chunk_size: int = CHUNK,
    c_numbers: bool = False,
) -> Assessment:
    """TREC qrels as a graded assessment.  qrels do not know the collection:
    give its size or its list of ids.  Without either, the collection is the
    judged documents plus whatever a run retrieves besides (the engine adds
    a run's other ids and says so in a data check)."""
    src = open_source(path, "TREC qrels file")
    path = src.path
    norm = IdNormalizer(normalize_ids)
    # the documents are new as a rule (each judged once): added fresh (fresh_codes)
    qc, dc = IdCodes(norm), IdCodes(norm, fresh=True)
    # the query, document and grade of every line, in arrays made once for
    # the lines the file's size promises after its first chunk
    columns = Columns(3)
    where = LineNumbers()
    quoted = 0
    # each chunk goes with the document table as it is when the chunk is
    # handed out: the worker finds the documents seen before
    pieces = (
        (first, chunk, dc.tokens.probe_snapshot())
        for first, chunk in source_chunks(src, chunk_size)
    )
    for c in in_order(partial(_qrels_chunk, path, c_numbers), pieces):
        quoted += c.quoted
        docs = dc.codes(c.docs)
        if (moved := dc.take_remap()) is not None:  # fresh documents merged
            columns.recode(1, moved)
        columns.append(qc.codes(c.qids), docs, c.grades)
        where.add(c.number)
        if columns.n == c.grades.size and c.size:  # the first chunk: how many lines to expect
            expect = int(src.size / c.size * c.grades.size * 1.05) + 1024
            columns.reserve(expect)
            dc.tokens.reserve(expect)
    dc.settle()  # the documents added fresh put in the table
    if (moved := dc.take_remap()) is not None:
        columns.recode(1, moved)
    dc.tokens.trim()  # (the room guessed for new documents, when too much)
    if not columns.n:
        raise FormatError(
            path, "the file holds no judgment; lines 'qid iter docno rel' were expected", line=1
        )
    eq, ed, grades = columns.arrays()
    negatives = int(np.count_nonzero(grades < 0))
    # a negative grade is not relevant, and not judged either: trec_eval's
    # bpref counts only grades 0 .. L-1 as judged non-relevant
    zero_line = grades == 0
    np.maximum(grades, 0, out=grades)
    keep = _judged_once(path, qc.ids, dc.ids, eq, ed, grades, where, norm)
    if keep is not None:
        eq, ed, grades, zero_line = eq[keep], ed[keep], grades[keep], zero_line[keep]
    items: Sequence[str]
    index: Mapping[str, int] | TokenIndex | None = None
    if collection is not None:
        items = tuple(collection)
        index = dict(zip(items, range(len(items))))
        item_of_doc = _item_of_doc(dc, items, index)
        if (item_of_doc < 0).any():
            missing = [dc.ids[d] for d in np.flatnonzero(item_of_doc < 0).tolist()]
            raise FormatError(
                path,
                f"{len(missing)} judged documents are not in the collection "
                f"list, e.g. {', '.join(missing[:MAX_EXAMPLES])}",
            )
    else:
        # the judged documents query by query (queries in file order, each
        # one's documents in file order), each at its first appearance
        ids = dc.ids
        doc_order = None
        item_of_doc = None
        if (eq[1:] < eq[:-1]).any():  # not grouped by query, as qrels usually are
            seq = ed[np.argsort(eq, kind="stable")]
            first = np.full(len(ids), seq.size, dtype=np.int64)
            np.minimum.at(first, seq, np.arange(seq.size))
            doc_order = np.argsort(first, kind="stable")
            item_of_doc = np.empty(len(ids), dtype=np.int64)
            item_of_doc[doc_order] = np.arange(doc_order.size)
        # (grouped: the documents are coded in order of first appearance,
        # which is then the collection's order)
        if dc.as_written:  # the ids read from the table when asked for
            ids_read = TokenIds(dc.tokens, doc_order)
            items, index = ids_read, ids_read.index()
        elif doc_order is None:
            items = tuple(ids)
        else:
            items = tuple(ids[d] for d in doc_order.tolist())
    size = collection_size if collection_size is not None else len(items)
    if size < len(items):
        raise FormatError(
            path,
            f"the collection size {size} is smaller than the {len(items)} documents the qrels name",
        )
    top = int(grades.max()) if grades.size and grades.max() > 0 else 1
    notes = norm.note(f"qrels {os.path.basename(os.fsdecode(os.fspath(path)))}")
    if negatives:
        notes.append(
            DataWarning(
                "negative_grades",
                "negative grades read as not relevant and not judged (bpref leaves them out)",
                negatives,
            )
        )
    if quoted:
        notes.append(quote_note(quoted))
    # the relevant judgments as CSR rows, items in collection order
    item = ed if item_of_doc is None else item_of_doc
    relevant = np.flatnonzero(grades > 0)
    # every line relevant (classes of a collection): none gathered
    rel = slice(None) if relevant.size == grades.size else relevant
    rq, ri, rg = eq[rel], _items(item, ed, rel), grades[rel]
    order = _by_query_and_item(rq, ri, len(items))
    zero = np.flatnonzero(zero_line)
    zq, zi = eq[zero], _items(item, ed, zero)
    judged_zero = (
        np.concatenate(([0], np.cumsum(np.bincount(zq, minlength=len(qc.ids))))),
        zi[_by_query_and_item(zq, zi, len(items))],
    )
    # made once (its id indexes are built in __post_init__: a copy would build them again)
    return Assessment(
        query_ids=tuple(qc.ids),
        item_ids=items,
        indptr=np.concatenate(([0], np.cumsum(np.bincount(rq, minlength=len(qc.ids))))),
        judged_items=ri[order],
        judged_grades=rg[order].astype(np.int32),
        query_items=np.full(len(qc.ids), -1, dtype=np.int64),
        collection_size=size,
        top_grade=top,
        kind="graded qrels" if top > 1 else "binary qrels",
        source=str(path),
        closed=collection is not None,
        size_inferred=collection is None and collection_size is None,
        notes=tuple(notes),
        judged_zero=judged_zero,
        # the collection's index, made above (the assessment would make it again)
        _item_index=index,
        _indexed=(items if index is not None else None, None),
    )


def _item_of_doc(dc: IdCodes, items: Sequence[str], index: Mapping[str, int]) -> np.ndarray:
    """The collection position of each judged document (-1: not listed):
    while every document is its token as written, the collection's ids
    looked up in the documents' table at once (no string made per
    document: 100,000 documents in a third of the time), else each
    document's id in ``index``."""
    if dc.as_written:
        try:
            listed = "\n".join(items)
            # strict: an id of escaped bytes (not UTF-8 in its file) is looked
            # up as text below, where its bytes could match another id's
            raws = listed.encode("utf-8").split(b"\n")
        except (TypeError, UnicodeEncodeError):  # (ids no file holds: given by a caller)
            raws = []
        if len(raws) == len(items):  # (no id holding a newline)
            found = dc.tokens.find(raws)
            item_of_doc = np.full(len(dc.tokens), -1, dtype=np.int64)
            at = np.flatnonzero(found >= 0)
            item_of_doc[found[at]] = at
            return item_of_doc
    return np.fromiter(map(index.get, dc.ids, repeat(-1)), np.int64, len(dc.ids))


def _items(item_of_doc: np.ndarray, ed: np.ndarray, lines: np.ndarray | slice) -> np.ndarray:
    """The collection index (int64) of the documents of ``lines``
    (``item_of_doc`` is ``ed`` itself when the documents are in collection
    order)."""
    docs = ed[lines]
    return (docs if item_of_doc is ed else item_of_doc[docs]).astype(np.int64)


def _by_query_and_item(q: np.ndarray, i: np.ndarray, n_items: int) -> np.ndarray | slice:
    """The order of the (distinct) judgments ``(q, i)`` by query, then item
    (no sort when they are in that order already, as the documents of a
    qrels grouped by query, each judged once, are: then ``slice(None)``,
    told on the int32 columns without a key)."""
    if q.size < 2:
        return slice(None)
    grows = q[1:] > q[:-1]
    grows |= (q[1:] == q[:-1]) & (i[1:] >= i[:-1])
    if grows.all():
        return slice(None)
    return np.argsort(q.astype(np.int64) * max(n_items, 1) + i)


def quote_note(count: int) -> DataWarning:
    """The data warning of ``count`` ids written in double quotes."""
    return DataWarning(
        "quoted_ids",
        'ids written in double quotes (the quotes are part of the id, as for trec_eval: "d1" '
        "is not d1)",
        count,
    )


def _judged_once(path, q_ids, d_ids, eq, ed, grades, where, norm=None) -> np.ndarray | None:
    """Mask of the first judgment of each (query, document) (None: every
    line's); an error for a pair judged twice with different grades."""
    n_docs = max(len(d_ids), 1)
    if len(d_ids) == ed.size:  # every line a document of its own: none looked at
        return None
    # pairs that only grow repeat none: a qrels grouped by query whose
    # documents come in the order they were first named (as one made from
    # classes of a collection) is told in one pass, not a sort of its lines
    if eq.size > 1:
        grows = eq[1:] > eq[:-1]
        grows |= (eq[1:] == eq[:-1]) & (ed[1:] > ed[:-1])
        if grows.all():
            return None
    # a pair can be judged twice only where its document is judged more than
    # once: only those lines are looked at (none when each document is
    # judged once)
    counts = np.bincount(ed, minlength=n_docs)
    if not (counts > 1).any():
        return None
    sub = np.flatnonzero(counts[ed] > 1)
    key = eq[sub].astype(np.int64) * n_docs + ed[sub]
    if not repeated_positions(key, len(q_ids) * n_docs).size:
        return None
    keep = np.ones(eq.size, dtype=bool)
    by_key = np.argsort(key, kind="stable")
    ks, order = key[by_key], sub[by_key]
    gs = grades[order]
    again = np.flatnonzero(ks[1:] == ks[:-1]) + 1
    keep[order[again]] = False
    clash = again[gs[again] != gs[again - 1]]
    if clash.size:
        # the first line (in file order) that contradicts an earlier one
        firsts = np.searchsorted(ks, ks[clash])
        j = int(np.argmin(where[order[clash]]))
        e, e0 = int(order[clash[j]]), int(order[firsts[j]])
        raise FormatError(
            path,
            f"query {q_ids[eq[e]]}, document {d_ids[ed[e]]} is judged twice with different "
            f"grades ({grades[e0]} on line {where[e0]}, {grades[e]} here)"
            + (norm.same_hint(d_ids[ed[e]]) or norm.same_hint(q_ids[eq[e]]) if norm else ""),
            line=int(where[e]),
        )
    return keep
