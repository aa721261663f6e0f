"""Embedding runs: one feature vector per shape, ranked by distance.

A run may be the features a network gives: a ``.npy`` array (N x D,
float16/32/64, rows in the assessment's item order or named by an ids file),
an ``.npz`` with ``features`` and ``ids``, or for cross-domain contests
(sketch or image queries against 3D models) ``query_features`` /
``query_ids`` and ``gallery_features`` / ``gallery_ids``.

The distances are a dissimilarity matrix (queries x collection items, in the
assessment's order) that is never held whole: :class:`Distances` computes it
a tile of rows at a time and the matrix runs' ranking (:mod:`.rowsort`)
ranks it, so an embedding run scores exactly as the same distances written
as a PSB binary matrix (``shrec-eval distances``).

Why tiles of a fixed shape: a BLAS matrix product's last bit depends on the
shape of the call and on the number of BLAS threads (OpenBLAS sums in a
different order for another number of rows, columns or threads).  Every
value here comes from the same call, tile ``(t, c)`` = query rows
``[512 t, 512 t + 512)`` x item columns ``[1024 c, 1024 c + 1024)``, made on
one BLAS thread (two tiles at a time, one per core), whoever asks for it: the
scorer's blocks of queries, the top-K selection and ``shrec-eval distances``
alike.  The values are float32 (the PSB matrix's type), computed in float32
(float64 for float64 features) and rounded once.
"""

from __future__ import annotations

import io
import mmap
import struct
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import numpy as np

from ...choices import METRICS
from ...errors import FileAccessError, FormatError
from ...model.assessment import MAX_EXAMPLES, Assessment, DataWarning
from ...model.parallel import WORKERS
from ...model.runs import Run
from .ids import IdNormalizer
from .matrix import MatrixRun, ties_warning
from .rowsort import tied_pairs
from .source import Source, open_source
from .topk import select_tiles

__all__ = [
    "METRICS",
    "Distances",
    "EmbeddingRun",
    "Features",
    "MatrixPieces",
    "TopKRun",
    "distances_matrix",
    "is_embeddings",
    "load_features",
    "read_embeddings",
    "top_k_of_matrix",
]

#: a tile's query rows and item columns (fixed: see the module's text);
#: BLAS multiplies 512 x 1024 blocks at its full speed (64-row tiles ran at
#: 40% of it: the gallery was packed again for every 64 queries)
TILE_ROWS = 512
TILE_COLS = 1024
#: query tiles whose top-K lists are selected in one pass over the gallery
TOPK_TILES = 16
#: rows checked for NaN and infinity at a time
_SCAN = 1 << 14
#: rows whose largest magnitude lies in [2**-SAFE, 2**SAFE) are multiplied as
#: they are; others are scaled by a power of two first (:meth:`Distances._norms`)
_SAFE_EXP = 20
_NPY = b"\x93NUMPY"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_FLOATS = (np.float16, np.float32, np.float64)


def is_embeddings(head: bytes) -> bool:
    """Whether the first bytes of a file are those of a ``.npy`` or a zip
    (``.npz``) file."""
    return head.startswith(_NPY) or head.startswith(_ZIP)


# -- one BLAS thread while tiles are computed --------------------------------------


@cache
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


_blas_lock = threading.Lock()
_blas_users = 0
_blas_saved: list = []


def _blas_libs() -> tuple[list, list]:
    """The BLAS libraries threadpoolctl finds: those whose threads are set
    per calling thread (OpenMP) and those with one process-wide pool."""
    libs = [lib for lib in _controller().lib_controllers if lib.user_api == "blas"]
    per_thread = [lib for lib in libs if getattr(lib, "threading_layer", None) == "openmp"]
    return per_thread, [lib for lib in libs if lib not in per_thread]


