"""Feature-vector files read under bounds that do not depend on their honesty:
a .npy or .npz header checked before any value is read (shape, type, the
inflation of a compressed member), the features then read a block of rows at
a time from the file (never memory-mapped: :mod:`.file_rows`), ids from the
.npz or a list, and the rows of an assessment's queries and items found in
them (Features, load_features).

For embeddings: rows_for (the feature rows of an assessment's queries and
items) and identity (None when rows are taken in order)."""

from __future__ import annotations

import io
import os
import struct
import zipfile
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from ...errors import FileAccessError, FormatError
from ...model.assessment import MAX_EXAMPLES, Assessment
from .file_rows import FileRows, file_stamp
from .ids import IdNormalizer
from .source import Source, open_source
from .trec import read_collection_list

T = TypeVar("T")

_NPY = b"\x93NUMPY"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_FLOATS = (np.float16, np.float32, np.float64)


def is_embeddings(head: bytes) -> bool:
    """Whether the first bytes of a file are those of a ``.npy`` or a zip
    (``.npz``) file."""
    return head.startswith(_NPY) or head.startswith(_ZIP)


@dataclass
class Features:
    """The arrays of an embeddings file: query and gallery features (the
    same array for a single-domain file) and their ids (None: rows in the
    assessment's item order)."""

    path: str
    query: np.ndarray | FileRows
    gallery: np.ndarray | FileRows
    query_ids: list[str] | None
    gallery_ids: list[str] | None
    cross: bool
    #: names of the arrays, for messages
    query_name: str = "features"
    gallery_name: str = "features"
    ids_source: str | None = None


def _array(path, load: Callable[[], T], name: str) -> T:
    try:
        return load()
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        if isinstance(exc, OSError) and not isinstance(exc, zipfile.BadZipFile):
            if exc.errno is not None:
                raise FileAccessError.wrap(path, exc) from exc
        if "Object arrays" in str(exc) or "Python objects" in str(exc):
            raise FormatError(path, _objects(name)) from None
        raise FormatError(path, f"{name} cannot be read as a numpy array: {exc}") from None


def _objects(name: str) -> str:
    """The message of an array of Python objects (dtype object)."""
    fix = (
        "save ids as strings, numpy.array(ids, dtype=str)"
        if name.endswith("ids")
        else "save the features as numbers, numpy.asarray(features, dtype=numpy.float32)"
    )
    return (
        f"{name} holds Python objects (dtype object), which only pickle reads, and pickle "
        f"is never loaded; {fix}"
    )


def _shape_text(shape, dtype: np.dtype) -> str:
    kind = dtype.newbyteorder("=").name if dtype.kind == "f" else str(dtype)
    return " x ".join(str(n) for n in shape) + f" {kind}" if shape else f"one {kind}"


def _npy_header(fh, where, name: str) -> tuple[tuple, bool, np.dtype]:
    """(shape, fortran order, dtype) of the .npy header ``fh`` is at, read
    without reading any value; FormatError naming ``where``."""
    version = np.lib.format.read_magic(fh)
    read = {
        (1, 0): np.lib.format.read_array_header_1_0,
        (2, 0): np.lib.format.read_array_header_2_0,
    }.get(version)
    if read is None:
        raise FormatError(
            where,
            f"{name} is a .npy of format version {version[0]}.{version[1]}; 1.0 or 2.0 "
            "(numpy.save's) was expected",
        )
    return read(fh)


