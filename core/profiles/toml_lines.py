"""Where a key of a TOML file is: its line.

``tomllib`` says where the text is not TOML, never where a value is that the
program cannot use; :func:`key_line` finds the line of a key from its path
(``("native", "files", 1, "layout")``: the second ``[[native.files]]``'s
``layout``), by reading the file's table headers and keys line by line.
A key that is not written on a line of its own (in an inline table) is
placed at its table's key, a table that is not written at its header's
line, and a path that is not found at all at the deepest part that is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["key_line"]

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"|' + r"'[^']*'"
_PART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(rf"^\s*({_DOTTED})\s*=")
_SPLIT = re.compile(rf"\s*({_PART})\s*(?:\.|$)")


def _parts(dotted: str) -> tuple[str, ...]:
    out = []
    for m in _SPLIT.finditer(dotted):
        part = m.group(1)
        if part[:1] in "\"'":
            part = part[1:-1]
        out.append(part)
    return tuple(out)


def _lines(text: str):
    """(line number, the key path written there) of every table header and
    key of ``text``; arrays of tables carry their index."""
    counts: dict[tuple, int] = {}
    table: tuple = ()
    quote = None  # inside a multi-line string
    for number, line in enumerate(text.splitlines(), start=1):
        if quote is not None:
            if line.count(quote) % 2 == 1:
                quote = None
            continue
        header = _HEADER.match(line)
        if header is not None:
            path = _parts(header.group(2))
            if header.group(1) == "[[":
                counts[path] = counts.get(path, -1) + 1
                table = path + (counts[path],)
            else:
                table = _indexed(path, counts)
            yield number, table
            continue
        key = _KEY.match(line)
        if key is None:
            continue
        yield number, table + _parts(key.group(1))
        rest = line[key.end() :]
        for q in ('"""', "'''"):
            if rest.count(q) % 2 == 1:
                quote = q
                break


def _indexed(path: tuple, counts: dict) -> tuple:
    """A table header under an array of tables (``[native.files.x]``) with
    the index of that array's last element."""
    out: tuple = ()
    for part in path:
        out += (part,)
        if out in counts:
            out += (counts[out],)
    return out


def key_line(text: str, path: Sequence) -> int | None:
    """The line of ``text`` where the key ``path`` (parts, and the index
    of an array of tables' element) is written, or the line of the nearest
    key or table holding it; None when nothing of it is written."""
    path = tuple(path)
    best, depth = None, 0
    for number, written in _lines(text):
        n = 0
        while n < min(len(path), len(written)) and path[n] == written[n]:
            n += 1
        if n == len(written) and n > depth:  # this line holds the key (or is it)
            best, depth = number, n
            if n == len(path):
                return number
    return best
