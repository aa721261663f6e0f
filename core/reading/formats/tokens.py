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

Work is done a chunk of whole lines at a time with numpy (no Python object
or loop per token): :func:`chunks` cuts the data, :func:`tokenize` returns
each content line's field count, line number and token offsets, so that a
reader checks the field count of every line at once; numbers and ids are
read from the bytes by :mod:`.numparse`, exactly as ``float()``/``int()``
and ``bytes.split()`` would.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...errors import FormatError
from .keys import TokenCodes, pieces
from .numparse import parse_floats, parse_ints, plain_decimals
from .packed import Packed, padded
from .source import a as article

BOM = b"\xef\xbb\xbf"
WHITESPACE = b" \t\n\r\x0b\x0c"
_IS_WS = np.zeros(256, dtype=bool)
_IS_WS[list(WHITESPACE)] = True
#: chunk size of the readers (whole lines; tests pass small sizes): about
#: 1 MiB keeps a chunk's arrays in the processor's cache (measured fastest)
CHUNK = 1 << 20
_CHECK_BLOCK = 1 << 20


@dataclass
class Lines:
    """The content lines of a chunk: per line its field ``count``, its
    1-based line ``number`` and the index of its first token (``start``);
    ``offsets`` and ``ends`` are the byte offsets where the tokens start and
    end.  No Python object is made per token unless asked for
    (:attr:`tokens`, :meth:`field`)."""

    data: bytes
    offsets: np.ndarray
    ends: np.ndarray
    count: np.ndarray
    number: np.ndarray
    start: np.ndarray

    @cached_property
    def buffer(self) -> np.ndarray:
        return np.frombuffer(self.data, dtype=np.uint8)

    @cached_property
    def tokens(self) -> list[bytes]:
        """Every token as bytes (small files only: one object per token)."""
        return pieces(self.data, self.offsets, self.ends)

    def bounds(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Start and end offsets of field ``k`` of every line."""
        w = self.width
        idx = slice(k, None, w) if w is not None else self.start + k
        return self.offsets[idx], self.ends[idx]

    def token(self, i: int, k: int) -> bytes:
        """Field ``k`` of line ``i`` as bytes."""
        j = int(self.start[i]) + k
        return self.data[int(self.offsets[j]) : int(self.ends[j])]

    @cached_property
    def padded(self) -> np.ndarray:
        """The bytes followed by zeros (for :mod:`.keys`)."""
        return padded(self.buffer)

    def packed(self, k: int, *, runs: bool = True) -> Packed:
        """Field ``k`` of every line packed for a :class:`TokenCodes`
        (``runs``: see :class:`Packed`)."""
        a, b = self.bounds(k)
        return Packed(self.data, self.padded, a, b, runs=runs)

    def codes(self, k: int, table: TokenCodes) -> np.ndarray:
        """The code in ``table`` of field ``k`` of every line (new tokens
        added to it)."""
        return table.codes(self.packed(k))

    def unique(self, k: int) -> tuple[Sequence[bytes], np.ndarray]:
        """The distinct tokens of field ``k`` in order of first occurrence,
        and for every line the index of its token among them."""
        table = TokenCodes()
        codes = self.codes(k, table)
        return table.raw, codes

    def __len__(self) -> int:
        return int(self.count.size)

    @cached_property
    def width(self) -> int | None:
        """The field count shared by every line, or None."""
        c = self.count
        return int(c[0]) if c.size and (c == c[0]).all() else None

    def field(self, k: int) -> list[bytes]:
        """Field ``k`` (0-based) of every line (every line has more than k)."""
        return pieces(self.data, *self.bounds(k))

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
    """UTF-8; a byte that is not UTF-8 (a Latin-1 ``\\xe9`` of an old file)
    is kept as a surrogate (``surrogateescape``), so that two ids are the
    same id exactly when their bytes are (``caf\\xe9`` and ``caf\\xc3\\xa9``
    stay two ids, as trec_eval sees them); :func:`shrec_eval.errors.shown`
    writes U+FFFD for such bytes."""
    return raw.decode("utf-8", "surrogateescape")


def strip_bom(data: bytes) -> bytes:
    return data[len(BOM) :] if data.startswith(BOM) else data


def control_bytes(a: np.ndarray) -> np.ndarray:
    """Mask of the bytes no text file holds (tab, LF, VT, FF, CR are
    whitespace): 0x00-0x08, 0x0e-0x1f, 0x7f."""
    return (a < 9) | ((a - np.uint8(14)) < np.uint8(18)) | (a == 127)


def has_control_bytes(a: np.ndarray) -> bool:
    """Whether :func:`control_bytes` holds any: every byte below 0x20 is
    whitespace (9-13) or a control byte, so counting is enough (cheaper
    than the mask on text that has none)."""
    low = np.count_nonzero(a < 32)
    white = np.count_nonzero((a - np.uint8(9)) <= np.uint8(4))
    return low != white or bool((a == 127).any())


def check_text(path, data: bytes, what: str, first_line: int = 1) -> None:
    """A clear error for content that is not text: NUL bytes, other control
    characters, UTF-16 (``data`` starting at line ``first_line``)."""
    a = np.frombuffer(data, dtype=np.uint8)
    for at in range(0, a.size, _CHECK_BLOCK):
        block = a[at : at + _CHECK_BLOCK]
        if has_control_bytes(block):
            pos = at + int(control_bytes(block).argmax())
            break
    else:
        return
    line = data.count(b"\n", 0, pos) + first_line
    if first_line == 1 and looks_utf16(data):
        raise FormatError(
            path, f"this is UTF-16 text; {article(what)} in UTF-8 (or ASCII) was expected", line=1
        )
    byte = data[pos]
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
    step = max(size, 1)
    return line_chunks(data[at : at + step] for at in range(0, len(data), step))


def source_chunks(src, size: int = CHUNK) -> Iterator[tuple[int, bytes]]:
    """(first line number, chunk of whole lines) of a :class:`~.source.Source`
    (its BOM left out), read from the file a block at a time as the chunks
    are asked for: a file is never held in memory whole (a run of 300 MB
    read whole cost 300 MB more and the page faults of filling it)."""
    pieces = line_chunks(src.blocks(size))
    for first, chunk in pieces:
        if first == 1:
            chunk = strip_bom(chunk)
        if chunk:
            yield first, chunk


def line_chunks(blocks) -> Iterator[tuple[int, bytes]]:
    """(first line number, chunk of whole lines) from consecutive blocks of
    bytes: each chunk ends at the last line end of a block (a line longer
    than a block is carried on until it ends)."""
    line = 1
    carry: list[bytes] = []
    for block in blocks:
        cut = block.rfind(b"\n") + 1
        if not cut:
            carry.append(block)
            continue
        if carry:
            chunk = b"".join([*carry, memoryview(block)[:cut]])
            carry = []
        else:
            chunk = block if cut == len(block) else block[:cut]
        if cut < len(block):
            carry.append(block[cut:])
        yield line, chunk
        line += newlines(chunk)
    if carry:
        yield line, b"".join(carry)


def newlines(data: bytes) -> int:
    """How many ``\\n`` ``data`` holds (numpy counts bytes several times
    faster than ``bytes.count``)."""
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == 10))


def whitespace(a: np.ndarray) -> np.ndarray:
    """Mask of the whitespace bytes (space, tab, LF, VT, FF, CR) of a uint8
    array (comparisons only: numpy runs them far faster than a table)."""
    return (a == 32) | ((a - np.uint8(9)) <= np.uint8(4))


def tokenize(
    data: bytes, first_line: int = 1, *, comments: bool = False, text: bool = False
) -> Lines:
    """Split a chunk of whole lines into tokens, with each content line's
    field count and line number (blank lines and, with ``comments``,
    ``#`` lines left out).  ``text``: it passed :func:`check_text` (every
    byte up to the space is whitespace: one comparison, not four)."""
    a = np.frombuffer(data, dtype=np.uint8)
    n = a.size
    ws = np.empty(n + 2, dtype=bool)
    ws[0] = ws[-1] = True
    if text:
        np.less_equal(a, 32, out=ws[1:-1])
    else:
        ws[1:-1] = whitespace(a)
    # token boundaries alternate start, end (whitespace before the first
    # byte and after the last)
    edges = np.flatnonzero(ws[1:] != ws[:-1])
    offsets, ends = edges[0::2], edges[1::2]
    width = _uniform_by_line_ends(a, offsets, ends, comments)
    if not width:
        line_ends = np.flatnonzero(a == 10)
        if n and a[-1] != 10:
            line_ends = np.append(line_ends, n)
        width = _uniform_width(a, offsets, ends, line_ends, comments)
    if width:  # every line holds `width` tokens (the usual run or qrels chunk)
        n_lines = offsets.size // width
        return Lines(
            data,
            offsets,
            ends,
            np.full(n_lines, width),
            np.arange(first_line, first_line + n_lines),
            np.arange(0, offsets.size, width),
        )
    before = np.searchsorted(offsets, line_ends)
    counts = np.diff(before, prepend=0)
    content = np.flatnonzero(counts)
    counts = counts[content]
    starts = before[content] - counts
    number = content + first_line
    if comments and starts.size:
        comment = a[offsets[starts]] == ord("#")
        if comment.any():
            keep = np.repeat(~comment, counts)
            offsets, ends = offsets[keep], ends[keep]
            counts, number = counts[~comment], number[~comment]
            starts = np.cumsum(counts) - counts
    return Lines(data, offsets, ends, counts, number, starts)


def _uniform_by_line_ends(a, offsets, ends, comments: bool) -> int:
    """W when every line of the chunk holds W tokens, told from the number
    of line ends (no array of their places): N lines, N * W tokens, and a
    line end next to token ``W*i + W - 1`` for every line but the last (the
    first or last byte of the whitespace after it: ``\n``, ``\r\n``) are
    all the line ends, so line ``i`` holds tokens ``W*i`` to ``W*i + W - 1``
    and none is blank.  0 when not seen (:func:`_uniform_width` decides)."""
    n, n_tokens = a.size, offsets.size
    n_lines = int(np.count_nonzero(a == 10)) + (1 if n and a[-1] != 10 else 0)
    if not n_lines or not n_tokens or n_tokens % n_lines:
        return 0
    w = n_tokens // n_lines
    # (the byte after a line's last token, as a rule; the byte before the next
    # line's first token only where that is not the line end)
    after = a[ends[w - 1 : -1 : w]] != 10
    if after.any() and (a[offsets[w::w][after] - 1] != 10).any():
        return 0
    if comments and (a[offsets[::w]] == ord("#")).any():
        return 0
    return w


def _uniform_width(a, offsets, ends, line_ends, comments: bool) -> int:
    """W when every line of the chunk holds exactly W tokens (no blank or
    comment line), else 0; checked without placing every token on its line:
    token ``W*i`` must start after line ``i``'s predecessor ends and token
    ``W*i + W - 1`` end before line ``i`` does (tokens are in order, so the
    W tokens between are on line ``i`` too, and no other)."""
    n_lines, n_tokens = line_ends.size, offsets.size
    if not n_lines or not n_tokens or n_tokens % n_lines:
        return 0
    w = n_tokens // n_lines
    firsts = offsets[::w]
    if (ends[w - 1 :: w] > line_ends).any() or (firsts[1:] <= line_ends[:-1]).any():
        return 0
    if comments and (a[firsts] == ord("#")).any():
        return 0
    return w


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


def plain_float(raw: bytes) -> float:
    """``float()`` of a token, but never ``1_000`` (a typo, not a number,
    as the matrix reader and C read it)."""
    if b"_" in raw:
        raise ValueError(raw)
    return float(raw)


def plain_int(raw: bytes) -> int:
    """:func:`_int64` of a token, but never ``1_0``."""
    if b"_" in raw:
        raise ValueError(raw)
    return _int64(raw)


_C_FLOAT = re.compile(
    rb"[ \t\n\v\f\r]*([+-]?)(?:0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?[0-9]+)?"
    rb"|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|(inf(?:inity)?|nan(?:\([0-9a-zA-Z_]*\))?))",
    re.IGNORECASE,
)
_C_INT = re.compile(rb"[ \t\n\v\f\r]*([+-]?[0-9]+)")


def c_atof(raw: bytes) -> float:
    """A token as C's ``atof`` reads it (trec_eval's scores): the longest
    prefix that is a number (decimal, hexadecimal, inf, nan), 0 when there
    is none: ``1_000`` is 1, ``2abc`` 2, ``x`` 0."""
    m = _C_FLOAT.match(raw)
    if m is None:
        return 0.0
    sign, hexa, hexp, dec, dexp, special = m.groups()
    if hexa is not None:
        v = float.fromhex(hexa.decode() + (hexp.decode() if hexp else "p0"))
    elif dec is not None:
        v = float(dec + (dexp or b""))
    else:
        v = float(special.split(b"(")[0].decode())
    return -v if sign == b"-" else v


def c_atol(raw: bytes) -> int:
    """A token as C's ``atol`` reads it (trec_eval's relevance grades): the
    leading whole number, 0 when there is none, clamped to int64."""
    m = _C_INT.match(raw)
    if m is None:
        return 0
    return max(-(2**63), min(int(m.group(1)), 2**63 - 1))


def floats(path, lines: Lines, k: int, what: str, *, c: bool = False) -> np.ndarray:
    """Field ``k`` of every line as float64, bit for bit what ``float()``
    gives (plain spellings parsed with numpy, the others by
    :func:`plain_float`); an error naming the first token that is not a
    number.  ``c``: as C's ``atof`` reads them (:func:`c_atof`, never an
    error; the plain spellings read the same)."""
    a, b = lines.bounds(k)
    values, done = parse_floats(lines.padded, a, b)
    parse = c_atof if c else plain_float
    return _fallback(path, lines, k, values, done, parse, f"{what} must be a number")


def checked_floats(
    path, lines: Lines, k: int, what: str, *, c: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Field ``k`` of every line checked as :func:`floats` reads it (the
    same error for the first token that is not a number), for a reader that
    needs only the check (a TREC run's scores in file order): the plain
    decimals' values are not computed (they are finite numbers; checking
    their spelling costs half of reading them).  Returns the indices and
    values of the other tokens (exponents, ``nan``, ...)."""
    a, b = lines.bounds(k)
    done = plain_decimals(lines.padded, a, b)
    rest = np.flatnonzero(~done)
    values = np.zeros(done.size, dtype=np.float64)
    if rest.size:
        values[rest], done[rest] = parse_floats(lines.padded, a[rest], b[rest])
        parse = c_atof if c else plain_float
        values = _fallback(path, lines, k, values, done, parse, f"{what} must be a number")
    return rest, values[rest]