def _declared(where, name: str, shape: tuple, dtype: np.dtype, have: int, max_rows) -> int:
    """The bytes of values a .npy header declares, checked before any is
    read: no Python objects, no more than ``have`` bytes (what the file
    holds after its header), no more rows than ``max_rows`` when given."""
    if dtype.hasobject:
        raise FormatError(where, _objects(name))
    need = int(np.prod(shape, dtype=object)) * dtype.itemsize if shape else dtype.itemsize
    if need > have:
        raise FormatError(
            where,
            f"{name} is cut short: its header declares {_shape_text(shape, dtype)} "
            f"({need:,} bytes of values) but {max(have, 0):,} bytes follow it "
            "(a file truncated, or still being written?)",
        )
    if max_rows is not None and len(shape) == 2 and shape[0] > max_rows:
        raise FormatError(
            where,
            f"{name} has {shape[0]:,} rows, more than the assessment's queries and items "
            f"together ({max_rows:,}); every row must be one of them",
        )
    return need


def _npy_array(where, data, from_file: bool, max_rows) -> np.ndarray | FileRows:
    """The array of a .npy file (read a block of rows at a time when
    ``from_file``, :func:`_file_rows`: ``data`` is its path; else ``data`` is
    a BytesIO of its bytes), its header checked first (:func:`_declared`)."""
    with open(data, "rb") if from_file else _unclosed(data) as fh:
        shape, fortran, dtype = _npy_header(fh, where, "the .npy file")
        offset = fh.tell()
        size = fh.seek(0, io.SEEK_END)
        stamp = file_stamp(os.fstat(fh.fileno())) if from_file else None
    need = _declared(where, "the .npy file", shape, dtype, size - offset, max_rows)
    if not from_file:
        data.seek(0)
        return np.load(data, allow_pickle=False)
    what = (
        f"the .npy file's header declares {_shape_text(shape, dtype)}, {need:,} bytes "
        f"of values after a header of {offset} bytes"
    )
    return _file_rows(data, shape, fortran, dtype, offset, what, stamp)


def _file_rows(path, shape, fortran, dtype, offset, what, stamp) -> np.ndarray | FileRows:
    """Features stored in a file from byte ``offset`` on, read a block of
    rows at a time (:class:`~.file_rows.FileRows`: never memory-mapped, so a
    file truncated or rewritten while it is scored is an error naming it,
    not SIGBUS); an array of another shape than two nonzero lengths as a
    stand-in of that shape and type, holding no value (refused by
    :func:`_check_features`)."""
    if len(shape) != 2 or 0 in shape:
        return np.broadcast_to(np.empty((), dtype), shape)
    return FileRows(path, shape, dtype, offset=offset, fortran=fortran, what=what, stamp=stamp)


@contextmanager
def _unclosed(fh):
    """A file object used in a with block without being closed."""
    yield fh


#: what decompressing one member of a compressed .npz may give at most: this
#: many times its compressed size (deflate gives 1 to 3 times on features of
#: floats), and never less than INFLATE_FLOOR
INFLATE_RATIO = 32
INFLATE_FLOOR = 256 << 20


def _member(where, npz, key: str, from_file: bool, max_rows) -> np.ndarray | FileRows:
    """An array of an ``.npz``: its .npy header read first from the zip,
    its shape and size checked (:func:`_declared`) and, for a compressed
    member, what it would inflate to against the budget, before any value
    is read; then read a block of rows at a time from the file where it is
    stored uncompressed (features, ``from_file``), else read whole."""
    info = npz.zip.getinfo(key + ".npy")
    with npz.zip.open(info) as fh:
        shape, _, dtype = _npy_header(fh, where, key)
        head = fh.tell()
    need = _declared(where, key, shape, dtype, info.file_size - head, max_rows)
    if info.compress_type != zipfile.ZIP_STORED:
        budget = max(INFLATE_FLOOR, INFLATE_RATIO * info.compress_size)
        if need > budget:
            raise FormatError(
                where,
                f"{key} ({_shape_text(shape, dtype)}) would inflate {info.compress_size:,} "
                f"compressed bytes into {need:,} ({need // max(info.compress_size, 1):,} times "
                f"as many); a compressed member may inflate to {INFLATE_RATIO} times its size "
                f"at most ({INFLATE_FLOOR >> 20} MiB for a small one): save features with "
                "numpy.save or numpy.savez (not compressed: read a block at a time)",
            )
    if from_file and key.endswith("features"):
        return _stored_member(where, npz, key)
    return npz[key]


