"""Dissimilarity matrices: PSB binary float32 (``.matrix``) and ASCII
(SHREC 2012-2015), ranked a block of rows at a time."""

from __future__ import annotations

import numpy as np

from ...errors import FileAccessError, FormatError
from ...kernels.rowsort import rank_pairs, rank_rows
from ...model.assessment import MAX_EXAMPLES, Assessment, DataWarning
from ...model.parallel import in_order
from ...model.runs import MatrixRows, Run
from .file_rows import FileRows
from .numparse import parse_floats
from .source import PIPE_LIMIT, a, default_name, open_source, watch_step
from .tokens import CHUNK, check_text, has_control_bytes, source_chunks, strip_bom, tokenize

SCAN_ROWS = 256


def ties_warning(query_ids, ties: np.ndarray, message: str) -> list[DataWarning]:
    """The ``ties`` data check of a ranked matrix (``ties``: tied pairs per
    query row counted while ranking), or nothing when there were none."""
    if not ties.any():
        return []
    rows = np.flatnonzero(ties)
    examples = tuple(f"query {query_ids[r]}: {ties[r]}" for r in rows[:MAX_EXAMPLES])
    return [DataWarning("ties", message, int(ties.sum()), examples)]


class MatrixRun(Run):
    """A run given as a dissimilarity matrix: row q = query q (assessment
    order), column j = collection item j.  The ranked list of a row is the
    items by ascending dissimilarity, ties broken by collection order (a
    stable sort, see :mod:`.rowsort`); rows are ranked when the engine asks
    for them, so a memory-mapped matrix is never copied whole."""

    def __init__(
        self,
        name: str,
        matrix: MatrixRows,
        assessment: Assessment,
        *,
        source: str = "",
        format: str = "dissimilarity matrix",
        warnings=(),
        finite: bool = False,
    ) -> None:
        self.name = name
        self.source = source
        self.format = format
        self.matrix = matrix
        self.query_ids = assessment.query_ids
        self.n_items = assessment.n_items
        self.item_ids = assessment.item_ids
        self._base_warnings = list(warnings)
        self.positional = matrix  # the matrix-order check reads its rows again
        self._ties = np.zeros(matrix.shape[0], dtype=np.int64)
        #: the reader checked every value is finite (ranking skips the NaN check)
        self.finite = finite

    @property
    def max_length(self) -> int:
        return self.matrix.shape[1]

    @property
    def warnings(self) -> list[DataWarning]:
        return list(self._base_warnings) + ties_warning(
            self.query_ids,
            self._ties,
            "tied pairs of dissimilarities in a row (broken by collection order)",
        )

    @warnings.setter
    def warnings(self, value) -> None:
        self._base_warnings = list(value)

    def row_state(self, rows: np.ndarray) -> np.ndarray:
        return self._ties[rows]

    def set_row_state(self, rows: np.ndarray, state) -> None:
        if state is not None:
            self._ties[rows] = state

    def ranked_block(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.asarray(rows, dtype=np.int64)
        order, ties = rank_rows(self._rows, rows, self.matrix.shape[1])
        self._ties[rows] = ties
        return order, np.full(rows.size, self.matrix.shape[1], dtype=np.int64)

    def judged_ranks(
        self, rows: np.ndarray, pair_row: np.ndarray, pair_item: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ranks of the asked items found in the rows' sorted keys
        (:func:`.rowsort.rank_pairs`): the order of the whole row is never
        made.  Called by the engine's threads, a block each."""
        rows = np.asarray(rows, dtype=np.int64)
        ranks, ties = rank_pairs(self._rows(rows), pair_row, pair_item, finite=self.finite)
        self._ties[rows] = ties
        return np.full(rows.size, self.matrix.shape[1], dtype=np.int64), ranks

    def _rows(self, rows: np.ndarray) -> np.ndarray:
        """Some rows of the matrix, read only: a view when they follow each
        other (the ranking makes its own keys from it, one pass), else a copy."""
        if rows.size and (np.diff(rows) == 1).all():
            return np.asarray(self.matrix[rows[0] : rows[-1] + 1])
        return np.asarray(self.matrix[rows])


def _expected_shape(assessment: Assessment) -> tuple[int, int]:
    return assessment.n_queries, assessment.n_items


def _shape_text(a: Assessment) -> str:
    q, t = _expected_shape(a)
    if a.leave_one_out and q == t:
        return f"{q} x {t} (one row and one column per model of the classification)"
    return f"{q} x {t} ({q} queries, {t} targets)"


def _check_finite(path, m: MatrixRows, line_of_row=None, src=None) -> None:
    """Every value finite, else a FormatError naming the first one; ``src``'s
    watch follows the rows read (:func:`.source.watch_step`)."""
    for start in range(0, m.shape[0], SCAN_ROWS):
        watch_step(src, start, m.shape[0])
        block = np.asarray(m[start : start + SCAN_ROWS])
        bad = ~np.isfinite(block)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            row = start + int(r)
            line = line_of_row(row) if line_of_row else None
            raise FormatError(
                path,
                f"row {row + 1}, column {int(c) + 1} is {block[r, c]}; "
                "every dissimilarity must be a finite number",
                line=line,
                column=None,
            )
    watch_step(src, m.shape[0], m.shape[0])


def _extra_rows(path, rows: int, a: Assessment, extra_rows: str) -> list[DataWarning]:
    """A matrix of ``rows`` rows for the assessment's queries: a note when
    the rows past the queries are ignored (``extra_rows="ignore"``), a
    FormatError with the counts when they are refused (the default)."""
    q = a.n_queries
    if rows == q:
        return []
    if rows < q:
        raise FormatError(
            path, f"the matrix has {rows} rows; {q} were expected for {_shape_text(a)}"
        )
    if extra_rows != "ignore":
        raise FormatError(
            path,
            f"the matrix has {rows} rows, {rows - q} more than the {q} queries of "
            f"{_shape_text(a)}: remove the rows past the first {q}",
        )
    return [
        DataWarning(
            "extra_rows",
            f"the matrix has {rows} rows for {q} queries: the rows past the queries are ignored",
            rows - q,
        )
    ]


def read_binary_matrix(
    path, assessment: Assessment, *, name: str | None = None, extra_rows: str = "refuse"
) -> MatrixRun:
    """PSB binary matrix: native little-endian float32, no header, Q x T
    entries in the order of the classification; read a block of rows at a
    time (:class:`~.file_rows.FileRows`, never memory-mapped).
    ``extra_rows="ignore"`` reads the first Q rows of a longer matrix (with
    a note)."""
    q, t = _expected_shape(assessment)
    limit = PIPE_LIMIT if extra_rows == "ignore" else 4 * q * t
    src = open_source(path, f"binary float32 matrix of {q} x {t}", limit=limit)
    path = src.path
    size = src.size
    if size == 0:
        raise FormatError(
            path,
            f"the file is empty; a binary float32 matrix of "
            f"{_shape_text(assessment)} = {4 * q * t} bytes was expected",
        )
    notes: list[DataWarning] = []
    if size != 4 * q * t:
        if t and size % (4 * t) == 0 and size > 4 * q * t:
            notes = _extra_rows(path, size // (4 * t), assessment, extra_rows)
        else:
            hint = ""
            n = int(round((size / 4) ** 0.5))
            if n * n * 4 == size:
                hint = f"; it holds {a(f'{n} x {n} matrix')}"
            raise FormatError(
                path,
                f"the file has {size} bytes but a binary float32 matrix of "
                f"{_shape_text(assessment)} has {4 * q * t} bytes{hint}",
            )
    try:
        if src.in_memory:  # a pipe, read once
            m: MatrixRows = np.frombuffer(src.read(), dtype="<f4")[: q * t].reshape(q, t)
        else:
            m = FileRows(
                path,
                (q, t),
                "<f4",
                what=f"a binary float32 matrix of {q} x {t} has {4 * q * t:,} bytes",
            )
    except OSError as exc:
        raise FileAccessError.wrap(path, exc) from exc
    _check_finite(path, m, src=src)
    return MatrixRun(
        name or default_name(path),
        m,
        assessment,
        source=str(path),
        format="PSB binary matrix (float32)",
        finite=True,
        warnings=notes,
    )


def read_ascii_matrix(
    path,
    assessment: Assessment,
    *,
    name: str | None = None,
    chunk_size: int = CHUNK,
    extra_rows: str = "refuse",
) -> MatrixRun:
    """ASCII dissimilarity matrix: one row per query, one number per target,
    whitespace separated, in the order of the classification file(s).

    Read a chunk of whole lines at a time (``chunk_size`` bytes) with the
    tokenizer and the number parser of the other text formats, by two
    threads; numpy's loops release the GIL between chunks of about a
    millisecond, so a window stays responsive while a worker reads."""
    q, t = _expected_shape(assessment)
    src = open_source(path, "text matrix of numbers")
    path = src.path
    m = _parse(src, chunk_size)
    notes: list[DataWarning] = []
    if m is not None and m.ndim == 2 and m.shape[1] == t and m.shape[0] > q:
        if extra_rows == "ignore":
            notes = _extra_rows(path, m.shape[0], assessment, extra_rows)
            m = m[:q]
    if (
        m is None
        or m.shape != (q, t)
        or (m.size and not (np.isfinite(m.min()) and np.isfinite(m.max())))
    ):
        _diagnose(path, strip_bom(src.read()), q, t, assessment, extra_rows)
        raise FormatError(
            path, f"the matrix could not be read; {_shape_text(assessment)} numbers were expected"
        )
    return MatrixRun(
        name or default_name(path),
        m,
        assessment,
        source=str(path),
        format="ASCII matrix",
        finite=True,
        warnings=notes,
    )


def _parse(src, chunk_size: int) -> np.ndarray | None:
    """The numbers, one row per content line; None when a chunk holds
    something else (a control byte, a token that is not a number) or the
    rows differ in length: :func:`_diagnose` then names the first problem."""
    parts = []
    for part in in_order(_chunk_rows, source_chunks(src, chunk_size)):
        if part is None:
            return None
        if part.size:
            parts.append(part)
    if not parts:
        return np.zeros((0, 0))
    if len({p.shape[1] for p in parts}) != 1:
        return None
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _chunk_rows(piece: tuple[int, bytes]) -> np.ndarray | None:
    first, chunk = piece
    if has_control_bytes(np.frombuffer(chunk, dtype=np.uint8)):
        return None
    lines = tokenize(chunk, first)
    if not len(lines):
        return np.zeros((0, 0))
    width = lines.width
    if width is None:
        return None
    values, done = parse_floats(lines.padded, lines.offsets, lines.ends)
    rest = np.flatnonzero(~done)
    if rest.size:
        data, a, b = lines.data, lines.offsets[rest].tolist(), lines.ends[rest].tolist()
        try:
            # what the fast paths leave (exponents past 15 digits, nan, inf...)
            # as Python reads it, but never 1_000 (a typo, not a number)
            values[rest] = [_plain_float(data[x:y]) for x, y in zip(a, b)]
        except ValueError:
            return None
    return values.reshape(len(lines), width)


def _plain_float(raw: bytes) -> float:
    if b"_" in raw:
        raise ValueError(raw)
    return float(raw)


def _diagnose(
    path, data: bytes, q: int, t: int, assessment: Assessment, extra_rows: str = "refuse"
) -> None:
    """Find and report the first problem of a matrix that did not parse
    (rows past the queries are checked too, ignored or not)."""
    check_text(path, data, "text matrix of numbers")
    if not data.strip():
        raise FormatError(
            path,
            f"the file is empty; a matrix of {_shape_text(assessment)} numbers was expected",
            line=1,
        )
    lines = tokenize(data)
    row = 0
    last = 0
    for i, toks in lines.rows():
        n = last = int(lines.number[i])
        if row == q and extra_rows != "ignore":
            header = " (is line 1 a header? remove it)" if len(lines) == q + 1 else ""
            raise FormatError(
                path,
                f"the matrix has {len(lines)} rows, {len(lines) - q} more than the {q} "
                f"expected for {_shape_text(assessment)}{header}",
                line=n,
                token=toks[0],
            )
        for j, tok in enumerate(toks):
            try:
                # Python reads 1_000.5 and Unicode digits ('\u0663'); the bytes of
                # the file are read as C reads numbers, so neither is one
                if "_" in tok or not tok.isascii():
                    raise ValueError(tok)
                v = float(tok)
            except ValueError:
                raise FormatError(
                    path,
                    f"row {row + 1}, value {j + 1} is not a number",
                    line=n,
                    column=lines.column(i, j),
                    token=tok,
                ) from None
            if v != v or v in (float("inf"), float("-inf")):
                raise FormatError(
                    path,
                    f"row {row + 1}, column {j + 1} is {tok}; every "
                    "dissimilarity must be a finite number",
                    line=n,
                    column=lines.column(i, j),
                    token=tok,
                )
        if len(toks) != t:
            raise FormatError(
                path,
                f"row {row + 1} has {len(toks)} values; {t} were expected "
                f"for {_shape_text(assessment)}",
                line=n,
            )
        row += 1
    if row < q:
        raise FormatError(
            path,
            f"the file has {row} rows; {q} were expected for {_shape_text(assessment)}",
            line=last,
        )