def integers(path, lines: Lines, k: int, what: str, *, c: bool = False) -> np.ndarray:
    """Field ``k`` of every line as int64 (whole numbers only, as ``int()``
    reads them, never ``1_0``); ``c``: as C's ``atol`` reads them."""
    a, b = lines.bounds(k)
    values, done = parse_ints(lines.buffer, a, b)
    parse = c_atol if c else plain_int
    return _fallback(path, lines, k, values, done, parse, f"{what} must be a whole number")


def _int64(raw: bytes) -> int:
    v = int(raw)
    if not -(2**63) <= v < 2**63:
        raise OverflowError
    return v


def _fallback(path, lines: Lines, k: int, values, done, parse, message: str) -> np.ndarray:
    """Parse the tokens the vectorised path left (``~done``) one by one;
    an error naming the first one ``parse`` refuses."""
    rest = np.flatnonzero(~done)
    if not rest.size:
        return values
    j = lines.start[rest] + k
    d = lines.data
    raws = [d[a:b] for a, b in zip(lines.offsets[j].tolist(), lines.ends[j].tolist())]
    try:
        values[rest] = np.fromiter(map(parse, raws), values.dtype, len(raws))
        return values
    except (ValueError, OverflowError):
        pass
    for i, raw in zip(rest.tolist(), raws):
        try:
            parse(raw)
        except (ValueError, OverflowError):
            raise FormatError(
                path,
                message,
                line=int(lines.number[i]),
                column=lines.column(i, k),
                token=decode_token(raw),
            ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def read_lines(source, what: str, *, comments: bool = False) -> Lines:
    """A whole small text file (``.cla``, collection list, rank list) as one
    :class:`Lines`, after the text checks."""
    data = strip_bom(source.read())
    check_text(source.path, data, what)
    return tokenize(data, comments=comments, text=True)
