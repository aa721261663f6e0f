"""The one tokenizer of every line-based text format (TREC runs and qrels,
``.cla`` files, collection lists, rank lists), used alike by the command
line, the library and the desktop app.

Rules, the same for every file size:

* lines end at ``\\n`` only (a ``\\r`` before it is whitespace); form feed,
  U+2028 or a Latin-1 0x85 never start a line, so line numbers are the ones
  an editor shows;
* tokens are runs of non-whitespace bytes, whitespace being the ASCII
  space, tab, CR, vertical tab and form feed (what ``bytes.split()`` splits
  on): any run of them separates two fields;
* quotes are ordinary bytes: ``"d1"`` is the id ``"d1"`` (trec_eval keeps
  them too);
* a line whose first token starts with ``#`` is a comment when the format
  has comments.

Work is done a chunk of whole lines at a time with ``bytes.split`` and numpy
(no Python loop per token): :func:`chunks` cuts the data, :func:`tokenize`
returns each content line's field count, line number and token offsets, so
that a reader checks the field count of every line at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress

import numpy as np

from ..errors import FormatError

BOM = b"\xef\xbb\xbf"
WHITESPACE = b" \t\n\r\x0b\x0c"
_IS_WS = np.zeros(256, dtype=bool)
_IS_WS[list(WHITESPACE)] = True
#: bytes no text file holds (tab, LF, VT, FF, CR are whitespace)
CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1f\x7f]")
#: chunk size of the readers (whole lines; tests pass small sizes)
CHUNK = 1 << 24


@dataclass
class Lines:
    """The content lines of a chunk: ``tokens`` in order, and per line its
    field ``count``, its 1-based line ``number`` and the index of its first
    token (``start``); ``offsets`` are the byte offsets of the tokens."""

    data: bytes
    tokens: list[bytes]
    offsets: np.ndarray
    count: np.ndarray
    number: np.ndarray
    start: np.ndarray

    def __len__(self) -> int:
        return int(self.count.size)

    @property
    def width(self) -> int | None:
        """The field count shared by every line, or None."""
        c = self.count
        return int(c[0]) if c.size and (c == c[0]).all() else None

    def field(self, k: int) -> list[bytes]:
        """Field ``k`` (0-based) of every line (every line has more than k)."""
        w = self.width
        if w is not None:
            return self.tokens[k::w]
        toks = self.tokens
        return [toks[i] for i in (self.start + k).tolist()]

    def text(self, i: int) -> str:
        """Line ``i`` (content-line index) as text, for messages."""
        off = int(self.offsets[self.start[i]])
        a = self.data.rfind(b"\n", 0, off) + 1
        b = self.data.find(b"\n", off)
        return decode_token(self.data[a : b if b >= 0 else len(self.data)].strip())

    def column(self, i: int, k: int) -> int:
        """1-based column of field ``k`` of line ``i``."""
        off = int(self.offsets[self.start[i] + k])
        return off - (self.data.rfind(b"\n", 0, off) + 1) + 1

    def rows(self) -> Iterator[tuple[int, list[str]]]:
        """(content-line index, decoded tokens) of every line, for small
        files read line by line (rank lists)."""
        toks = self.tokens
        for i, (a, c) in enumerate(zip(self.start.tolist(), self.count.tolist())):
            yield i, [decode_token(t) for t in toks[a : a + c]]

    def token_lines(self) -> np.ndarray:
        """The line number of every token."""
        return np.repeat(self.number, self.count)


def decode_token(raw: bytes) -> str:
    """UTF-8, or Latin-1 for what is not (old files)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def strip_bom(data: bytes) -> bytes:
    return data[len(BOM) :] if data.startswith(BOM) else data


def check_text(path, data: bytes, what: str) -> None:
    """A clear error for content that is not text: NUL bytes, other control
    characters, UTF-16."""
    bad = CONTROL.search(data)
    if bad is None:
        return
    line = data.count(b"\n", 0, bad.start()) + 1
    if looks_utf16(data):
        raise FormatError(
            path, f"this is UTF-16 text; a {what} in UTF-8 (or ASCII) was expected", line=1
        )
    byte = bad.group()[0]
    name = "a NUL byte (0x00)" if byte == 0 else f"a control character {byte:#04x}"
    raise FormatError(path, f"{name} in a text file; a text {what} was expected", line=line)


