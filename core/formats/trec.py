"""TREC qrels (``qid iter docno rel``) and TREC runs
(``qid iter docno rank sim run_id``)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np

from ..errors import FormatError
from ..model import MAX_EXAMPLES, Assessment, DataWarning, RankedRun
from .ids import IdNormalizer
from .text import BOM, column_of, read_bytes, read_text

MAX_GRADE = 2**31 - 1


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
            raise FormatError(
                path,
                f"item {it} is listed twice (first on line {seen[it]})",
                line=n,
                column=column_of(line, 0),
                token=toks[0],
            )
        seen[it] = n
        out.append(it)
    if not out:
        raise FormatError(
            path, "the collection list is empty; one item id per line was expected", line=1
        )
    return out


def read_qrels(
    path,
    *,
    collection_size: int | None = None,
    collection: list[str] | None = None,
    normalize_ids: bool = True,
) -> Assessment:
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
            raise FormatError(
                path,
                f"a qrels line has 4 fields 'qid iter docno rel'; this one has {len(toks)}",
                line=n,
                token=line.strip(),
            )
        qid, _, doc, rel = toks
        qid = norm(qid)
        try:
            grade = int(rel)
        except ValueError:
            raise FormatError(
                path,
                "the relevance (4th field) must be a whole number",
                line=n,
                column=column_of(line, 3),
                token=rel,
            ) from None
        if grade < 0:
            negatives += 1
            grade = 0
        if grade > MAX_GRADE:
            raise FormatError(
                path,
                f"the relevance grade is too large (at most {MAX_GRADE})",
                line=n,
                column=column_of(line, 3),
                token=rel,
            )
        doc = norm(doc)
        q = judgments.setdefault(qid, {})
        if doc in q and q[doc] != grade:
            raise FormatError(
                path,
                f"query {qid}, document {doc} is judged twice with different "
                f"grades ({q[doc]} on line {where[qid, doc]}, {grade} here)",
                line=n,
                column=column_of(line, 3),
                token=rel,
            )
        q[doc] = grade
        where[qid, doc] = n
    if not judgments:
        raise FormatError(
            path, "the file holds no judgment; lines 'qid iter docno rel' were expected", line=1
        )
    items = collection
    if items is not None:
        known = set(items)
        missing = [d for q in judgments.values() for d in q if d not in known]
        if missing:
            raise FormatError(
                path,
                f"{len(missing)} judged documents are not in the collection "
                f"list, e.g. {', '.join(missing[:MAX_EXAMPLES])}",
            )
    else:
        items = list(dict.fromkeys(d for q in judgments.values() for d in q))
    size = collection_size if collection_size is not None else len(items)
    if size < len(items):
        raise FormatError(
            path,
            f"the collection size {size} is smaller than the {len(items)} documents the qrels name",
        )
    grades = [g for q in judgments.values() for g in q.values()]
    top = max([g for g in grades if g > 0], default=1)
    notes = norm.note(f"qrels {path}")
    if negatives:
        notes.append(
            DataWarning("negative_grades", "negative grades read as not relevant", negatives)
        )
    a = Assessment.from_judgments(
        judgments,
        items,
        collection_size=size,
        top_grade=top,
        kind="graded qrels" if top > 1 else "binary qrels",
        source=str(path),
    )
    return _replace(a, closed=collection is not None, notes=tuple(notes))


def _replace(a: Assessment, **kw) -> Assessment:
    from dataclasses import replace

    return replace(a, **kw)


class _Codes(dict):
    """raw token (bytes) -> code of its (normalised) id; the ids in code order."""

    def __init__(self, norm: IdNormalizer) -> None:
        super().__init__()
        self.norm = norm
        self.ids: list[str] = []
        self._code: dict[str, int] = {}

    def __missing__(self, raw: bytes) -> int:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        ident = self.norm(text)
        code = self._code.get(ident)
        if code is None:
            code = self._code[ident] = len(self.ids)
            self.ids.append(ident)
        self[raw] = code
        return code


CHUNK = 1 << 25
#: files from this size on are tried with pandas' C tokenizer first
BULK_MIN = 1 << 16


def _chunks(data: bytes):
    """(first line number, chunk) pieces of whole lines."""
    start, line = 0, 1
    while start < len(data):
        end = data.find(b"\n", min(start + CHUNK, len(data)))
        end = len(data) if end < 0 else end + 1
        chunk = data[start:end]
        yield line, chunk
        line += chunk.count(b"\n")
        start = end


def _slow_rows(path, chunk: bytes, first_line: int):
    """Line by line, with the error of the first bad line."""
    for n, raw in enumerate(chunk.split(b"\n"), start=first_line):
        toks = raw.split()
        if not toks or toks[0].startswith(b"#"):
            continue
        text = raw.decode("utf-8", errors="replace")
        if len(toks) != 6:
            raise FormatError(
                path,
                f"a TREC run line has 6 fields 'qid iter docno rank sim "
                f"run_id'; this one has {len(toks)}",
                line=n,
                token=text.strip(),
            )
        try:
            score = float(toks[4])
        except ValueError:
            raise FormatError(
                path,
                "the score (5th field) must be a number",
                line=n,
                column=column_of(text, 4),
                token=toks[4].decode("utf-8", errors="replace"),
            ) from None
        yield toks, score, n


def read_trec_run(
    path,
    assessment: Assessment,
    *,
    trec_order: bool = False,
    name: str | None = None,
    normalize_ids: bool = True,
) -> RankedRun:
    """A TREC run.  File order by default; ``trec_order`` sorts each query
    as trec_eval does (score descending, then docno descending).  A docno
    repeated within a query keeps its first occurrence, with a warning.

    A large clean file is tokenized by pandas' C reader; otherwise whole
    chunks of well-formed lines are split and converted in bulk, and a chunk
    with comments, blank or bad lines is read line by line, which also finds
    the line of the first error."""
    data = read_bytes(path)
    if data.startswith(BOM):
        data = data[len(BOM) :]
    if data.translate(None, _TEXT_BYTES):
        bad = _BAD_BYTES.search(data)
        what = (
            "a binary file"
            if bad.group() == b"\x00"
            else f"a control character {bad.group()[0]:#04x}"
        )
        raise FormatError(
            path,
            f"this is {what}; a text TREC run was expected",
            line=data.count(b"\n", 0, bad.start()) + 1,
        )
    norm = IdNormalizer(normalize_ids)
    bulk = _bulk_read(path, data, norm)
    if bulk is not None:
        entry_query, entry_doc, sims, lines, q_ids, d_ids, rid = bulk
    else:
        entry_query, entry_doc, sims, lines, q_ids, d_ids, rid = _chunked_read(path, data, norm)
    if not entry_query.size:
        raise FormatError(
            path,
            "the file holds no result line; lines 'qid iter docno rank sim run_id' were expected",
            line=1,
        )
    nan = np.flatnonzero(np.isnan(sims))
    if nan.size:
        n = int(lines[nan[0]])
        raise FormatError(path, "the score (5th field) is NaN; a number was expected", line=n)
    if trec_order:
        doc_rank = np.empty(len(d_ids), dtype=np.int64)
        doc_rank[np.argsort(np.array(d_ids, dtype=object), kind="stable")] = np.arange(len(d_ids))
        order = np.lexsort((-doc_rank[entry_doc], -sims, entry_query))
        entry_query, entry_doc, lines = entry_query[order], entry_doc[order], lines[order]
    run_name = name or (rid[0] if len(rid) == 1 else Path(path).stem)
    how = "trec_eval order (score descending, docno descending)" if trec_order else "file order"
    return RankedRun.from_codes(
        run_name,
        q_ids,
        entry_query,
        entry_doc,
        d_ids,
        assessment,
        where=lambda e: f"line {lines[e]}",
        source=str(path),
        format=f"TREC run, {how}",
        warnings=norm.note(f"run {path}"),
    )


def _bulk_read(path, data: bytes, norm: IdNormalizer):
    """pandas' C tokenizer for a clean file (no comment, no blank line, six
    fields everywhere); None when the file needs the line-by-line reader."""
    if b"#" in data or b"\n\n" in data or b"\n\r\n" in data or len(data) < BULK_MIN:
        return None
    n_lines = data.count(b"\n") + (not data.endswith(b"\n"))
    # single spaces (most files) tokenize faster; anything else shows up as
    # an empty or extra field and is read again splitting on any whitespace
    seps = [r"\s+"] if b"\t" in data or b"\r" in data else [" ", r"\s+"]
    for sep in seps:
        df = _pandas_columns(data, sep)
        if df is None:
            continue
        cols = [df[c].cat for c in (0, 2, 5)]
        if len(df) == n_lines and not any((c.codes < 0).any() or "" in c.categories for c in cols):
            break
    else:
        return None
    out = []
    for col, c in enumerate(cols[:2]):
        codes = c.codes.to_numpy()
        if col == 0:
            # queries in order of first appearance, as the line-by-line reader
            # gives them; a first appearance always starts a run of equal codes
            starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
            uniq, first = np.unique(codes[starts], return_index=True)
            order = uniq[np.argsort(first)]
        else:
            order = range(len(c.categories))
        idents, code_of = [], {}
        mapped = np.empty(len(c.categories), dtype=np.int64)
        for k in order:
            ident = norm(str(c.categories[k]))
            mapped[k] = code_of.setdefault(ident, len(idents))
            if mapped[k] == len(idents):
                idents.append(ident)
        out.append((mapped[codes], idents))
    (eq, q_ids), (ed, d_ids) = out
    sims = df[4].to_numpy(dtype=np.float64)
    rid_codes = cols[2].codes.to_numpy()
    rid_first = np.flatnonzero(np.concatenate(([True], rid_codes[1:] != rid_codes[:-1])))
    _, first = np.unique(rid_codes[rid_first], return_index=True)
    rid = [str(cols[2].categories[rid_codes[rid_first[i]]]) for i in sorted(first)]
    return eq, ed, sims, np.arange(1, len(df) + 1), q_ids, d_ids, rid


def _pandas_columns(data: bytes, sep: str):
    try:
        import pandas as pd
    except ImportError:  # a build without pandas (the desktop bundle) reads line by line
        return None
    try:
        return pd.read_csv(
            io.BytesIO(data),
            sep=sep,
            header=None,
            names=list(range(6)),
            usecols=[0, 2, 4, 5],
            engine="c",
            na_filter=False,
            dtype={0: "category", 2: "category", 4: np.float64, 5: "category"},
            encoding="utf-8",
        )
    except (ValueError, UnicodeError, OverflowError, pd.errors.ParserError):
        return None


def _chunked_read(path, data: bytes, norm: IdNormalizer):
    qcodes, dcodes = _Codes(norm), _Codes(norm)
    q_parts, d_parts, s_parts, l_parts = [], [], [], []
    run_ids: dict[bytes, None] = {}
    for first, chunk in _chunks(data):
        toks = chunk.split()
        n_lines = chunk.count(b"\n") + (not chunk.endswith(b"\n"))
        fast = (
            len(toks) == 6 * n_lines
            and b"#" not in chunk
            and b"\n\n" not in chunk
            and b"\n\r\n" not in chunk
            and not chunk.startswith((b"\n", b"\r\n"))
        )
        if fast:
            try:
                sims = np.fromiter(map(float, toks[4::6]), np.float64, n_lines)
            except ValueError:
                fast = False
        if fast:
            q_parts.append(np.fromiter(map(qcodes.__getitem__, toks[0::6]), np.int64, n_lines))
            d_parts.append(np.fromiter(map(dcodes.__getitem__, toks[2::6]), np.int64, n_lines))
            s_parts.append(sims)
            l_parts.append(np.arange(first, first + n_lines, dtype=np.int64))
            run_ids.update(dict.fromkeys(toks[5::6]))
        else:
            rows = list(_slow_rows(path, chunk, first))
            q_parts.append(np.array([qcodes[r[0][0]] for r in rows], dtype=np.int64))
            d_parts.append(np.array([dcodes[r[0][2]] for r in rows], dtype=np.int64))
            s_parts.append(np.array([r[1] for r in rows], dtype=np.float64))
            l_parts.append(np.array([r[2] for r in rows], dtype=np.int64))
            run_ids.update(dict.fromkeys(r[0][5] for r in rows))

    def cat(parts, dt):
        return np.concatenate(parts) if parts else np.zeros(0, dt)

    rid = [r.decode("utf-8", errors="replace") for r in run_ids]
    return (
        cat(q_parts, np.int64),
        cat(d_parts, np.int64),
        cat(s_parts, np.float64),
        cat(l_parts, np.int64),
        qcodes.ids,
        dcodes.ids,
        rid,
    )


_BAD_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")
#: every byte but the control characters (the ones a text file may hold stay)
_TEXT_BYTES = bytes(b for b in range(256) if not _BAD_BYTES.match(bytes([b])))