def _ids_of(path, arr: np.ndarray, name: str, normalize: IdNormalizer) -> list[str]:
    if arr.ndim != 1:
        raise FormatError(path, f"{name} must be a 1-D array of ids, not of shape {arr.shape}")
    if arr.dtype.kind == "U":
        raw = arr.tolist()
    elif arr.dtype.kind == "S":
        # as bytes, as the readers keep ids: not UTF-8 is kept (surrogate escapes)
        raw = [b.decode("utf-8", "surrogateescape") for b in arr.tolist()]
    elif arr.dtype.kind in "iu":
        raw = [str(int(v)) for v in arr.tolist()]
    else:
        raise FormatError(
            path, f"{name} must hold strings or whole numbers, not {arr.dtype} values"
        )
    # an id changes only if it starts with a zero or an m / model_ prefix
    # (formats.ids): the others skip the normaliser (100,000 ids: 3x faster)
    return [normalize(t) if t[:1] in "0mM" else t for t in map(str.strip, raw)]


def _check_features(path, arr: np.ndarray | FileRows, name: str) -> None:
    if arr.ndim != 2:
        raise FormatError(
            path, f"{name} must be a 2-D array (one row per shape), not of shape {arr.shape}"
        )
    if arr.dtype.newbyteorder("=") not in _FLOATS:  # either byte order
        raise FormatError(
            path, f"{name} holds {arr.dtype} values; float16, float32 or float64 was expected"
        )
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise FormatError(path, f"{name} is empty (shape {arr.shape})")


def _stored_member(path, npz, key: str) -> np.ndarray | FileRows:
    """An array of an ``.npz``, read a block of rows at a time from the
    file where it is stored uncompressed (``numpy.savez``: a ``.npy`` inside
    the zip, at an offset its local header gives; :func:`_file_rows`), else
    read whole (``savez_compressed``)."""
    info = npz.zip.getinfo(key + ".npy")
    if info.compress_type == zipfile.ZIP_STORED:
        with open(path, "rb") as fh:
            stamp = file_stamp(os.fstat(fh.fileno()))
            fh.seek(info.header_offset)
            local = fh.read(30)
            if len(local) == 30 and local[:4] == b"PK\x03\x04":
                name_len, extra_len = struct.unpack("<HH", local[26:30])
                fh.seek(info.header_offset + 30 + name_len + extra_len)
                version = np.lib.format.read_magic(fh)
                read_header = {
                    (1, 0): np.lib.format.read_array_header_1_0,
                    (2, 0): np.lib.format.read_array_header_2_0,
                }.get(version)
                if read_header is not None:
                    shape, fortran, dtype = read_header(fh)
                    if not dtype.hasobject:
                        at = fh.tell()
                        what = (
                            f"its member {key} is {_shape_text(shape, dtype)}, bytes {at:,} "
                            f"to {at + int(np.prod(shape)) * dtype.itemsize:,}"
                        )
                        return _file_rows(path, shape, fortran, dtype, at, what, stamp)
    return npz[key]


