"""A toy run format, as a newcomer would add one (docs/development.md):
this module plus one row (``register_run_format``).  A file starts with the
line ``#toy-lists`` and then holds one line per query, ``query: item item
...`` in rank order."""

from __future__ import annotations

from shrec_eval.errors import FormatError
from shrec_eval.model.runs import RankedRun

MAGIC = b"#toy-lists"


def sniff(source) -> bool:
    return source.head(len(MAGIC)) == MAGIC


def read(source, assessment, *, name=None, normalize_ids=True):
    lists = {}
    text = source.head(1 << 20).decode("utf-8").splitlines()
    for number, line in enumerate(text[1:], start=2):
        if not line.strip():
            continue
        query, sep, items = line.partition(":")
        if not sep:
            raise FormatError(
                source.path, "a line 'query: item item ...' was expected", line=number
            )
        lists[query.strip()] = items.split()
    return RankedRun.from_lists(
        name or "toy", lists, assessment, source=str(source.path), format="toy-lists"
    )