def looks_utf16(data: bytes) -> bool:
    """A UTF-16 byte order mark, or every other byte NUL in the first ones."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return True
    head = data[:256]
    half = len(head) // 2 - 1
    return len(head) >= 8 and (head[1::2].count(0) >= half or head[0::2].count(0) >= half)


def chunks(data: bytes, size: int = CHUNK) -> Iterator[tuple[int, bytes]]:
    """(first line number, chunk of whole lines) pieces of ``data``."""
    start, line = 0, 1
    n = len(data)
    while start < n:
        stop = start + max(size, 1)
        if stop >= n:
            end = n
        else:
            nl = data.find(b"\n", stop - 1)
            end = n if nl < 0 else nl + 1
        chunk = data[start:end]
        yield line, chunk
        line += chunk.count(b"\n")
        start = end


def tokenize(data: bytes, first_line: int = 1, *, comments: bool = False) -> Lines:
    """Split a chunk of whole lines into tokens, with each content line's
    field count and line number (blank lines and, with ``comments``,
    ``#`` lines left out)."""
    a = np.frombuffer(data, dtype=np.uint8)
    ws = _IS_WS[a]
    begins = ~ws
    begins[1:] &= ws[:-1]
    offsets = np.flatnonzero(begins)
    tokens = data.split()
    newlines = np.flatnonzero(a == 10)
    line_of = np.searchsorted(newlines, offsets)
    new = np.ones(offsets.size, dtype=bool)
    new[1:] = line_of[1:] != line_of[:-1]
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, offsets.size))
    if comments and starts.size:
        comment = a[offsets[starts]] == ord("#")
        if comment.any():
            keep = np.repeat(~comment, counts)
            tokens = list(compress(tokens, keep.tolist()))
            offsets, line_of = offsets[keep], line_of[keep]
            starts, counts = starts[~comment], counts[~comment]
            starts = np.concatenate(([0], np.cumsum(counts)[:-1])) if counts.size else starts
    return Lines(
        data,
        tokens,
        offsets,
        counts.astype(np.int64),
        line_of[starts].astype(np.int64) + first_line if starts.size else np.zeros(0, np.int64),
        starts.astype(np.int64),
    )


def check_counts(path, lines: Lines, low: int, high: int | None, expected: str) -> None:
    """Every line has between ``low`` and ``high`` fields (None: no upper
    bound), else an error naming the first line that does not."""
    c = lines.count
    bad = c < low if high is None else (c < low) | (c > high)
    if bad.any():
        i = int(np.argmax(bad))
        raise FormatError(
            path,
            f"{expected}; this one has {int(c[i])}",
            line=int(lines.number[i]),
            token=lines.text(i),
        )


def floats(path, lines: Lines, k: int, what: str) -> np.ndarray:
    """Field ``k`` of every line as float64; an error naming the first
    token that is not a number."""
    toks = lines.field(k)
    try:
        return np.fromiter(map(float, toks), np.float64, len(toks))
    except ValueError:
        pass
    for i, t in enumerate(toks):
        try:
            float(t)
        except ValueError:
            raise FormatError(
                path,
                f"{what} must be a number",
                line=int(lines.number[i]),
                column=lines.column(i, k),
                token=decode_token(t),
            ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def integers(path, lines: Lines, k: int, what: str) -> np.ndarray:
    """Field ``k`` of every line as int64 (whole numbers only)."""
    toks = lines.field(k)
    try:
        return np.fromiter(map(int, toks), np.int64, len(toks))
    except (ValueError, OverflowError):
        pass
    for i, t in enumerate(toks):
        try:
            v = int(t)
            if not -(2**63) <= v < 2**63:
                raise OverflowError
        except (ValueError, OverflowError):
            raise FormatError(
                path,
                f"{what} must be a whole number",
                line=int(lines.number[i]),
                column=lines.column(i, k),
                token=decode_token(t),
            ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def read_lines(source, what: str, *, comments: bool = False) -> Lines:
    """A whole small text file (``.cla``, collection list, rank list) as one
    :class:`Lines`, after the text checks."""
    data = strip_bom(source.read())
    check_text(source.path, data, what)
    return tokenize(data, comments=comments)
