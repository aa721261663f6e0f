"""Opening contest files: format detection from content (with an override)
and one entry point for assessments and one for runs.

Every function here raises :class:`~shrec_eval.errors.FormatError` for bad content
and :class:`~shrec_eval.errors.FileAccessError` for a file the system cannot read;
nothing else for anything a file may contain.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..choices import ASSESSMENT_FORMATS, MATRIX_ORDERS, RANKLIST_VARIANTS, RUN_FORMATS
from ..errors import AmbiguousFormatError, ContestFileError, FileAccessError, FormatError
from ..model.assessment import Assessment
from ..model.runs import Run
from ..model.values import is_integer, is_number
from .formats.cla import assessment_from_cla, read_cla
from .formats.embeddings import METRICS, is_embeddings, read_embeddings, top_k_of_matrix
from .formats.matrix import read_ascii_matrix, read_binary_matrix
from .formats.order import by_id, with_other_order
from .formats.ranklists import read_ranklist_folder
from .formats.rules import RULES, applicable, resolved
from .formats.source import PIPE_LIMIT, Source, a, classify_path, open_source
from .formats.tokens import control_bytes, decode_token, looks_utf16, strip_bom, tokenize
from .formats.trec import read_collection_list, read_qrels, read_trec_run

# the formats and variants are named in .choices (read by --help without numpy)
#: detection reads this much first, and more (up to HEAD_MAX) until it
#: holds SAMPLE whole lines: a matrix row may be far longer than HEAD
HEAD = 1 << 16
HEAD_MAX = 1 << 24
SAMPLE = 20

__all__ = [
    "ASSESSMENT_FORMATS",
    "METRICS",
    "RUN_FORMATS",
    "RANKLIST_VARIANTS",
    "AmbiguousFormatError",
    "ContestFileError",
    "FormatError",
    "FileAccessError",
    "classify_path",
    "distinct_names",
    "detect_assessment_format",
    "detect_run_format",
    "load_assessment",
    "load_run",
    "sniff",
]


def _first_lines(data: bytes, n: int):
    """The first ``n`` content lines of ``data``, tokenized (a few times as
    many physical lines, for blank and comment lines, rather than all of
    ``data``: a matrix's head holds over a million tokens)."""
    k = n
    while True:
        end = -1
        for _ in range(k):
            end = data.find(b"\n", end + 1)
            if end < 0:
                break
        part = data if end < 0 else data[: end + 1]
        lines = tokenize(part, comments=True)
        if len(lines) >= n or end < 0:
            return lines
        k *= 4


class _Sample:
    """The first lines of a file, as detection sees them: token rows (the
    last one possibly cut by the read limit), and whether the bytes are
    text (a few stray control bytes leave it text: the reader names them)."""

    def __init__(self, src: Source) -> None:
        limit = HEAD
        data = src.head(limit)
        if len(data) == limit and data.count(b"\n") < SAMPLE:
            limit = HEAD_MAX
            data = src.head(limit)
        complete = len(data) < limit
        data = strip_bom(data)
        control = int(control_bytes(np.frombuffer(data[:HEAD], dtype=np.uint8)).sum())
        self.utf16 = looks_utf16(data)
        # a few stray control bytes leave it text (the reader names their line)
        self.binary = self.utf16 or control * 20 > min(len(data), HEAD)
        self.rows: list[list[bytes]] = []
        self.numbers: list[int] = []
        self.cut_last = False
        if self.binary:
            return
        cut = b""
        if not complete:
            end = data.rfind(b"\n") + 1
            data, cut = data[:end], data[end:]
        lines = _first_lines(data, SAMPLE)
        for i in range(min(len(lines), SAMPLE)):
            a = int(lines.start[i])
            self.rows.append(lines.tokens[a : a + int(lines.count[i])])
            self.numbers.append(int(lines.number[i]))
        toks = cut.split()
        if not self.rows and toks:
            # a first line longer than HEAD_MAX: its whole tokens
            self.rows.append(toks[:-1] if len(toks) > 1 else toks)
            self.numbers.append(data.count(b"\n") + 1)
            self.cut_last = True

    def first_line(self) -> str:
        """What the first content line looks like, for messages."""
        if self.utf16:
            return "the file is UTF-16 text (save it as UTF-8)"
        if self.binary:
            return "the file is not text"
        if not self.rows:
            return "the file holds no line of text"
        row = self.rows[0]
        text = decode_token(b" ".join(row))
        text = text if len(text) <= 60 else text[:57] + "..."
        fields = f"{len(row)} field{'s' if len(row) != 1 else ''}"
        return f"line {self.numbers[0]} reads {text!r} ({fields})"

    def fits(self, test) -> bool:
        """The first row fits, and at least half of the sampled rows do (a
        bad line further on is the reader's to name)."""
        if not self.rows or not test(self.rows[0], 0):
            return False
        ok = sum(1 for i, r in enumerate(self.rows) if test(r, i))
        return 2 * ok >= len(self.rows)


def _candidates(
    src: Source, assessment: Assessment | None, c_numbers: bool = False
) -> tuple[list[str], _Sample | None]:
    """The formats a file's content fits (several when it is ambiguous);
    ``c_numbers``: a TREC run's score is read as C's ``atof`` reads it, so
    any 5th field is one (``0x1p3``, ``1d3``, ``abc``: trec_eval takes them)."""
    if src.kind == "folder":
        return ["ranklists"], None
    if is_embeddings(src.head(8)):  # numpy's .npy, or a zip (.npz)
        return ["embeddings"], None
    s = _Sample(src)
    sized = assessment is not None and src.size == 4 * assessment.n_queries * assessment.n_items
    # more rows than queries: the matrix reader says so with the counts
    longer = (
        assessment is not None
        and assessment.n_items > 0
        and src.size > 4 * assessment.n_queries * assessment.n_items
        and src.size % (4 * assessment.n_items) == 0
    )
    if s.binary:
        fits = assessment is None or sized or longer
        return (["binary-matrix"] if not s.utf16 and fits else []), s
    if not s.rows:
        return [], s
    if s.rows[0][0] == b"PSB":
        return ["cla"], s
    out = []
    if s.fits(lambda r, i: len(r) == 4 and is_integer(r[3])):
        out.append("qrels")
    numeric = all(is_number(t) for r in s.rows for t in r)
    # a matrix row holds one number per item of the assessment
    width = assessment.n_items if assessment is not None else len(s.rows[0])
    matrix = numeric and s.fits(lambda r, i: len(r) == width or (s.cut_last and len(r) <= width))
    # a TREC line: 6 fields (more are ignored), a number 5th, and never longer
    # than the largest read; a file of numbers only is a TREC run when its
    # lines share a run tag (matrix rows do not)
    tags = {r[5] for r in s.rows if len(r) >= 6}
    shared_tag = len(tags) == 1 and (len(s.rows) > 1 or not matrix)
    near = not numeric and _near_matrix(s, width if assessment is not None else None)
    if (
        not s.cut_last
        and not near
        and s.fits(lambda r, i: len(r) >= 6 and (c_numbers or is_number(r[4])))
        and (not numeric or shared_tag)
    ):
        out.append("trec")
    if matrix or near:  # a near-matrix: the matrix reader names its bad value
        out.append("ascii-matrix")
    if not out and sized:
        out.append("binary-matrix")
    return out, s


def _near_matrix(s: _Sample, width: int | None) -> bool:
    """Rows of numbers but for a few bad values (``NA``, ``1.#INF00``, a
    typo): every sampled row as long as the first (or the assessment's
    ``width``), and no column that is not a number on every row, as a TREC
    run's ``Q0`` and run tag columns are (one row: one bad value, in a row
    longer than a TREC line or as wide as the assessment)."""
    rows = s.rows[:-1] if s.cut_last and len(s.rows) > 1 else s.rows
    n = width if width is not None else len(rows[0])
    if n < 2 or any(len(r) != n for r in rows):
        return False
    bad = [{j for j, t in enumerate(r) if not is_number(t)} for r in rows]
    if len(rows) == 1:
        return len(bad[0]) == 1 and (n > 6 or width is not None)
    return not set.intersection(*bad)


def sniff(path) -> str | None:
    """What a file or folder looks like, from its content: one of the
    assessment or run format names, or None.  A pipe or device is never
    opened here (None); see :func:`classify_path`."""
    if classify_path(path) not in ("file", "folder") and not isinstance(path, Source):
        return None
    found, _ = _candidates(open_source(path), None)
    return found[0] if found else None


def detect_assessment_format(path) -> str:
    src = open_source(path, "assessment")
    found, s = _candidates(src, None)
    kinds = [k for k in found if k in ASSESSMENT_FORMATS]
    if len(kinds) == 1:
        return kinds[0]
    looks = next((k for k in found if k in RUN_FORMATS), None)
    raise FormatError(
        src.path,
        "cannot tell what this file is: a PSB .cla file (first line "
        "'PSB 1') or TREC qrels (lines 'qid iter docno rel') was expected"
        + (f"; {s.first_line()}" if s is not None else "")
        + (f"; it looks like {a(RUN_FORMATS[looks])}" if looks else ""),
        line=s.numbers[0] if s is not None and s.numbers else None,
    )


def detect_run_format(
    path, assessment: Assessment | None = None, *, c_numbers: bool = False
) -> str:
    """The run format of a file or folder.  :class:`AmbiguousFormatError`
    (with ``candidates``) when several fit: the caller asks, or the user
    chooses with ``--run-format``.  ``c_numbers``: scores as C's ``atof``
    reads them (the trec_eval profile: a TREC line's 5th field is always a
    number)."""
    src = open_source(path, "run")
    found, s = _candidates(src, assessment, c_numbers)
    kinds = [k for k in found if k in RUN_FORMATS]
    if len(kinds) == 1:
        return kinds[0]
    if len(kinds) > 1:
        raise AmbiguousFormatError(
            src.path,
            "this run fits several formats: "
            + " and ".join(RUN_FORMATS[k] for k in kinds)
            + f"; choose one with --run-format ({' or '.join(kinds)})",
            candidates=tuple(kinds),
        )
    if s is not None and s.binary and not s.utf16 and assessment is not None:
        # not text, and not of a binary matrix's size
        q, t = assessment.n_queries, assessment.n_items
        raise FormatError(
            src.path,
            f"this is not a text file, and its {src.size} bytes are not those of a binary "
            f"float32 matrix of {q} x {t} ({4 * q * t} bytes)",
        )
    looks = next((k for k in found if k in ASSESSMENT_FORMATS), None)
    raise FormatError(
        src.path,
        "cannot tell what this run is: a TREC run (6 fields per line), a "
        "matrix of numbers, a binary float32 matrix, or a folder of rank lists "
        "was expected"
        + (f"; {s.first_line()}" if s is not None else "")
        + (f"; it looks like {a(ASSESSMENT_FORMATS[looks])}" if looks else ""),
        line=s.numbers[0] if s is not None and s.numbers else None,
    )


def load_assessment(
    path,
    *,
    format: str | None = None,
    queries=None,
    graded: bool = False,
    collection_size: int | None = None,
    collection=None,
    normalize_ids: bool | None = None,
    c_numbers: bool | None = None,
    matrix_order: str | None = None,
    class_match: str | None = None,
    rules: Mapping | None = None,
) -> Assessment:
    """Read the relevance side of a contest.

    * a ``.cla``: leave-one-out (every model a query), or with ``queries``
      (a query ``.cla``) external queries; ``graded`` adds sister classes as
      marginally relevant;
    * TREC qrels: graded as given; ``collection_size`` or ``collection`` (a
      file with one item id per line) says what the qrels cannot.

    The reading rules (:data:`~shrec_eval.reading.formats.rules.RULES`):
    ``normalize_ids``; ``c_numbers``: grades read as C's ``atol`` reads them
    (trec_eval); ``matrix_order``: ``listing`` or ``id``
    (:mod:`~shrec_eval.reading.formats.order`); ``class_match``: query classes
    matched to target classes by ``name`` or ``position``.  A rule left None
    takes the value ``rules`` (a profile's fixed rules, which runs read
    against the assessment then follow too) gives, else its default.  The
    profiles call this with their rules (:meth:`Profile.load_assessment
    <shrec_eval.profiles.base.Profile.load_assessment>`).
    """
    rules = dict(rules or {})
    values = {
        k: resolved(k, v, rules)
        for k, v in (
            ("normalize_ids", normalize_ids),
            ("c_numbers", c_numbers),
            ("matrix_order", matrix_order),
            ("class_match", class_match),
        )
    }
    normalize_ids, c_numbers = values["normalize_ids"], values["c_numbers"]
    if values["matrix_order"] not in MATRIX_ORDERS:
        raise FormatError(
            path,
            f"unknown matrix order {values['matrix_order']!r}; "
            f"expected one of {', '.join(MATRIX_ORDERS)}",
        )
    if format is not None and format not in ASSESSMENT_FORMATS:
        raise FormatError(
            path,
            f"unknown assessment format {format!r}; "
            f"expected one of {', '.join(ASSESSMENT_FORMATS)}",
        )
    path = open_source(path, "assessment")
    _no_folder(path, "an assessment file")
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
        a = assessment_from_cla(
            target, graded=graded, queries=qcla, class_match=values["class_match"]
        )
    elif fmt == "qrels":
        if queries is not None:
            raise FormatError(path, "a query .cla goes with a target .cla, not with qrels")
        items = (
            read_collection_list(collection, normalize_ids=normalize_ids)
            if collection is not None
            else None
        )
        a = read_qrels(
            path,
            collection_size=collection_size,
            collection=items,
            normalize_ids=normalize_ids,
            c_numbers=c_numbers,
        )
    a = replace(
        a,
        normalize_ids=normalize_ids,
        reading=applicable(fmt, values),
        rules={k: v for k, v in rules.items() if k in RULES},
    )
    return by_id(a, path) if values["matrix_order"] == "id" else with_other_order(a)


def _no_folder(src: Source, what: str) -> None:
    if src.kind == "folder":
        raise FileAccessError(src.path, f"this is a folder; {what} was expected")


def load_run(
    path,
    assessment: Assessment,
    *,
    format: str | None = None,
    variant: str | None = None,
    trec_order: bool | None = None,
    name: str | None = None,
    normalize_ids: bool | None = None,
    chunk_size: int | None = None,
    skip_names: Collection[str] | None = None,
    nonfinite_distances: bool | None = None,
    c_numbers: bool | None = None,
    extra_rows: str | None = None,
    metric: str | None = None,
    ids=None,
    top_k: int | None = None,
) -> Run:
    """Read one participant's run against an assessment (whose collection
    order the matrices follow).  ``chunk_size`` (bytes) is how much of a
    text file (TREC run, ASCII matrix) is parsed at a time (the result does
    not depend on it; tests pass small sizes).  ``metric`` (default cosine),
    ``ids`` (a file naming a ``.npy``'s rows) and ``top_k`` (keep each
    query's first K results) apply to embedding runs
    (:func:`~shrec_eval.reading.formats.embeddings.read_embeddings`).

    The reading rules (:data:`~shrec_eval.reading.formats.rules.RULES`), each left
    None to follow the profile the assessment was read under (its
    ``rules``), else its default: ``normalize_ids`` (default: as the
    assessment's ids were read); ``trec_order`` and ``c_numbers`` (a TREC
    run's ties ordered by docno, its scores read as C's ``atof`` reads
    them: trec_eval); ``skip_names`` and ``nonfinite_distances`` (rank-list
    folders: :func:`~shrec_eval.reading.formats.ranklists.read_ranklist_folder`);
    ``extra_rows`` (``refuse`` or ``ignore`` matrix rows past the queries).
    The run records the rules that applied to its format (``Run.reading``)."""
    if not isinstance(assessment, Assessment):
        raise TypeError(f"load_run needs an Assessment, not {type(assessment).__name__}")
    if format is not None and format not in RUN_FORMATS:
        raise FormatError(
            path, f"unknown run format {format!r}; expected one of {', '.join(RUN_FORMATS)}"
        )
    fixed = assessment.rules
    if normalize_ids is None:
        normalize_ids = fixed.get("normalize_ids", assessment.normalize_ids)
    values = {
        "normalize_ids": normalize_ids,
        **{
            k: resolved(k, v, fixed)
            for k, v in (
                ("trec_order", trec_order),
                ("c_numbers", c_numbers),
                ("skip_names", None if skip_names is None else tuple(skip_names)),
                ("nonfinite_distances", nonfinite_distances),
                ("extra_rows", extra_rows),
            )
        },
    }
    run, fmt = _load_run(
        path, assessment, format, variant, name, chunk_size, metric, ids, top_k, values
    )
    run.reading = applicable(fmt, values)
    return run


def _load_run(path, assessment, format, variant, name, chunk_size, metric, ids, top_k, values):
    trec_order, norm, c_numbers = values["trec_order"], values["normalize_ids"], values["c_numbers"]
    skip_names, nonfinite_distances = values["skip_names"], values["nonfinite_distances"]
    q, t = assessment.n_queries, assessment.n_items
    # a pipe is read once, at most what the format can need
    binary = format == "binary-matrix"
    src = open_source(
        path,
        f"binary float32 matrix of {q} x {t}" if binary else "run",
        limit=4 * q * t if binary else PIPE_LIMIT,
    )
    fmt = format or detect_run_format(src, assessment, c_numbers=c_numbers)
    if fmt == "embeddings":
        _no_folder(src, "an embeddings file (.npy, .npz)")
        run = read_embeddings(
            src, assessment, metric=metric, ids=ids, top_k=top_k, name=name, normalize_ids=norm
        )
        return run, fmt
    if fmt == "binary-matrix" and top_k is not None and ids is None:
        _no_folder(src, a(f"{RUN_FORMATS[fmt]} file"))
        m = read_binary_matrix(src, assessment, name=name, extra_rows=values["extra_rows"])
        return top_k_of_matrix(m, assessment, top_k), fmt
    for option, value in (("--ids", ids), ("--top-k", top_k)):
        if value is not None:
            raise FormatError(
                src.path,
                f"{option} applies to embedding runs (.npy, .npz)"
                + (" and binary float32 matrices" if option == "--top-k" else "")
                + f"; this run is {a(RUN_FORMATS[fmt])}"
                + (" (--max-rank cuts ranked lists)" if option == "--top-k" else ""),
            )
    if fmt == "ranklists":
        if src.kind != "folder":
            raise FormatError(src.path, "a folder of rank-list files was expected, this is a file")
        run = read_ranklist_folder(
            src.path,
            assessment,
            variant=variant,
            name=name,
            normalize_ids=norm,
            skip_names=skip_names,
            nonfinite_distances=nonfinite_distances,
        )
        return run, fmt
    _no_folder(src, a(f"{RUN_FORMATS[fmt]} file"))
    chunks = {} if chunk_size is None else {"chunk_size": chunk_size}
    if fmt == "ascii-matrix":
        run = read_ascii_matrix(
            src, assessment, name=name, extra_rows=values["extra_rows"], **chunks
        )
        return run, fmt
    if fmt == "binary-matrix":
        return read_binary_matrix(src, assessment, name=name, extra_rows=values["extra_rows"]), fmt
    run = read_trec_run(
        src,
        assessment,
        trec_order=trec_order,
        name=name,
        normalize_ids=norm,
        c_numbers=c_numbers,
        **chunks,
    )
    return run, fmt


def _one_line(name: str) -> str:
    return "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in name)


def distinct_names(names: list[str], sources: list[str]) -> list[str]:
    """Run names made distinct for tables and JSON: where names clash (two
    TREC files with the same run tag), the file name is added
    (``tag (alice.trec)``), then a number if that still clashes."""
    # a name holding a line break or a tab would break every table
    names = [_one_line(n) for n in names]
    count = {n: names.count(n) for n in names}
    out = [n if count[n] == 1 else f"{n} ({Path(src).name})" for n, src in zip(names, sources)]
    seen: dict[str, int] = {}
    for i, n in enumerate(out):
        k = seen[n] = seen.get(n, 0) + 1
        if k > 1 or out.count(n) > 1:
            out[i] = f"{n} #{k}"
    return out
