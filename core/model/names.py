"""Names and ids on their way out: participants' text (run tags, ids,
class names, file names) as the bytes it was read from, and shortened for
a figure.

Ids and names that are not UTF-8 are kept as Python reads such bytes
(surrogate escapes, :func:`shrec_eval.errors.shown` writes them as U+FFFD);
:func:`name_bytes` gives the bytes back, for what must be exact (trec_eval's
byte order of query ids and its output, file names made from ids).
"""

from __future__ import annotations

import hashlib

__all__ = ["ELLIPSIS", "name_bytes", "shortened"]

ELLIPSIS = "\u2026"


def name_bytes(text: str) -> bytes:
    """The bytes ``text`` was read from: UTF-8, with the bytes that were not
    UTF-8 given back as they were (surrogate escapes); a lone surrogate that
    never was a byte (a library caller's string) as its UTF-8 form."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def shortened(names: list[str], limit: int) -> list[str]:
    """Each name of at most ``limit`` characters as it is; a longer one cut
    in the middle with an ellipsis (its start and its end kept: versions and
    variants differ at the end), ``limit`` characters in all.  Names that
    differ stay different: where two cuts meet, the start is taken one
    character shorter and the end one longer until they part (or the name
    is kept whole)."""
    limit = max(int(limit), 5)
    out = []
    for name in names:
        out.append(name if len(name) <= limit else _cut(name, limit, 0))
    seen: dict[str, int] = {}
    for i, s in enumerate(out):
        seen.setdefault(s, i)
    for i, name in enumerate(names):
        shift = 0
        while out[i] != name and seen.get(out[i]) not in (None, i):
            shift += 1
            if shift >= limit - 2:
                out[i] = name  # no cut of this length tells it apart
                break
            out[i] = _cut(name, limit, shift)
        seen.setdefault(out[i], i)
    return out


def _cut(name: str, limit: int, shift: int) -> str:
    """``name`` as start + ellipsis + end, ``limit`` characters, the end
    ``shift`` characters longer than half."""
    keep = limit - 1
    head = max(1, keep - keep // 2 - shift)
    tail = keep - head
    return name[:head].rstrip() + ELLIPSIS + name[len(name) - tail :].lstrip()


#: bytes of a run or method name kept in a file name before the hash suffix
#: (room left for the suffix and an extension such as ``.summary.csv``)
NAME_KEPT = 120


def safe_name(name: str, fallback: str = "run", *, hashed: bool = False) -> str:
    """A run or method name as one file name: letters, digits and
    ``-_.+ ()#`` kept, anything else (``/``, ``\\``, ``:``, control characters,
    bytes that are not UTF-8) ``_``, no leading or trailing dot or space (so
    never ``.`` or ``..``).  A name that had to change, or is longer than
    :data:`NAME_KEPT` bytes, gets ``~`` and 8 hex digits of a hash of the
    name as given: stable from run to run, and two names that differ stay
    distinct (``a/b`` -> ``a_b~…``, ``a:b`` -> ``a_b~…``, ``a_b`` unchanged).
    ``hashed``: the suffix whatever the name (two names one file on a system
    that does not tell their case apart, a name Windows reserves)."""
    safe = "".join(
        c if (c.isalnum() and c.isprintable()) or c in "-_.+ ()#" else "_" for c in name
    ).strip(" .")
    if not hashed and safe == name and 0 < len(safe.encode("utf-8")) <= NAME_KEPT:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    while len(safe.encode("utf-8")) > NAME_KEPT:
        safe = safe[:-1]
    return f"{safe.rstrip(' .') or fallback}~{digest}"