def _set_threads(lib, n: int) -> None:
    # threadpoolctl >= 3.6 lets only its first "controlling" thread set a
    # process-wide OpenBLAS pool and silently ignores the others; the count
    # here is kept by us (below), so the setting is made directly
    getattr(lib, "_real_set_num_threads", lib.set_num_threads)(n)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on one thread while any tile is being computed (the values of a
    product depend on the number of BLAS threads; our own threads use the
    cores).  A per-thread setting (OpenMP) is made and restored in the
    calling thread; a process-wide one is counted: set by the first tile in
    progress, restored when the last is done."""
    global _blas_users, _blas_saved
    per_thread, shared = _blas_libs()
    mine = [(lib, lib.get_num_threads()) for lib in per_thread]
    for lib, _ in mine:
        _set_threads(lib, 1)
    with _blas_lock:
        if _blas_users == 0:
            _blas_saved = [(lib, lib.get_num_threads()) for lib in shared]
            for lib, _ in _blas_saved:
                _set_threads(lib, 1)
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0:
                for lib, n in _blas_saved:
                    if n is not None:
                        _set_threads(lib, n)
                _blas_saved = []
        for lib, n in mine:
            if n is not None:
                _set_threads(lib, n)


class _Cache:
    """Values computed once by whichever thread asks first (the others
    wait for it), the last ``keep`` of them kept."""

    def __init__(self, compute: Callable, keep: int) -> None:
        self._compute = compute
        self._keep = max(1, keep)
        self._lock = threading.Lock()
        self._done: OrderedDict = OrderedDict()
        self._busy: dict = {}

    def get_many(self, keys) -> dict:
        """The values of ``keys``: first those nobody is computing (made
        here), then those another thread is making (awaited), so that two
        threads asking for overlapping keys share the work."""
        out = {}
        for key in keys:
            with self._lock:
                busy = key in self._busy and key not in self._done
            if not busy:
                out[key] = self.get(key)
        for key in keys:
            if key not in out:
                out[key] = self.get(key)
        return out

    def get(self, key):
        while True:
            with self._lock:
                if key in self._done:
                    self._done.move_to_end(key)
                    value = self._done[key]
                    break
                event = self._busy.get(key)
                mine = event is None
                if mine:
                    event = self._busy[key] = threading.Event()
            if not mine:
                event.wait()
                continue
            try:
                value = self._compute(key)
            except BaseException as exc:
                value = exc
            with self._lock:
                self._done[key] = value
                while len(self._done) > self._keep:
                    self._done.popitem(last=False)
                del self._busy[key]
            event.set()
            break
        if isinstance(value, BaseException):
            raise value
        return value

    def put(self, key, value) -> None:
        """A value made elsewhere, kept as if computed here."""
        with self._lock:
            self._done[key] = value
            while len(self._done) > self._keep:
                self._done.popitem(last=False)


# -- reading -----------------------------------------------------------------------


@dataclass
class Features:
    """The arrays of an embeddings file: query and gallery features (the
    same array for a single-domain file) and their ids (None: rows in the
    assessment's item order)."""

    path: str
    query: np.ndarray
    gallery: np.ndarray
    query_ids: list[str] | None
    gallery_ids: list[str] | None
    cross: bool
    #: names of the arrays, for messages
    query_name: str = "features"
    gallery_name: str = "features"
    ids_source: str | None = None


def _array(path, load, name: str) -> np.ndarray:
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


def _npy_array(where, data, mapped: bool, max_rows) -> np.ndarray:
    """The array of a .npy file (memory-mapped when ``mapped``: ``data`` is
    its path; else ``data`` is a BytesIO of its bytes), its header checked
    first (:func:`_declared`)."""
    with open(data, "rb") if mapped else _unclosed(data) as fh:
        shape, fortran, dtype = _npy_header(fh, where, "the .npy file")
        offset = fh.tell()
        size = fh.seek(0, io.SEEK_END)
    _declared(where, "the .npy file", shape, dtype, size - offset, max_rows)
    if not mapped:
        data.seek(0)
        return np.load(data, allow_pickle=False)
    if 0 in shape:
        return np.empty(shape, dtype)
    order = "F" if fortran else "C"
    return np.memmap(data, dtype=dtype, mode="r", offset=offset, shape=shape, order=order)


@contextmanager
def _unclosed(fh):
    """A file object used in a with block without being closed."""
    yield fh


#: what decompressing one member of a compressed .npz may give at most: this
#: many times its compressed size (deflate gives 1 to 3 times on features of
#: floats), and never less than INFLATE_FLOOR
INFLATE_RATIO = 32
INFLATE_FLOOR = 256 << 20


def _member(where, npz, key: str, mapped: bool, max_rows) -> np.ndarray:
    """An array of an ``.npz``: its .npy header read first from the zip,
    its shape and size checked (:func:`_declared`) and, for a compressed
    member, what it would inflate to against the budget, before any value
    is read; then memory-mapped where it is stored uncompressed (features,
    ``mapped``), else read."""
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
    if mapped and key.endswith("features"):
        return _mapped_member(where, npz, key)
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


def _check_features(path, arr: np.ndarray, name: str) -> None:
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


def _mapped_member(path, npz, key: str) -> np.ndarray:
    """An array of an ``.npz``, memory-mapped where it is stored
    uncompressed (``numpy.savez``: a ``.npy`` inside the zip, at an offset
    its local header gives), else read (``savez_compressed``)."""
    info = npz.zip.getinfo(key + ".npy")
    if info.compress_type == zipfile.ZIP_STORED:
        with open(path, "rb") as fh:
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
                        return np.memmap(
                            path,
                            dtype=dtype,
                            mode="r",
                            offset=fh.tell(),
                            shape=shape,
                            order="F" if fortran else "C",
                        )
    return npz[key]


def load_features(path, *, ids=None, normalize_ids: bool = True, max_rows=None) -> Features:
    """The arrays of a ``.npy`` or ``.npz`` file, checked for shape, type
    and ids (not yet against an assessment); ``ids``: a file of one id per
    line naming the rows of a ``.npy``; ``max_rows``: at most this many rows
    in an array (an assessment's queries and items), checked from the
    headers before any value is read or inflated."""
    from .trec import read_collection_list

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


def _rows_for(f: Features, a: Assessment) -> tuple[np.ndarray, np.ndarray]:
    """Which feature row is each assessment query and each collection item."""
    where = f.ids_source or f.path
    if f.gallery_ids is None:  # rows in the assessment's item order
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
        return np.fromiter((q_index[s] for s in a.query_ids), np.int64, a.n_queries), gidx
    # one array: a query is its collection item's row, or a row of its own id
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
    return np.fromiter((g_index[s] for s in names), np.int64, len(names)), gidx


def _identity(idx: np.ndarray, n: int) -> np.ndarray | None:
    """None when ``idx`` takes every row in order (a slice then, no copy)."""
    if idx.size == n and (idx.size == 0 or (idx[0] == 0 and (np.diff(idx) == 1).all())):
        return None
    return idx


# -- distances ---------------------------------------------------------------------


def _id_text(ids, row: int) -> str:
    return f" (id {ids[row]})" if ids is not None and row < len(ids) else ""


class Distances:
    """The distance matrix of query features x gallery features, a tile of
    rows at a time (float32; see the module's text for why tiles are fixed).
    Indexing (a slice of rows, or an array of rows) gives those rows whole,
    as a matrix run reads them; ``tile(t)`` and ``piece(t, c)`` the tiles."""

    #: the rows are a file's, named by ids, in its order (not an assessment's)
    file_order = False

    def __init__(
        self,
        query: np.ndarray,
        qidx: np.ndarray | None,
        gallery: np.ndarray,
        gidx: np.ndarray | None,
        metric: str,
        *,
        path: str = "",
        query_name: str = "features",
        gallery_name: str = "features",
        query_ids=None,
        gallery_ids=None,
    ) -> None:
        if metric not in METRICS:
            raise FormatError(
                path, f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}"
            )
        self.metric = metric
        self.path = path
        self.query, self.gallery = query, gallery
        self.qidx, self.gidx = qidx, gidx
        nq = query.shape[0] if qidx is None else qidx.size
        n = gallery.shape[0] if gidx is None else gidx.size
        self.shape = (nq, n)
        self.dtype = np.dtype(np.float32)
        self.ndim = 2
        # (float64 features of either byte order: itemsize, not dtype equality)
        self.ct = np.float64 if 8 in (query.dtype.itemsize, gallery.dtype.itemsize) else np.float32
        same = query is gallery and qidx is None and gidx is None
        qrows = self._scan(query, qidx, query_name, query_ids)
        grows = qrows if same else self._scan(gallery, gidx, gallery_name, gallery_ids)
        self.qnorm, self.gnorm, self.qshift, self.gshift, self.out_shift = self._norms(qrows, grows)
        self.n_tiles = -(-nq // TILE_ROWS)
        self.n_pieces = -(-n // TILE_COLS)
        tile_bytes = 4 * TILE_ROWS * max(n, 1)
        self._tiles = _Cache(self._tile, keep=max(2, min(8, (64 << 20) // tile_bytes)))

    # -- per-row checks and norms
    def _scan(self, f: np.ndarray, idx, name: str, ids) -> tuple[np.ndarray, np.ndarray]:
        """Every used row checked (finite; nonzero for the cosine) by its
        real values, and measured without under- or overflow: (e, s), in
        the run's row order, with e the binary exponent of the row's
        largest magnitude (|x| < 2**e) and s the squared norm of the row,
        in float64, scaled by 2**-e when e is out of the safe range (exact:
        a power of two), else as it is."""
        rows = np.arange(f.shape[0]) if idx is None else np.unique(idx)
        exps = np.zeros(f.shape[0], dtype=np.int64)
        sums = np.zeros(f.shape[0], dtype=np.float64)
        for at in range(0, rows.size, _SCAN):
            r = rows[at : at + _SCAN]
            # checked in the features' own type (3x faster than widened first)
            block = np.asarray(f[r[0] : r[-1] + 1] if idx is None else f[r])
            top = np.abs(block).max(axis=1)  # NaN and infinity carry through
            bad = ~np.isfinite(top)
            if bad.any():
                row = int(r[np.argmax(bad)])
                raise FormatError(
                    self.path,
                    f"row {row + 1}{_id_text(ids, row)} of {name} holds NaN or infinite "
                    "values; every feature must be a finite number",
                )
            exps[r] = np.frexp(top)[1]
            if self.metric != "dot":  # (the dot product needs no norm)
                block = block.astype(np.float64)
                sq = np.einsum("ij,ij->i", block, block)
                e = exps[r]
                out = np.abs(e) > _SAFE_EXP
                if out.any():  # squares that would under- or overflow: scaled first
                    scaled = np.ldexp(block[out], -e[out][:, None])
                    sq[out] = np.einsum("ij,ij->i", scaled, scaled)
                sums[r] = sq
        if self.metric == "cosine":
            zero = sums[rows] == 0
            if zero.any():
                row = int(rows[np.argmax(zero)])
                raise FormatError(
                    self.path,
                    f"row {row + 1}{_id_text(ids, row)} of {name} is all zeros: its cosine "
                    "distance is undefined (choose --metric euclidean or dot)",
                )
        return (exps, sums) if idx is None else (exps[idx], sums[idx])

    def _norms(self, qrows, grows) -> tuple:
        """What the metric needs of each row, in the computing type, and the
        powers of two the rows are scaled by before their products (None:
        none; the rows whose largest magnitude lies in [2**-SAFE, 2**SAFE)
        are used as they are, so their values keep their bits).

        * cosine: 1/|x|, each row out of that range scaled to a largest
          magnitude in [1/2, 1) first (the cosine does not change);
        * euclidean, sqeuclidean: |x|^2, and dot: nothing, with every row
          scaled by one power of two when a row is out of that range, the
          distances scaled back (``out_shift``) as they are rounded to
          float32 (an error when they do not fit)."""
        (qe, qs), (ge, gs) = qrows, grows
        safe = _SAFE_EXP

        def out_of_range(e):
            return e.size > 0 and (e.min() < -safe or e.max() > safe)

        # the scale of each row's s (:meth:`_scan`): 2**-e out of the safe range
        qshift = np.where(np.abs(qe) > safe, qe, 0)
        gshift = qshift if grows is qrows else np.where(np.abs(ge) > safe, ge, 0)
        if self.metric == "cosine":
            # 1/|x| of the row as it is used: scaled by 2**-shift
            qn = 1.0 / np.sqrt(qs)
            gn = qn if grows is qrows else 1.0 / np.sqrt(gs)
            return (
                qn.astype(self.ct),
                gn.astype(self.ct),
                qshift if qshift.any() else None,
                gshift if gshift.any() else None,
                0,
            )
        top = 0
        if out_of_range(qe) or out_of_range(ge):
            top = int(max(qe.max(), ge.max()))
        shift = np.full(1, top) if top else None
        out_shift = {"euclidean": top, "sqeuclidean": 2 * top, "dot": 2 * top}[self.metric]
        if self.metric == "dot":  # (the dot product needs no norm)
            empty = np.zeros(0, dtype=self.ct)
            return empty, empty, shift, shift, out_shift
        qn = np.ldexp(qs, 2 * (qshift - top)).astype(self.ct)
        gn = qn if grows is qrows else np.ldexp(gs, 2 * (gshift - top)).astype(self.ct)
        return qn, gn, shift, shift, out_shift

    def _take(self, f: np.ndarray, idx, a: int, b: int, shift=None) -> np.ndarray:
        part = f[a:b] if idx is None else f[idx[a:b]]
        # aligned too: numpy multiplies misaligned arrays (an .npz member
        # starts anywhere in the zip) by its own loop, not BLAS, 3 to 4
        # times slower; a copy of the piece costs far less
        part = np.require(part, dtype=self.ct, requirements=["C_CONTIGUOUS", "ALIGNED"])
        if shift is not None:  # rows out of the safe range, scaled (exactly)
            part = np.ldexp(part, -(shift[a:b] if shift.size > 1 else shift)[:, None])
        return part

    def _kept(self, side: str, i: int, take: Callable[[], np.ndarray]) -> np.ndarray:
        """Block ``i`` of the query or gallery features as :meth:`_take`
        gives it, the calling thread's last ones kept: the top-K selection
        multiplies each gallery piece with every query tile of a group, and
        a copy (a misaligned or float16 array) is then made once."""
        mine = self.__dict__.get("_local") or self.__dict__.setdefault("_local", threading.local())
        kept = getattr(mine, side, None)
        if kept is None:
            kept = OrderedDict()
            setattr(mine, side, kept)
        block = kept.get(i)
        if block is None:
            block = kept[i] = take()
            if len(kept) > (TOPK_TILES if side == "query" else 1):
                kept.popitem(last=False)
        return block

    def piece(self, t: int, c: int) -> np.ndarray:
        """Tile ``(t, c)``: query rows [512 t, 512 t + 512) x item columns
        [1024 c, 1024 c + 1024), float32."""
        qa, qb = t * TILE_ROWS, min((t + 1) * TILE_ROWS, self.shape[0])
        ga, gb = c * TILE_COLS, min((c + 1) * TILE_COLS, self.shape[1])
        q = self._kept("query", t, lambda: self._take(self.query, self.qidx, qa, qb, self.qshift))
        g = self._kept(
            "gallery", c, lambda: self._take(self.gallery, self.gidx, ga, gb, self.gshift)
        )
        with one_blas_thread(), np.errstate(over="ignore", invalid="ignore"):
            s = np.matmul(q, g.T)
        del q, g
        with np.errstate(over="ignore", invalid="ignore"):
            return self._finish(s, qa, qb, ga, gb)

    def _finish(self, s: np.ndarray, qa: int, qb: int, ga: int, gb: int) -> np.ndarray:
        """The metric's distances from the inner products ``s`` (in place),
        rounded to float32 and checked finite."""
        m = self.metric
        if m == "dot":
            np.negative(s, out=s)
        elif m == "cosine":
            s *= self.qnorm[qa:qb, None]
            s *= self.gnorm[None, ga:gb]
            np.subtract(self.ct(1), s, out=s)
        else:
            s *= self.ct(-2)
            s += self.qnorm[qa:qb, None]
            s += self.gnorm[None, ga:gb]
            np.maximum(s, self.ct(0), out=s)
            if m == "euclidean":
                np.sqrt(s, out=s)
        if self.out_shift:
            return self._scaled_back(s, qa, ga)
        out = s.astype(np.float32, copy=False)
        if out.size and not (np.isfinite(out.min()) and np.isfinite(out.max())):
            r, col = np.argwhere(~np.isfinite(out))[0]
            raise FormatError(
                self.path,
                f"the {m} distance of query row {qa + int(r) + 1} and item {ga + int(col) + 1} "
                f"is {out[r, col]} in float32; the features are too large",
            )
        return out

    def _scaled_back(self, s: np.ndarray, qa: int, ga: int) -> np.ndarray:
        """Distances of rows scaled by 2**-top (:meth:`_norms`) in real
        units, rounded to float32: an error when they leave its range (too
        large, or so small that a row's values would round to zero)."""
        m = self.metric
        big = np.abs(s).max(axis=1, keepdims=True)
        real = np.ldexp(s, self.out_shift)
        out = real.astype(np.float32)
        if out.size and not (np.isfinite(out.min()) and np.isfinite(out.max())):
            r, col = np.argwhere(~np.isfinite(out))[0]
            raise FormatError(
                self.path,
                f"the {m} distance of query row {qa + int(r) + 1} and item {ga + int(col) + 1} "
                f"is {np.ldexp(float(s[r, col]), self.out_shift):.3g}, beyond float32's range "
                "(the type of a PSB matrix); the features are too large",
            )
        # a value the row holds significantly, lost below float32's normal numbers
        tiny = np.finfo(np.float32).tiny
        lost = (np.abs(out) < tiny) & (np.abs(s) >= np.ldexp(big, -24)) & (s != 0)
        if lost.any():
            r, col = np.argwhere(lost)[0]
            raise FormatError(
                self.path,
                f"the {m} distance of query row {qa + int(r) + 1} and item {ga + int(col) + 1} "
                f"is {np.ldexp(float(s[r, col]), self.out_shift):.3g}, below float32's "
                f"smallest normal number ({tiny:.3g}, the type of a PSB matrix): the "
                "features are too small for these distances (scale them up, or choose "
                "--metric cosine)",
            )
        return out

    def _tile(self, t: int) -> np.ndarray:
        if self.n_pieces <= 1:
            return self.piece(t, 0)
        rows = min((t + 1) * TILE_ROWS, self.shape[0]) - t * TILE_ROWS
        out = np.empty((rows, self.shape[1]), dtype=np.float32)

        def fill(c: int) -> None:
            out[:, c * TILE_COLS : (c + 1) * TILE_COLS] = self.piece(t, c)

        # the pieces on both cores (a thread that needs this tile waits for it)
        with ThreadPoolExecutor(WORKERS, thread_name_prefix="shrec-tile") as pool:
            list(pool.map(fill, range(self.n_pieces)))
        return out

    def tile(self, t: int) -> np.ndarray:
        """Query rows [512 t, 512 t + 512) against every item (kept for the
        next blocks of rows, which usually share it)."""
        return self._tiles.get(t)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key) -> np.ndarray:
        if isinstance(key, slice):
            a, b, step = key.indices(self.shape[0])
            rows = np.arange(a, b, step)
        else:
            rows = np.asarray(key, dtype=np.int64).reshape(-1)
        if rows.size and (np.diff(rows) == 1).all():
            t0, t1 = rows[0] // TILE_ROWS, rows[-1] // TILE_ROWS
            if t0 == t1:
                base = t0 * TILE_ROWS
                return self.tile(int(t0))[rows[0] - base : rows[-1] + 1 - base]
        out = np.empty((rows.size, self.shape[1]), dtype=np.float32)
        tiles = rows // TILE_ROWS
        wanted = np.unique(tiles).tolist()
        # the tiles this thread can make at once before those being made
        # by another (the engine's blocks of queries overlap tiles)
        got = self._tiles.get_many(wanted[::-1])
        for t in wanted:
            sel = np.flatnonzero(tiles == t)
            out[sel] = got[t][rows[sel] - t * TILE_ROWS]
        return out

    def __array__(self, dtype=None, copy=None):
        raise TypeError("a distance matrix is read a block of rows at a time, never whole")

    # -- sent to another process (a cluster's worker)
    def __getstate__(self) -> dict:
        """The features as where they are mapped from (never their data:
        a worker maps the same file; the cluster's machines share it),
        arrays in memory as they are; the caches left behind."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("_tiles", "_local")}
        state["query"] = _portable(self.query)
        state["gallery"] = self.query if self.gallery is self.query else _portable(self.gallery)
        state["_tiles_keep"] = self._tiles._keep
        return state

    def __setstate__(self, state: dict) -> None:
        keep = state.pop("_tiles_keep")
        same = state["gallery"] is state["query"]
        state["query"] = _mapped(state["query"])
        state["gallery"] = state["query"] if same else _mapped(state["gallery"])
        self.__dict__.update(state)
        self._tiles = _Cache(self._tile, keep=keep)

    # -- the first K of each row
    def top_keys(self, tiles: range, k: int) -> list[np.ndarray]:
        """For each query tile of ``tiles``: every row's ``k`` smallest
        (value, column) keys, sorted (the first k of the stable ascending
        order, exactly: :mod:`.topk`); one pass over the gallery for all the
        tiles, its pieces split between the two cores."""
        return select_tiles(self, tiles, min(k, self.shape[1]), TILE_COLS, threads=WORKERS)


def _portable(arr: np.ndarray):
    """A memory-mapped array as its file, offset, type and shape (mapped
    again where it is unpickled); any other array as it is."""
    if isinstance(arr, np.memmap) and isinstance(arr.base, mmap.mmap) and arr.filename:
        order = "F" if arr.flags.f_contiguous and not arr.flags.c_contiguous else "C"
        return ("memmap", arr.filename, arr.offset, arr.dtype.str, arr.shape, order)
    return arr


def _mapped(desc) -> np.ndarray:
    if isinstance(desc, tuple) and desc and desc[0] == "memmap":
        _, path, offset, dtype, shape, order = desc
        try:
            return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape, order=order)
        except OSError as exc:
            raise FileAccessError.wrap(path, exc) from exc
    return desc


class MatrixPieces:
    """A float32 dissimilarity matrix (a binary matrix run's, read a block of
    rows at a time) cut into the tiles of :class:`Distances`, for the same
    top-K selection."""

    #: a tile's rows are read once for all its pieces: the selection splits
    #: the tiles between the cores, not the columns
    rows_first = True

    def __init__(self, matrix) -> None:
        self.matrix = matrix
        self.shape = matrix.shape
        self.n_tiles = -(-self.shape[0] // TILE_ROWS)
        self.n_pieces = -(-self.shape[1] // TILE_COLS)
        self._strip = threading.local()

    def piece(self, t: int, c: int) -> np.ndarray:
        # a binary matrix is read a block of whole rows at a time (never
        # memory-mapped, so a file cut short is an error, not SIGBUS): the
        # tile's rows once (kept by the thread for the tile's next pieces),
        # then the piece's columns
        if getattr(self._strip, "t", None) != t:
            self._strip.rows = None
            self._strip.rows = self.matrix[t * TILE_ROWS : (t + 1) * TILE_ROWS]
            self._strip.t = t
        rows = self._strip.rows
        return np.ascontiguousarray(rows[:, c * TILE_COLS : (c + 1) * TILE_COLS], dtype=np.float32)

    top_keys = Distances.top_keys

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_strip"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._strip = threading.local()


def top_k_of_matrix(run: MatrixRun, assessment: Assessment, k: int) -> TopKRun:
    """The first ``k`` results of each row of a binary (float32) matrix run."""
    if run.matrix.dtype != np.float32:
        raise FormatError(
            run.source,
            "--top-k applies to embedding runs and binary float32 matrices; the ranking of "
            "this matrix's float64 values is not made from keys of 32 bits "
            "(--max-rank cuts its lists after a full ranking)",
        )
    return TopKRun(
        run.name,
        MatrixPieces(run.matrix),
        assessment,
        k,
        source=run.source,
        format=f"{run.format}, first {k}",
        warnings=[*run.warnings, _top_k_note(assessment, k)],
    )


# -- runs ------------------------------------------------------------------------


def _describe(f: Features, metric: str) -> str:
    kind = "cross-domain embeddings" if f.cross else "embeddings"
    suffix = ".npy" if f.query_name == "the array" else ".npz"
    dtype = f.gallery.dtype
    name = dtype.newbyteorder("=").name + (", big-endian" if dtype.byteorder == ">" else "")
    return f"{kind} ({suffix}, {f.gallery.shape[1]}-d {name}, {metric} distance)"


class EmbeddingRun(MatrixRun):
    """A run of feature vectors: a matrix run whose matrix is the
    :class:`Distances` of its features, ranked as any dissimilarity matrix."""

    #: the distances (``matrix``), named for what they are
    @property
    def distances(self) -> Distances:
        return self.matrix


class TopKRun(Run):
    """The first K results of each query of a distance matrix (partial
    selection of the ranking's keys, then a sort of the K: the first K of
    the same ranking); a query that is a collection item keeps K + 1 when
    its own item is among them, so that K remain once it is taken out."""

    def __init__(
        self,
        name: str,
        dist: Distances | MatrixPieces,
        assessment: Assessment,
        k: int,
        *,
        source: str = "",
        format: str = "",
        warnings=(),
    ) -> None:
        self.name = name
        self.source = source
        self.format = format
        self.k = int(k)
        self.distances = dist
        self.query_ids = assessment.query_ids
        self.item_ids = assessment.item_ids
        self.n_items = assessment.n_items
        self._selfs = assessment.query_items
        self._base = list(warnings)
        self._ties = np.zeros(len(self.query_ids), dtype=np.int64)
        self._keep = min(self.k + int((self._selfs >= 0).any()), self.n_items)
        self._groups = _Cache(self._group, keep=2)

    @property
    def max_length(self) -> int:
        return self._keep

    @property
    def warnings(self) -> list[DataWarning]:
        return list(self._base) + ties_warning(
            self.query_ids,
            self._ties,
            "tied pairs of distances among the kept results (broken by collection order)",
        )

    @warnings.setter
    def warnings(self, value) -> None:
        self._base = list(value)

    def row_state(self, rows: np.ndarray) -> np.ndarray:
        return self._ties[rows]

    def set_row_state(self, rows: np.ndarray, state) -> None:
        if state is not None:
            self._ties[rows] = state

    def group_tiles(self, g: int) -> range:
        """The query tiles of group ``g`` (their lists are selected in one
        pass over the gallery)."""
        return range(g * TOPK_TILES, min((g + 1) * TOPK_TILES, self.distances.n_tiles))

    @property
    def n_groups(self) -> int:
        return -(-self.distances.n_tiles // TOPK_TILES)

    def set_keys(self, keys_by_group: dict[int, np.ndarray]) -> None:
        """Each group's keys selected elsewhere (every row's first ``keep``
        keys, sorted: the gallery shards of a cluster's workers, merged),
        kept for the scoring, which then selects nothing."""
        self._groups = _Cache(self._group, keep=max(2, self.n_groups))
        for g, keys in keys_by_group.items():
            self._groups.put(g, self._lists(g, keys))

    @property
    def keep(self) -> int:
        """The keys kept per row: K, plus one where a query is an item."""
        return self._keep

    def _group(self, g: int) -> tuple[np.ndarray, np.ndarray]:
        """The lists of group ``g``'s query tiles: items and lengths."""
        tiles = self.group_tiles(g)
        return self._lists(g, np.concatenate(self.distances.top_keys(tiles, self._keep)))

    def _lists(self, g: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The lists of group ``g`` from its rows' keys (the tied pairs counted)."""
        q0 = self.group_tiles(g)[0] * TILE_ROWS
        rows = np.arange(q0, q0 + keys.shape[0])
        items = (keys & np.uint64(0xFFFFFFFF)).astype(np.int32)
        high = keys >> np.uint64(32)
        selfs = self._selfs[rows]
        own = ((items == selfs[:, None]) & (selfs >= 0)[:, None]).any(axis=1)
        lengths = np.where(own, self._keep, min(self.k, self.n_items)).astype(np.int64)
        eq = high[:, 1:] == high[:, :-1]
        eq &= np.arange(1, keys.shape[1]) < lengths[:, None]
        self._ties[rows] = tied_pairs(eq)
        return items, lengths

    def ranked_block(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = np.asarray(rows, dtype=np.int64)
        per = TOPK_TILES * TILE_ROWS
        out = np.full((rows.size, self._keep), -1, dtype=np.int32)
        lengths = np.zeros(rows.size, dtype=np.int64)
        groups = rows // per
        for g in np.unique(groups).tolist():
            sel = np.flatnonzero(groups == g)
            items, lens = self._groups.get(g)
            local = rows[sel] - g * per
            lengths[sel] = lens[local]
            block = items[local]
            out[sel] = np.where(np.arange(self._keep) < lens[local, None], block, -1)
        return out, lengths

    def judged_ranks(
        self, rows: np.ndarray, pair_row: np.ndarray, pair_item: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The asked items' ranks, found by a search of the lists' sorted
        (row, item) pairs: K entries a row, where the base class marks a
        table of every row x every item (2,000 queries x 100,000 items:
        200 MB to clear for 200,000 entries)."""
        idx, lengths = self.ranked_block(rows)
        ranks = np.full(pair_row.size, -1, dtype=np.int64)
        if not pair_row.size or not idx.size:
            return lengths, ranks
        width = np.int64(self.n_items + 1)
        flat = idx.reshape(-1).astype(np.int64)
        entry = np.repeat(np.arange(idx.shape[0], dtype=np.int64), idx.shape[1]) * width + flat
        entry[flat < 0] = -1  # padding matches no pair
        order = np.argsort(entry, kind="stable")
        sorted_entry = entry[order]
        want = np.asarray(pair_row, np.int64) * width + np.asarray(pair_item, np.int64)
        at = np.minimum(np.searchsorted(sorted_entry, want), sorted_entry.size - 1)
        found = sorted_entry[at] == want
        ranks[found] = order[at[found]] % idx.shape[1]
        return lengths, ranks


def _self_note(a: Assessment) -> list[DataWarning]:
    if not (a.query_items >= 0).any():
        return []
    n = int((a.query_items >= 0).sum())
    return [
        DataWarning(
            "self_match",
            "the queries are collection items, so each one's own item is in its list "
            "(at distance 0 or so); the profile's self-match rule applies: taken out by "
            "default, kept with --keep-self",
            n,
        )
    ]


def _top_k_note(a: Assessment, k: int) -> DataWarning:
    """Which measures a cut at rank K leaves exact and which become bounds;
    the count is the queries whose R (relevant items) exceeds K."""
    counts = np.diff(a.indptr)
    qidx = np.repeat(np.arange(a.n_queries), counts)
    own = a.judged_items == a.query_items[qidx]  # a query's own item is not counted in R
    n_rel = counts - np.bincount(qidx[own], minlength=a.n_queries)
    over = int((n_rel > k).sum())
    exact = f"nn, and p, r, cg, dcg, ncg, ndcg @K for K <= {k}" + (", e_measure" if k >= 32 else "")
    return DataWarning(
        "top_k",
        f"only each query's first {k} results are kept (--top-k {k}): exact are {exact}; "
        f"ft, ft_psb and map@r where R <= {k}, st and st_psb where 2R <= {k}; the others "
        "(ap, adr, dcg_psb, recall, tp/fp/fn/tn, acc, e_measure below 32, the curves past "
        f"rank {k}) see only the first {k}: items past it count as not retrieved "
        "(ap, adr, dcg_psb and recall become lower bounds); queries with R > K",
        over,
    )


def read_embeddings(
    path,
    assessment: Assessment,
    *,
    metric: str | None = None,
    ids=None,
    top_k: int | None = None,
    name: str | None = None,
    normalize_ids: bool | None = None,
) -> Run:
    """An embedding run against an assessment: its rows checked against
    the assessment's queries and items (missing or unknown ids are errors),
    every used row finite, the distances ranked as a matrix run ranks its
    rows (``top_k``: only the first K of each query, :class:`TopKRun`)."""
    metric = metric or "cosine"
    if metric not in METRICS:
        raise FormatError(path, f"unknown metric {metric!r}; expected one of {', '.join(METRICS)}")
    norm = assessment.normalize_ids if normalize_ids is None else normalize_ids
    f = load_features(
        path, ids=ids, normalize_ids=norm, max_rows=assessment.n_items + assessment.n_queries
    )
    qidx, gidx = _rows_for(f, assessment)
    dist = Distances(
        f.query,
        _identity(qidx, f.query.shape[0]),
        f.gallery,
        _identity(gidx, f.gallery.shape[0]),
        metric,
        path=f.path,
        query_name=f.query_name,
        gallery_name=f.gallery_name,
        query_ids=f.query_ids,
        gallery_ids=f.gallery_ids,
    )
    run_name = name or Path(f.path).stem
    own = _own_items(f, assessment)
    if own is not None:  # the queries' own items, as for leave-one-out queries
        assessment = replace(
            assessment, query_items=np.where(own >= 0, own, assessment.query_items)
        )
    notes = _self_note(assessment)
    if top_k is not None:
        if top_k < 1:
            raise FormatError(f.path, f"--top-k must be at least 1, not {top_k}")
        run = TopKRun(
            run_name,
            dist,
            assessment,
            top_k,
            source=f.path,
            format=_describe(f, metric) + f", first {top_k}",
            warnings=notes + [_top_k_note(assessment, top_k)],
        )
    else:
        run = EmbeddingRun(
            run_name,
            dist,
            assessment,
            source=f.path,
            format=_describe(f, metric),
            warnings=notes,
            finite=True,
        )
    run.own_items = own
    return run


def _own_items(f: Features, a: Assessment) -> np.ndarray | None:
    """Per query, the collection item that is the query itself: a query of
    the assessment that is not a collection item (TREC qrels' queries) but
    whose feature row is that of the collection item of its id (one array
    of features named by ids): -1 for the others; None when there is none."""
    if f.cross or f.gallery_ids is None or (a.query_items >= 0).all():
        return None
    own = np.full(a.n_queries, -1, dtype=np.int64)
    for q, (qid, item) in enumerate(zip(a.query_ids, a.query_items)):
        if item < 0:
            i = a.item_index(qid)
            if i is not None:
                own[q] = i
    return own if (own >= 0).any() else None


def distances_matrix(
    path, *, metric: str = "cosine", ids=None, assessment=None, normalize_ids: bool = True
) -> Distances:
    """The distances ``shrec-eval distances`` writes: against an
    assessment, its queries x its items (what scoring the embeddings
    ranks); without one, the file's rows (or query rows) x its rows (or
    gallery rows) in file order."""
    if assessment is not None:
        run = read_embeddings(path, assessment, metric=metric, ids=ids)
        return run.matrix
    f = load_features(path, ids=ids, normalize_ids=normalize_ids)
    dist = Distances(
        f.query,
        None,
        f.gallery,
        None,
        metric,
        path=f.path,
        query_name=f.query_name,
        gallery_name=f.gallery_name,
        query_ids=f.query_ids,
        gallery_ids=f.gallery_ids,
    )
    # rows named by ids, written in the file's order: not an assessment's
    dist.file_order = f.query_ids is not None or f.gallery_ids is not None
    return dist


def matrix_pieces(dist: Distances) -> Iterator[bytes]:
    """The PSB binary matrix (little-endian float32, row after row) of the
    distances, a tile of rows at a time, two tiles computed at once."""
    from ...model.parallel import in_order

    for block in in_order(dist._tile, range(dist.n_tiles), ahead=WORKERS):
        yield np.ascontiguousarray(block, dtype="<f4").tobytes()
