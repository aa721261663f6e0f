"""The JSON document of a contest's results (to_json), written in pieces:
orjson's document byte for byte, made a group of members at a time so that
a large result never sits whole in memory (json_pieces), and write_json
through the output gate."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from itertools import islice

import numpy as np
import orjson

from .. import __version__
from ..errors import shown
from ..model.assessment import Assessment
from ..model.values import RowMap, nullable
from ..profiles import DEFAULT as DEFAULT_PROFILE
from ..scoring.engine import RunResult
from .atomic import write_pieces
from .tex_layout import TOOL


def to_json(
    assessment: Assessment,
    results: Sequence[RunResult],
    *,
    assessment_path=None,
    run_paths: Sequence | None = None,
    curves: bool = True,
    assessment_reader: dict | None = None,
    run_readers: Sequence[dict] | None = None,
) -> dict:
    """The documented JSON document (README: "JSON output"), to be written
    with :func:`write_json`: per-query values are floats and curves numpy
    arrays, NaN where a value is undefined (written as null); the per-query
    objects are made a group of queries at a time as they are written
    (:class:`~shrec_eval.model.values.RowMap`, read as mappings).  The reader
    settings (``AssessmentSource.to_dict`` without the path,
    ``RunSource.reader_dict``) go with the assessment and each run."""
    opts = results[0].options.to_dict() if results else {}
    runs = []
    for i, r in enumerate(results):
        per_query = RowMap(r.query_ids, partial(_value_rows, r.keys, r.values))
        runs.append(
            {
                "name": r.run_name,
                "path": str(run_paths[i]) if run_paths else r.run_source,
                "format": r.run_format,
                **({"reader": run_readers[i]} if run_readers else {}),
                "mean": {k: nullable(v) for k, v in r.means.items()},
                "averages": r.averages,
                "per_class": r.per_class,
                "undefined": {k: r.n_undefined(k) for k in r.keys if r.n_undefined(k)},
                "per_query": per_query,
                "curves": {k: c.to_dict(r.query_ids) for k, c in r.curves.items()}
                if curves
                else {},
                "warnings": [w.to_dict() for w in r.warnings],
            }
        )
    return {
        "tool": {"name": TOOL, "version": __version__},
        "profile": results[0].profile if results else opts.get("profile", DEFAULT_PROFILE),
        "assessment": {
            "path": str(assessment_path) if assessment_path is not None else assessment.source,
            "kind": assessment.kind,
            "queries": assessment.n_queries,
            "collection_size": results[0].options.collection_size or assessment.collection_size
            if results
            else assessment.collection_size,
            "top_grade": assessment.top_grade,
            **({"reader": assessment_reader} if assessment_reader is not None else {}),
        },
        "options": opts,
        "runs": runs,
    }


def _value_rows(keys: list[str], values, start: int, stop: int) -> list[dict]:
    """The per-query values of queries ``start`` to ``stop``, one dict each
    (made by C loops, no generator)."""
    return list(map(dict, map(partial(zip, keys), values[start:stop].tolist())))


def write_json(path, doc) -> None:
    """Write a JSON document atomically (orjson: numpy arrays converted
    whole, NaN and infinities written as null; compact: indentation doubled
    the size of a large contest's file and the time to write it), in pieces
    (:func:`json_pieces`) that the disk flushes while the next are made."""
    write_pieces(path, json_pieces(doc))


_JSON = orjson.OPT_SERIALIZE_NUMPY
#: entries of a large object (per-query values, per-query curves) per piece
_JSON_GROUP = 512
#: values above which a part of the document is written in pieces
_JSON_HEAVY = 1 << 16


def json_pieces(doc) -> Iterator[bytes]:
    """``orjson.dumps(doc)`` and a newline, byte for
    byte, in pieces: the objects holding more than :data:`_JSON_HEAVY`
    values (numpy arrays counted by size) are written a member, or
    :data:`_JSON_GROUP` members, at a time (a :class:`RowMap`'s members made
    only then)."""
    yield from _json_pieces(doc)
    yield b"\n"


def _plain(value):
    """What orjson writes for a value it does not know: a RowMap's object."""
    if isinstance(value, RowMap):
        return dict(value.items_between(0, len(value)))
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def _json_pieces(value) -> Iterator[bytes]:
    if isinstance(value, (dict, RowMap)) and value and _heavy(value):
        yield b"{"
        first = True
        for group in _member_groups(value):
            comma = b"" if first else b","
            first = False
            if len(group) > 1 or not _heavy(group[0][1]):  # light members, as one object
                yield comma + _dumps(dict(group))[1:-1]
                continue
            k, v = group[0]
            if not isinstance(k, str):  # as orjson refuses it in a whole document
                raise TypeError(f"Dict key must be str, not {type(k).__name__}")
            yield comma + _dumps(k) + b":"
            yield from _json_pieces(v)
        yield b"}"
    elif isinstance(value, list) and value and _heavy(value):
        yield b"["
        for i, v in enumerate(value):
            if i:
                yield b","
            yield from _json_pieces(v)
        yield b"]"
    else:
        yield _dumps(value)


def _dumps(value) -> bytes:
    """``orjson.dumps``; text holding bytes that are not UTF-8 (a run or
    file name from an old archive, kept as surrogates) written with U+FFFD
    (orjson refuses surrogates)."""
    try:
        return orjson.dumps(value, default=_plain, option=_JSON)
    except orjson.JSONEncodeError:
        return orjson.dumps(_shown_text(value), default=_plain, option=_JSON)


def _shown_text(value):
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, (dict, RowMap)):
        return {shown(k) if isinstance(k, str) else k: _shown_text(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown_text(v) for v in value]
    return value


def _member_groups(value: Mapping) -> Iterator[list]:
    """The members of a heavy object in the groups written as one piece: a
    larger object's (queries) :data:`_JSON_GROUP` or fewer at a time, as many
    as make about :data:`_JSON_HEAVY` values (weighed from a sample); a
    smaller object's (a run, the document) member by member, each heavy one
    alone (written in pieces) and the light ones between them together."""
    if len(value) > _JSON_WHOLE:
        lazy = value if isinstance(value, RowMap) else None
        items = [] if lazy is not None else list(value.items())
        sample = lazy.items_between(0, _JSON_SAMPLE) if lazy is not None else items[:_JSON_SAMPLE]
        member = _weight([v for _, v in sample]) / len(sample)
        step = max(1, min(_JSON_GROUP, int(_JSON_HEAVY // max(member, 1))))
        for at in range(0, len(value), step):
            yield lazy.items_between(at, at + step) if lazy is not None else items[at : at + step]
        return
    items = list(value.items())
    light: list = []
    for item in items:
        if _heavy(item[1]):
            if light:
                yield light
                light = []
            yield [item]
        else:
            light.append(item)
    if light:
        yield light


def _heavy(value) -> bool:
    """Whether ``value`` holds more than :data:`_JSON_HEAVY` values, as
    estimated from its members (the first :data:`_JSON_SAMPLE` of a larger
    object or list: the document's large parts, queries, are alike
    throughout; the estimate only decides where pieces end, never what they
    hold)."""
    return _weight(value) > _JSON_HEAVY


#: members of a larger object or list that its weight is estimated from;
#: smaller ones (a run, the document) are weighed member by member, so a
#: heavy member anywhere (a run's curves come after its reader settings) counts
_JSON_SAMPLE = 8
_JSON_WHOLE = 64


def _weight(value) -> float:
    if isinstance(value, np.ndarray):
        return value.size
    if isinstance(value, dict | list | tuple | RowMap):
        if not value:
            return 1
        if isinstance(value, RowMap):  # weighed as a dict of its size is
            n = _JSON_SAMPLE if len(value) > _JSON_WHOLE else len(value)
            first = [v for _, v in value.items_between(0, n)]
            return sum(_weight(v) for v in first) * len(value) / len(first)
        members = value.values() if isinstance(value, dict) else value
        if len(value) <= _JSON_WHOLE:
            return sum(_weight(v) for v in members)
        first = list(islice(members, _JSON_SAMPLE))
        return sum(_weight(v) for v in first) * len(value) / len(first)
    return 1
