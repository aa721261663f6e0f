"""Reading text files the way real contest files are: UTF-8 (or Latin-1),
an optional BOM, CRLF or LF line ends, blank lines, tabs or runs of spaces,
no final newline.  Binary garbage is told apart from text."""

from __future__ import annotations

import re

from ..errors import FileAccessError, FormatError

BOM = b"\xef\xbb\xbf"


def read_bytes(path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except IsADirectoryError as exc:
        raise FileAccessError(path, "this is a folder, a file was expected") from exc
    except OSError as exc:
        raise FileAccessError.wrap(path, exc) from exc


def decode(data: bytes, path, what: str) -> str:
    """Text of a file; a clear error for binary content."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise FormatError(path, f"this is a binary file, a text {what} was expected", line=line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    bad = _CONTROL.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        raise FormatError(
            path,
            f"unexpected control character {ord(bad.group()):#04x}; a text {what} was expected",
            line=line,
        )
    return text


_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def read_text(path, what: str) -> str:
    return decode(read_bytes(path), path, what)


def column_of(text_line: str, index: int) -> int:
    """1-based column of the index-th whitespace token of a line."""
    pos = 0
    for i, tok in enumerate(text_line.split()):
        pos = text_line.index(tok, pos)
        if i == index:
            return pos + 1
        pos += len(tok)
    return len(text_line) + 1


def is_number(tok: str) -> bool:
    """Whether a token reads as a number (int, float, nan, inf)."""
    return _parses(float, tok)


def is_integer(tok: str) -> bool:
    return _parses(int, tok)


def _parses(kind, tok: str) -> bool:
    try:
        kind(tok)
    except ValueError:
        return False
    return True
