"""TREC qrels (``qid iter docno rel``) and TREC runs
(``qid iter docno rank sim run_id``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import FormatError
from ..model import MAX_EXAMPLES, Assessment, DataWarning, RankedRun
from .ids import IdNormalizer
from .text import column_of, read_text


def read_collection_list(path, *, normalize_ids: bool = True) -> list[str]:
    """A collection list: one item id per line (further tokens ignored)."""
    norm = IdNormalizer(normalize_ids)
    out, seen = [], {}
    for n, line in enumerate(read_text(path, "collection list").splitlines(), start=1):
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        it = norm(toks[0])
        if it in seen:
            raise FormatError(path, f"item {it} is listed twice (first on line {seen[it]})",
                              line=n, column=column_of(line, 0), token=toks[0])
        seen[it] = n
        out.append(it)
    if not out:
        raise FormatError(path, "the collection list is empty; one item id per line was "
                          "expected", line=1)
    return out


def read_qrels(path, *, collection_size: int | None = None, collection: list[str] | None = None,
               normalize_ids: bool = True) -> Assessment:
    """TREC qrels as a graded assessment.  qrels do not know the collection:
    give its size or its list of ids (without either, the collection is the
    judged documents)."""
    text = read_text(path, "TREC qrels file")
    norm = IdNormalizer(normalize_ids)
    judgments: dict[str, dict[str, int]] = {}
    where: dict[tuple[str, str], int] = {}
    negatives = 0
    for n, line in enumerate(text.splitlines(), start=1):
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        if len(toks) != 4:
            raise FormatError(path, f"a qrels line has 4 fields 'qid iter docno rel'; this one "
                              f"has {len(toks)}", line=n, token=line.strip())
        qid, _, doc, rel = toks
        try:
            grade = int(rel)
        except ValueError:
            raise FormatError(path, "the relevance (4th field) must be a whole number",
                              line=n, column=column_of(line, 3), token=rel) from None
        if grade < 0:
            negatives += 1
            grade = 0
        doc = norm(doc)
        q = judgments.setdefault(qid, {})
        if doc in q and q[doc] != grade:
            raise FormatError(path, f"query {qid}, document {doc} is judged twice with different "
                              f"grades ({q[doc]} on line {where[qid, doc]}, {grade} here)",
                              line=n, column=column_of(line, 3), token=rel)
        q[doc] = grade
        where[qid, doc] = n
    if not judgments:
        raise FormatError(path, "the file holds no judgment; lines 'qid iter docno rel' were "
                          "expected", line=1)
    items = collection
    if items is not None:
        known = set(items)
        missing = [d for q in judgments.values() for d in q if d not in known]
        if missing:
            raise FormatError(path, f"{len(missing)} judged documents are not in the collection "
                              f"list, e.g. {', '.join(missing[:MAX_EXAMPLES])}")
    else:
        items = list(dict.fromkeys(d for q in judgments.values() for d in q))
    size = collection_size if collection_size is not None else len(items)
    if size < len(items):
        raise FormatError(path, f"the collection size {size} is smaller than the {len(items)} "
                          "documents the qrels name")
    grades = [g for q in judgments.values() for g in q.values()]
    top = max([g for g in grades if g > 0], default=1)
    notes = norm.note(f"qrels {path}")
    if negatives:
        notes.append(DataWarning("negative_grades", "negative grades read as not relevant",
                                 negatives))
    a = Assessment.from_judgments(judgments, items, collection_size=size, top_grade=top,
                                  kind="graded qrels" if top > 1 else "binary qrels",
                                  source=str(path))
    return _replace(a, closed=collection is not None, notes=tuple(notes))


def _replace(a: Assessment, **kw) -> Assessment:
    from dataclasses import replace
    return replace(a, **kw)


def read_trec_run(path, assessment: Assessment, *, trec_order: bool = False,
                  name: str | None = None, normalize_ids: bool = True) -> RankedRun:
    """A TREC run.  File order by default; ``trec_order`` sorts each query
    as trec_eval does (score descending, then docno descending).  A docno
    repeated within a query keeps its first occurrence, with a warning."""
    text = read_text(path, "TREC run file")
    norm = IdNormalizer(normalize_ids)
    per_query: dict[str, list[tuple[float, str, int]]] = {}
    run_ids: dict[str, None] = {}
    for n, line in enumerate(text.splitlines(), start=1):
        toks = line.split()
        if not toks or toks[0].startswith("#"):
            continue
        if len(toks) != 6:
            raise FormatError(path, f"a TREC run line has 6 fields 'qid iter docno rank sim "
                              f"run_id'; this one has {len(toks)}", line=n, token=line.strip())
        qid, _, doc, _, sim, rid = toks
        try:
            score = float(sim)
        except ValueError:
            raise FormatError(path, "the score (5th field) must be a number", line=n,
                              column=column_of(line, 4), token=sim) from None
        if score != score:
            raise FormatError(path, "the score (5th field) is NaN; a number was expected",
                              line=n, column=column_of(line, 4), token=sim)
        per_query.setdefault(qid, []).append((score, norm(doc), n))
        run_ids.setdefault(rid, None)
    if not per_query:
        raise FormatError(path, "the file holds no result line; lines 'qid iter docno rank sim "
                          "run_id' were expected", line=1)
    lists: dict[str, list[str]] = {}
    lines_of: dict[str, list[int]] = {}
    dup_examples, n_dup = [], 0
    for qid, rows in per_query.items():
        if trec_order:
            rows = sorted(rows, key=lambda r: (r[0], r[1]), reverse=True)
        seen: dict[str, int] = {}
        out = []
        for _, doc, n in rows:
            if doc in seen:
                n_dup += 1
                if len(dup_examples) < MAX_EXAMPLES:
                    dup_examples.append(f"{doc} in query {qid} (lines {seen[doc]} and {n})")
                continue
            seen[doc] = n
            out.append(doc)
        lists[qid] = out
        lines_of[qid] = list(seen.values())
    run_name = name or (next(iter(run_ids)) if len(run_ids) == 1 else Path(path).stem)
    order = "trec_eval order (score descending, docno descending)" if trec_order else "file order"
    run = RankedRun.from_lists(run_name, lists, assessment, source=str(path),
                               format=f"TREC run, {order}",
                               where=lambda q, rank: f"line {lines_of[q][rank - 1]}")
    if n_dup:
        run.warnings.append(DataWarning("duplicate_ids", "docnos repeated within a query "
                                        "(first occurrence kept)", n_dup, tuple(dup_examples)))
    run.warnings.extend(norm.note(f"run {path}"))
    return run
