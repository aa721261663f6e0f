"""Opening contest files: format detection from content (with an override)
and one entry point for assessments and one for runs.

Every function here raises :class:`~shrec_eval.errors.FormatError` for bad content
and :class:`~shrec_eval.errors.FileAccessError` for a file the system cannot read;
nothing else for anything a file may contain.
"""

from __future__ import annotations

import os
from dataclasses import replace

from .errors import ContestFileError, FileAccessError, FormatError
from .formats.cla import assessment_from_cla, read_cla
from .formats.matrix import read_ascii_matrix, read_binary_matrix
from .formats.ranklists import VARIANTS, read_ranklist_folder
from .formats.text import BOM, is_integer, is_number
from .formats.trec import read_collection_list, read_qrels, read_trec_run
from .model import Assessment, Run

ASSESSMENT_FORMATS = {
    "cla": "PSB classification file (.cla)",
    "qrels": "TREC qrels (qid iter docno rel)",
}
RUN_FORMATS = {
    "ascii-matrix": "ASCII dissimilarity matrix (one row per query)",
    "binary-matrix": "PSB binary float32 dissimilarity matrix (.matrix)",
    "ranklists": "folder of rank-list files, one per query",
    "trec": "TREC run (qid iter docno rank sim run_id)",
}
RANKLIST_VARIANTS = VARIANTS
HEAD = 1 << 16

__all__ = [
    "ASSESSMENT_FORMATS",
    "RUN_FORMATS",
    "RANKLIST_VARIANTS",
    "ContestFileError",
    "FormatError",
    "FileAccessError",
    "detect_assessment_format",
    "detect_run_format",
    "load_assessment",
    "load_run",
    "sniff",
]


def _head(path) -> bytes:
    try:
        with open(path, "rb") as fh:
            data = fh.read(HEAD)
    except IsADirectoryError as exc:
        raise FileAccessError(path, "this is a folder, a file was expected") from exc
    except OSError as exc:
        raise FileAccessError.wrap(path, exc) from exc
    return data[len(BOM) :] if data.startswith(BOM) else data


def _first_rows(data: bytes, n: int = 5) -> list[list[str]]:
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    if len(data) == HEAD and lines:
        lines = lines[:-1]  # the last line may be cut
    rows = []
    for line in lines:
        toks = line.split()
        if toks and not toks[0].startswith("#"):
            rows.append(toks)
            if len(rows) == n:
                break
    return rows


def sniff(path) -> str | None:
    """What a file or folder looks like, from its content: one of the
    assessment or run format names, or None."""
    if os.path.isdir(path):
        return "ranklists"
    data = _head(path)
    if b"\x00" in data:
        return "binary-matrix"
    rows = _first_rows(data)
    if not rows:
        return None
    if rows[0][0] == "PSB":
        return "cla"
    if all(len(r) == 4 and is_integer(r[3]) for r in rows):
        return "qrels"
    if all(len(r) == 6 and is_integer(r[3]) and is_number(r[4]) for r in rows):
        return "trec"
    if all(is_number(t) for r in rows for t in r):
        return "ascii-matrix"
    return None


def detect_assessment_format(path) -> str:
    kind = sniff(path)
    if kind in ASSESSMENT_FORMATS:
        return kind
    raise FormatError(
        path,
        "cannot tell what this file is: a PSB .cla file (first line "
        "'PSB 1') or TREC qrels (lines 'qid iter docno rel') was expected"
        + (f"; it looks like a {RUN_FORMATS[kind]}" if kind in RUN_FORMATS else ""),
        line=1,
    )


def detect_run_format(path, assessment: Assessment | None = None) -> str:
    kind = sniff(path)
    if kind in RUN_FORMATS:
        return kind
    if kind is None and assessment is not None and not os.path.isdir(path):
        q, t = assessment.n_queries, assessment.n_items
        try:
            if os.path.getsize(path) == 4 * q * t:
                return "binary-matrix"
        except OSError as exc:
            raise FileAccessError.wrap(path, exc) from exc
    raise FormatError(
        path,
        "cannot tell what this run is: a TREC run (6 fields per line), a "
        "matrix of numbers, a binary float32 matrix, or a folder of rank lists "
        "was expected"
        + (f"; it looks like a {ASSESSMENT_FORMATS[kind]}" if kind in ASSESSMENT_FORMATS else ""),
        line=1,
    )


def load_assessment(
    path,
    *,
    format: str | None = None,
    queries=None,
    graded: bool = False,
    collection_size: int | None = None,
    collection=None,
    normalize_ids: bool = True,
) -> Assessment:
    """Read the relevance side of a contest.

    * a ``.cla``: leave-one-out (every model a query), or with ``queries``
      (a query ``.cla``) external queries; ``graded`` adds sister classes as
      marginally relevant;
    * TREC qrels: graded as given; ``collection_size`` or ``collection`` (a
      file with one item id per line) says what the qrels cannot.
    """
    fmt = format or detect_assessment_format(path)
    if fmt == "cla":
        if collection_size is not None or collection is not None:
            raise FormatError(
                path,
                "a .cla file lists its whole collection; the collection "
                "size or list applies to TREC qrels only",
            )
        target = read_cla(path, normalize_ids=normalize_ids)
        qcla = read_cla(queries, normalize_ids=normalize_ids) if queries is not None else None
        a = assessment_from_cla(target, graded=graded, queries=qcla)
    elif fmt == "qrels":
        if queries is not None:
            raise FormatError(path, "a query .cla goes with a target .cla, not with qrels")
        items = (
            read_collection_list(collection, normalize_ids=normalize_ids)
            if collection is not None
            else None
        )
        a = read_qrels(
            path, collection_size=collection_size, collection=items, normalize_ids=normalize_ids
        )
    else:
        raise FormatError(
            path,
            f"unknown assessment format {fmt!r}; expected one of {', '.join(ASSESSMENT_FORMATS)}",
        )
    return replace(a, normalize_ids=normalize_ids)


def load_run(
    path,
    assessment: Assessment,
    *,
    format: str | None = None,
    variant: str | None = None,
    trec_order: bool = False,
    name: str | None = None,
    normalize_ids: bool | None = None,
    block_values: int | None = None,
) -> Run:
    """Read one participant's run against an assessment (whose collection
    order the matrices follow).  Ids are normalised as the assessment's were
    unless ``normalize_ids`` says otherwise.  ``block_values`` is how an ASCII
    matrix is parsed (see :func:`~shrec_eval.formats.matrix.read_ascii_matrix`:
    None, the whole file at once; the desktop app's worker reads in blocks)."""
    norm = assessment.normalize_ids if normalize_ids is None else normalize_ids
    fmt = format or detect_run_format(path, assessment)
    if fmt == "ascii-matrix":
        return read_ascii_matrix(path, assessment, name=name, block_values=block_values)
    if fmt == "binary-matrix":
        return read_binary_matrix(path, assessment, name=name)
    if fmt == "ranklists":
        if not os.path.isdir(path):
            raise FormatError(path, "a folder of rank-list files was expected, this is a file")
        return read_ranklist_folder(
            path, assessment, variant=variant, name=name, normalize_ids=norm
        )
    if fmt == "trec":
        return read_trec_run(path, assessment, trec_order=trec_order, name=name, normalize_ids=norm)
    raise FormatError(path, f"unknown run format {fmt!r}; expected one of {', '.join(RUN_FORMATS)}")
