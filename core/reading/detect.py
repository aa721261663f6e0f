"""Detection of a file's format from its content: a sample of its first lines
(never the whole file), the formats it may be, and sniff,
detect_assessment_format and detect_run_format, which name one or say why
none or several fit."""

from __future__ import annotations

import importlib

import numpy as np

from ..choices import ASSESSMENT_FORMATS, RUN_FORMAT_TABLE, RUN_FORMATS
from ..errors import AmbiguousFormatError, FormatError
from ..model.assessment import Assessment
from ..model.number_text import is_integer, is_number
from .formats.embeddings import is_embeddings
from .formats.source import Source, a, classify_path, open_source
from .formats.tokens import control_bytes, decode_token, looks_utf16, strip_bom, tokenize

# the formats and variants are named in .choices (read by --help without numpy)
#: detection reads this much first, and more (up to HEAD_MAX) until it
#: holds SAMPLE whole lines: a matrix row may be far longer than HEAD
HEAD = 1 << 16
HEAD_MAX = 1 << 24
SAMPLE = 20


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
        #: what a file that is not text is by its signature (an image, a PDF,
        #: an archive: filetype's), None when unknown
        self.known = None
        if self.binary and not self.utf16:
            import filetype  # late: 6 ms of every command's start, for a file that is not text

            self.known = filetype.guess(data)
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
        if self.known is not None:
            return f"the file is not text: it is a .{self.known.extension} file ({self.known.mime})"
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
    added = _registered(src)
    if src.kind == "folder":
        return ["ranklists", *added], None
    if is_embeddings(src.head(8)):  # numpy's .npy, or a zip (.npz)
        return ["embeddings", *added], None
    found, s = _builtin_candidates(src, assessment, c_numbers)
    return found + added, s


def _registered(src: Source) -> list[str]:
    """The registered formats (:func:`~shrec_eval.choices.register_run_format`)
    whose ``sniff`` takes the file or folder."""
    out = []
    for row in RUN_FORMAT_TABLE:
        if row.module is not None and row.folder == (src.kind == "folder"):
            if importlib.import_module(row.module).sniff(src):
                out.append(row.name)
    return out


def _builtin_candidates(
    src: Source, assessment: Assessment | None, c_numbers: bool
) -> tuple[list[str], _Sample]:
    """The built-in text and binary formats a file fits (their rules weigh
    one against another)."""
    s = _Sample(src)
    sized = assessment is not None and src.size == 4 * assessment.n_queries * assessment.n_items
    if s.binary:
        return _binary_candidates(s, src, assessment, sized), s
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
    near = not numeric and _near_matrix(s, width if assessment is not None else None)
    if _trec_lines(s, numeric, matrix, near, c_numbers):
        out.append("trec")
    if matrix or near or (not out and numeric and _other_width(s, width)):
        # a near-matrix, or rows of numbers of another width than the
        # assessment's: the matrix reader names the bad value or row
        out.append("ascii-matrix")
    if not out and sized:
        out.append("binary-matrix")
    return out, s


def _binary_candidates(s: _Sample, src: Source, assessment: Assessment | None, sized: bool):
    """A file that is not text: a binary matrix when its size can be one.
    An image or another file of a known kind is no matrix, unless it has a
    matrix's very size for the assessment; nor is one of a size that is no
    whole number of float32 values."""
    # more rows than queries: the matrix reader says so with the counts
    longer = (
        assessment is not None
        and assessment.n_items > 0
        and src.size > 4 * assessment.n_queries * assessment.n_items
        and src.size % (4 * assessment.n_items) == 0
    )
    unknown = s.known is None and src.size % 4 == 0
    fits = sized or (unknown and (assessment is None or longer))
    return ["binary-matrix"] if not s.utf16 and fits else []


def _trec_lines(s: _Sample, numeric: bool, matrix: bool, near: bool, c_numbers: bool) -> bool:
    """Whether the lines are a TREC run's: 6 fields (more are ignored), a
    number 5th, and never longer than the largest read; a file of numbers
    only is a TREC run when its lines share a run tag (matrix rows do not)."""
    tags = {r[5] for r in s.rows if len(r) >= 6}
    shared_tag = len(tags) == 1 and (len(s.rows) > 1 or not matrix)
    return (
        not s.cut_last
        and not near
        and s.fits(lambda r, i: len(r) >= 6 and (c_numbers or is_number(r[4])))
        and (not numeric or shared_tag)
    )


def _other_width(s: _Sample, width: int) -> bool:
    """Rows of numbers all of one length, as a matrix's are, but not the
    ``width`` the assessment asks for: clearly a matrix when its rows are
    longer than a TREC line or at least half that width (a few short rows
    of numbers may be a list of another kind)."""
    rows = s.rows[:-1] if s.cut_last and len(s.rows) > 1 else s.rows
    n = len(rows[0])
    wide = n > 6 or (n >= 2 and 2 * n >= width and len(rows) > 1)
    return wide and all(len(r) == n for r in rows)


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
    found = sniff_all(path)
    return found[0] if found else None


def sniff_all(path) -> list[str]:
    """Every assessment and run format a file's or folder's content fits,
    the likeliest first (several: a matrix of four whole-number columns
    reads as qrels too); none for a pipe or device (never opened here)."""
    if classify_path(path) not in ("file", "folder") and not isinstance(path, Source):
        return []
    found, _ = _candidates(open_source(path), None)
    return found


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
        what = f"a .{s.known.extension} file ({s.known.mime})" if s.known else "not a text file"
        raise FormatError(
            src.path,
            f"this is {what}, and its {src.size} bytes are not those of a binary "
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