def load_features(path, *, ids=None, normalize_ids: bool = True, max_rows=None) -> Features:
    """The arrays of a ``.npy`` or ``.npz`` file, checked for shape, type
    and ids (not yet against an assessment); ``ids``: a file of one id per
    line naming the rows of a ``.npy``; ``max_rows``: at most this many rows
    in an array (an assessment's queries and items), checked from the
    headers before any value is read or inflated."""
    src = path if isinstance(path, Source) else open_source(path, "embeddings file")
    where = src.path
    if src.kind == "folder":
        raise FileAccessError(where, "this is a folder; an embeddings file was expected")
    head = src.head(8)
    if not is_embeddings(head):
        raise FormatError(
            where, "this is not a .npy or .npz file (numpy's formats of feature vectors)"
        )
    data = io.BytesIO(src.read()) if src.in_memory else str(where)
    norm = IdNormalizer(normalize_ids)
    if head.startswith(_NPY):
        arr = _array(
            where, lambda: _npy_array(where, data, not src.in_memory, max_rows), "the .npy file"
        )
        _check_features(where, arr, "the array")
        row_ids = None
        if ids is not None:
            row_ids = read_collection_list(ids, normalize_ids=normalize_ids)
            if len(row_ids) != arr.shape[0]:
                raise FormatError(
                    ids,
                    f"{len(row_ids)} ids for the {arr.shape[0]} rows of {Path(where).name}; "
                    "one id per row was expected",
                )
        return Features(
            str(where),
            arr,
            arr,
            row_ids,
            row_ids,
            False,
            "the array",
            "the array",
            str(ids) if ids is not None else None,
        )
    npz = _array(where, lambda: np.load(data, allow_pickle=False), "the .npz file")
    keys = set(npz.files)
    if ids is not None:
        raise FormatError(where, "an .npz file names its rows itself; --ids is for a .npy file")

    def get(key):
        return _array(where, lambda: _member(where, npz, key, not src.in_memory, max_rows), key)

    if {"query_features", "gallery_features"} <= keys:
        missing = {"query_ids", "gallery_ids"} - keys
        if missing:
            raise FormatError(
                where, f"cross-domain features need {' and '.join(sorted(missing))} too"
            )
        q, g = get("query_features"), get("gallery_features")
        _check_features(where, q, "query_features")
        _check_features(where, g, "gallery_features")
        if q.shape[1] != g.shape[1]:
            raise FormatError(
                where,
                f"query_features have {q.shape[1]} dimensions and gallery_features "
                f"{g.shape[1]}; they must be the same",
            )
        qi = _ids_of(where, get("query_ids"), "query_ids", norm)
        gi = _ids_of(where, get("gallery_ids"), "gallery_ids", norm)
        for arr, lst, name in ((q, qi, "query"), (g, gi, "gallery")):
            if len(lst) != arr.shape[0]:
                raise FormatError(
                    where,
                    f"{len(lst)} {name}_ids for the {arr.shape[0]} rows of {name}_features",
                )
        return Features(str(where), q, g, qi, gi, True, "query_features", "gallery_features")
    if "features" not in keys:
        raise FormatError(
            where,
            "an .npz of embeddings holds 'features' (and 'ids'), or 'query_features', "
            "'query_ids', 'gallery_features' and 'gallery_ids'; this one holds "
            + (", ".join(repr(k) for k in sorted(keys)) or "nothing"),
        )
    f = get("features")
    _check_features(where, f, "features")
    fi = _ids_of(where, get("ids"), "ids", norm) if "ids" in keys else None
    if fi is not None and len(fi) != f.shape[0]:
        raise FormatError(where, f"{len(fi)} ids for the {f.shape[0]} rows of features")
    return Features(str(where), f, f, fi, fi, False)


