"""TREC runs (``qid iter docno rank sim run_id``), read with the one
tokenizer of :mod:`.tokens` (whole chunks of lines at a time, every line's
field count checked), the ties in the file's order or trec_eval's (its
docno order, the ``trec_order`` rule); the qrels are :mod:`.trec`'s."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial

import numpy as np

from ...errors import FormatError
from ...model.assessment import MAX_EXAMPLES, Assessment, DataWarning
from ...model.parallel import in_order
from ...model.runs import RankedRun
from .columns import LineNumbers
from .ids import IdNormalizer
from .keys import TokenCodes
from .packed import Packed, Snapshot
from .source import default_name, open_source
from .token_ids import IdCodes
from .tokens import (
    CHUNK,
    check_counts,
    check_text,
    checked_floats,
    floats,
    source_chunks,
    tokenize,
)
from .trec import probed, quote_note, quoted_ids

RUN_FIELDS = "a TREC run line has 6 fields 'qid iter docno rank sim run_id'"


@dataclass
class _RunChunk:
    """What a worker thread makes of a chunk of a TREC run."""

    number: np.ndarray
    sims: np.ndarray | None
    qids: Packed
    docs: Packed
    tags: Packed
    n_extra: int
    extra_lines: list[int]
    quoted: int


def _run_chunk(
    path, trec_order: bool, c_numbers: bool, piece: tuple[int, bytes, Snapshot | None]
) -> _RunChunk:
    first, chunk, docs = piece
    check_text(path, chunk, "TREC run", first)
    lines = tokenize(chunk, first, comments=True, text=True)
    check_counts(path, lines, 6, None, RUN_FIELDS)
    score = "the score (5th field)"
    # the scores order nothing in file order: there they are only checked
    if trec_order:
        sims = floats(path, lines, 4, score, c=c_numbers)
        nan = np.flatnonzero(np.isnan(sims))
    else:
        sims = None
        rest, values = checked_floats(path, lines, 4, score, c=c_numbers)
        nan = rest[np.isnan(values)]
    if nan.size:
        raise FormatError(
            path,
            "the score (5th field) is NaN; a number was expected"
            + (
                " (trec_eval reads it, but a NaN score has no place in its ranking: NaN is "
                "neither above nor below any score, so where it lands depends on its C "
                "library's sort)"
                if c_numbers
                else ""
            ),
            line=int(lines.number[nan[0]]),
        )
    extra = np.flatnonzero(lines.count > 6)
    quoted = quoted_ids(lines, 0) + quoted_ids(lines, 2) if b'"' in chunk else 0
    return _RunChunk(
        lines.number.astype(np.int32) if first + len(chunk) < 2**31 else lines.number,
        sims,
        lines.packed(0),
        probed(lines.packed(2, runs=False), docs),
        lines.packed(5),
        int(extra.size),
        lines.number[extra[:MAX_EXAMPLES]].tolist(),
        quoted,
    )


def read_trec_run(
    path,
    assessment: Assessment,
    *,
    trec_order: bool = False,
    name: str | None = None,
    normalize_ids: bool = True,
    chunk_size: int = CHUNK,
    c_numbers: bool = False,
) -> RankedRun:
    """A TREC run.  File order by default; ``trec_order`` sorts each query
    as trec_eval does (score descending, then docno descending, the docnos
    compared as written in the file).  A docno repeated within a query keeps
    its first occurrence, with a warning.  Fields past the sixth are ignored
    (as trec_eval does) and counted in a data check.

    The data is read a chunk of whole lines at a time (``chunk_size`` bytes)
    with the tokenizer of :mod:`.tokens`; the result does not depend on it."""
    src = open_source(path, "TREC run")
    path = src.path
    norm = IdNormalizer(normalize_ids)
    qc, dc, rc = IdCodes(norm), IdCodes(norm), IdCodes(IdNormalizer(False))
    parts: dict[str, list] = {"q": [], "d": [], "raw": [], "s": [], "n": []}
    extra_lines: list[int] = []
    n_extra = quoted = 0
    pieces = (
        (first, chunk, dc.tokens.probe_snapshot())
        for first, chunk in source_chunks(src, chunk_size)
    )
    for c in in_order(partial(_run_chunk, path, trec_order, c_numbers), pieces):
        n_extra += c.n_extra
        extra_lines.extend(c.extra_lines)
        quoted += c.quoted
        parts["q"].append(qc.codes(c.qids))
        docs = dc.token_codes(c.docs)
        parts["d"].append(dc.id_codes(docs))
        parts["n"].append(c.number)
        if trec_order:
            parts["raw"].append(docs)
            parts["s"].append(c.sims)
        rc.codes(c.tags)
    if not parts["q"] or not sum(p.size for p in parts["q"]):
        raise FormatError(
            path,
            "the file holds no result line; lines 'qid iter docno rank sim run_id' were expected",
            line=1,
        )
    entry_query, entry_doc = np.concatenate(parts["q"]), np.concatenate(parts["d"])
    line_of = LineNumbers(parts["n"])
    if trec_order:
        raw, sims = np.concatenate(parts["raw"]), np.concatenate(parts["s"])
        order = _trec_eval_order(entry_query, sims, raw, dc.tokens)
        if order is not None:
            entry_query, entry_doc = entry_query[order], entry_doc[order]
            line_of = LineNumbers([line_of.array()[order]])
    rid = rc.ids
    run_name = name or (rid[0] if len(rid) == 1 else default_name(path))
    how = "trec_eval order (score descending, docno descending)" if trec_order else "file order"
    notes = norm.note(f"run {os.path.basename(os.fsdecode(os.fspath(path)))}")
    if n_extra:
        notes.append(
            DataWarning(
                "extra_fields",
                "lines with more than 6 fields (fields past the sixth ignored, as trec_eval does)",
                n_extra,
                tuple(f"line {n}" for n in extra_lines[:MAX_EXAMPLES]),
            )
        )
    if quoted:
        notes.append(quote_note(quoted))
    return RankedRun.from_codes(
        run_name,
        qc.ids,
        entry_query,
        entry_doc,
        dc.ids,
        assessment,
        where=lambda e: f"line {line_of[e]}",
        source=str(path),
        format=f"TREC run, {how}",
        warnings=notes,
        tags=rid,
    )


def _trec_eval_order(entry_query, sims, raw, docnos: TokenCodes) -> np.ndarray | None:
    """trec_eval's order within each query: score descending, then docno
    descending as written (bytes compared as C's strcmp does); None when
    the entries are in that order already (runs are written so, as a rule:
    then no docno is compared but those of tied scores)."""
    if _in_trec_eval_order(entry_query, sims, raw, docnos):
        return None
    raw_ids = list(docnos.raw)
    doc_rank = np.empty(len(raw_ids), dtype=np.int64)
    doc_rank[np.argsort(np.array(raw_ids, dtype=object), kind="stable")] = np.arange(len(raw_ids))
    return np.lexsort((-doc_rank[raw], -sims, entry_query))


def _in_trec_eval_order(entry_query, sims, raw, docnos: TokenCodes) -> bool:
    """Whether the entries are each query's in trec_eval's order, the
    queries one after another in order of first appearance."""
    if (entry_query[1:] < entry_query[:-1]).any():
        return False
    same = entry_query[1:] == entry_query[:-1]
    tie = same & (sims[1:] == sims[:-1])
    if (same & ~tie & ~(sims[1:] < sims[:-1])).any():  # a score up within a query
        return False
    at = np.flatnonzero(tie)
    above, below = docnos.tokens(raw[at]), docnos.tokens(raw[at + 1])
    return all(a >= b for a, b in zip(above, below))  # (a docno repeated: kept in order)