def _index(ids: list[str], where, what: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, s in enumerate(ids):
        if s in out:
            raise FormatError(where, f"id {s} names rows {out[s] + 1} and {i + 1} of {what}")
        out[s] = i
    return out


def _examples(items) -> str:
    items = list(items)
    more = f" and {len(items) - MAX_EXAMPLES} more" if len(items) > MAX_EXAMPLES else ""
    return ", ".join(items[:MAX_EXAMPLES]) + more


def rows_for(f: Features, a: Assessment) -> tuple[np.ndarray, np.ndarray]:
    """Which feature row is each assessment query and each collection item."""
    where = f.ids_source or f.path
    if f.gallery_ids is None:  # rows in the assessment's item order
        return _rows_in_item_order(f, a)
    if f.cross and f.gallery_ids == list(a.item_ids) and f.query_ids == list(a.query_ids):
        # rows named in the assessment's own orders (as files made together
        # are): the checks below would all pass; ids are unique there
        return np.arange(a.n_queries, dtype=np.int64), np.arange(a.n_items, dtype=np.int64)
    g_index = _index(f.gallery_ids, where, f.gallery_name)
    missing = [s for s in a.item_ids if s not in g_index]
    if missing:
        raise FormatError(
            where,
            f"{len(missing)} collection items of the assessment have no feature row "
            f"({_examples(missing)})",
        )
    gidx = np.fromiter((g_index[s] for s in a.item_ids), np.int64, a.n_items)
    if f.cross:
        return _query_rows_of_their_own(f, a, where), gidx
    return _query_rows_among_items(f, a, where, g_index), gidx


def _rows_in_item_order(f: Features, a: Assessment) -> tuple[np.ndarray, np.ndarray]:
    """Rows without ids: the assessment's items in its order, each query its
    collection item's row."""
    n = f.gallery.shape[0]
    if n != a.n_items:
        raise FormatError(
            f.path,
            f"{n} feature rows, but the assessment's collection has {a.n_items} items; "
            "the rows must be the items in the assessment's order "
            "(or name them: --ids FILE, or an .npz with 'ids')",
        )
    if (a.query_items < 0).any():
        ext = [q for q, i in zip(a.query_ids, a.query_items) if i < 0]
        raise FormatError(
            f.path,
            f"the assessment has queries that are not collection items ({_examples(ext)}); "
            "their features need ids (an .npz with 'ids', or with 'query_features' "
            "and 'query_ids')",
        )
    return a.query_items.astype(np.int64), np.arange(n, dtype=np.int64)


def _query_rows_of_their_own(f: Features, a: Assessment, where) -> np.ndarray:
    """Queries in an array of their own (``query_features``, ``query_ids``):
    each query's row there, every id of both arrays the assessment's."""
    assert f.query_ids is not None and f.gallery_ids is not None  # both arrays named
    q_index = _index(f.query_ids, where, f.query_name)
    known = set(a.query_ids)
    unknown = [s for s in f.query_ids if s not in known]
    if unknown:
        raise FormatError(
            where,
            f"{len(unknown)} query ids the assessment does not have ({_examples(unknown)})",
        )
    lost = [s for s in a.query_ids if s not in q_index]
    if lost:
        raise FormatError(
            where,
            f"{len(lost)} queries of the assessment have no feature row ({_examples(lost)})",
        )
    unknown = [s for s in f.gallery_ids if a.item_index(s) is None]
    if unknown:
        raise FormatError(
            where,
            f"{len(unknown)} gallery ids the assessment's collection does not have "
            f"({_examples(unknown)})",
        )
    return np.fromiter((q_index[s] for s in a.query_ids), np.int64, a.n_queries)


def _query_rows_among_items(f: Features, a: Assessment, where, g_index: dict) -> np.ndarray:
    """One array: a query is its collection item's row, or a row of its own id."""
    assert f.gallery_ids is not None  # its rows named
    names = [a.item_ids[i] if i >= 0 else q for q, i in zip(a.query_ids, a.query_items)]
    lost = [q for q, s in zip(a.query_ids, names) if s not in g_index]
    if lost:
        raise FormatError(
            where, f"{len(lost)} queries of the assessment have no feature row ({_examples(lost)})"
        )
    known = set(a.item_ids) | set(names)
    unknown = [s for s in f.gallery_ids if s not in known]
    if unknown:
        raise FormatError(
            where,
            f"{len(unknown)} ids the assessment does not have ({_examples(unknown)}); "
            "every row must be a query or a collection item",
        )
    return np.fromiter((g_index[s] for s in names), np.int64, len(names))


def identity(idx: np.ndarray, n: int) -> np.ndarray | None:
    """None when ``idx`` takes every row in order (a slice then, no copy)."""
    if idx.size == n and (idx.size == 0 or (idx[0] == 0 and (np.diff(idx) == 1).all())):
        return None
    return idx
