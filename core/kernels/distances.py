"""The distances between feature vectors, a tile of rows at a time under a
memory budget (Distances): the same bits whatever the tiles (one BLAS thread
a tile, scale-free), and their top K per query (the PSB binary matrix they
make, and a matrix run cut into the same tiles: :mod:`.matrix_pieces`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from ..choices import METRICS
from ..errors import FormatError
from ..model.parallel import WORKERS, in_order
from ..model.runs import MatrixRows
from .blas_threads import one_blas_thread
from .stacked_calls import stacked_sums_alike
from .tile_cache import TileCache
from .topk import select_tiles

#: a tile's query rows and item columns (fixed: see the module's text);
#: BLAS multiplies 512 x 1024 blocks at its full speed (64-row tiles ran at
#: 40% of it: the gallery was packed again for every 64 queries)
TILE_ROWS = 512
TILE_COLS = 1024
#: query tiles whose top-K lists are selected in one pass over the gallery
TOPK_TILES = 16
#: query tiles multiplied with a gallery piece by one BLAS call for the
#: top-K selection, where that call gives each tile's bits (checked per
#: shape: :meth:`Distances.key_pieces`)
STACK_TILES = 4
#: rows checked for NaN and infinity at a time (a block of 512 floats a
#: row stays in the cache between its minimum and its maximum)
_SCAN = 1 << 11
#: rows whose largest magnitude lies in [2**-SAFE, 2**SAFE) are multiplied as
#: they are; others are scaled by a power of two first (:meth:`Distances._norms`)
_SAFE_EXP = 20


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
        query: MatrixRows,
        qidx: np.ndarray | None,
        gallery: MatrixRows,
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
        # no dot product of these rows can leave float32's range (|q.g| <= D
        # max|q| max|g| < D 2**(eq + eg), with room for rounding): the top-K
        # selection then takes the products unchecked, as they come
        tops = [int(rows[0].max()) for rows in (qrows, grows) if rows[0].size]
        self.products_fit = (
            metric == "dot"
            and self.ct is np.float32
            and not self.out_shift
            and int(np.log2(max(query.shape[1], 1))) + 2 + sum(tops) < 127
        )
        self.n_tiles = -(-nq // TILE_ROWS)
        self.n_pieces = -(-n // TILE_COLS)
        #: shape of a stacked call -> whether it gives the tiles' bits (key_pieces;
        #: None while a thread checks it)
        self._stacks: dict[tuple[int, int], bool | None] = {}
        self._stack_lock = threading.Lock()
        tile_bytes = 4 * TILE_ROWS * max(n, 1)
        self._tiles = TileCache(self._tile, keep=max(2, min(8, (64 << 20) // tile_bytes)))

    # -- per-row checks and norms
    def _scan(self, f: MatrixRows, idx, name: str, ids) -> tuple[np.ndarray, np.ndarray]:
        """Every used row checked (finite; nonzero for the cosine) by its
        real values, and measured without under- or overflow: (e, s), in
        the run's row order, with e the binary exponent of the row's
        largest magnitude (|x| < 2**e) and s the squared norm of the row,
        in float64, scaled by 2**-e when e is out of the safe range (exact:
        a power of two), else as it is.  Blocks of rows on both cores, the
        first bad row in file order reported."""
        rows = np.arange(f.shape[0]) if idx is None else np.unique(idx)
        exps = np.zeros(f.shape[0], dtype=np.int64)
        sums = np.zeros(f.shape[0], dtype=np.float64)

        def measure(at: int) -> None:
            r = rows[at : at + _SCAN]
            # checked in the features' own type (3x faster than widened
            # first); the largest magnitude from the row's extremes (no
            # copy of the block), NaN and infinity carried through
            block = np.asarray(f[r[0] : r[-1] + 1] if idx is None else f[r])
            top = np.maximum(np.negative(block.min(axis=1)), block.max(axis=1))
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

        for _ in in_order(measure, range(0, rows.size, _SCAN)):
            pass
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

    def _take(self, f: MatrixRows, idx, a: int, b: int, shift=None) -> np.ndarray:
        part = f[a:b] if idx is None else f[idx[a:b]]
        # aligned too: numpy multiplies misaligned arrays (an .npz member
        # starts anywhere in the zip) by its own loop, not BLAS, 3 to 4
        # times slower; a copy of the piece costs far less
        part = np.require(part, dtype=self.ct, requirements=["C_CONTIGUOUS", "ALIGNED"])
        if shift is not None:  # rows out of the safe range, scaled (exactly)
            part = np.ldexp(part, -(shift[a:b] if shift.size > 1 else shift)[:, None])
        return part

    def _kept(self, side: str, i: Hashable, take: Callable[[], np.ndarray]) -> np.ndarray:
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
            if len(kept) > {"query": TOPK_TILES, "stack": -(-TOPK_TILES // STACK_TILES)}.get(
                side, 1
            ):
                kept.popitem(last=False)
        return block

    def _products(self, t: int, c: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
        """The inner products of tile ``(t, c)`` (its query and gallery
        blocks as :meth:`_kept` keeps them), and the tile's row and column
        bounds (qa, qb, ga, gb)."""
        qa, qb = t * TILE_ROWS, min((t + 1) * TILE_ROWS, self.shape[0])
        ga, gb = c * TILE_COLS, min((c + 1) * TILE_COLS, self.shape[1])
        q = self._kept("query", t, lambda: self._take(self.query, self.qidx, qa, qb, self.qshift))
        g = self._kept(
            "gallery", c, lambda: self._take(self.gallery, self.gidx, ga, gb, self.gshift)
        )
        with one_blas_thread(), np.errstate(over="ignore", invalid="ignore"):
            return np.matmul(q, g.T), (qa, qb, ga, gb)

    def piece(self, t: int, c: int) -> np.ndarray:
        """Tile ``(t, c)``: query rows [512 t, 512 t + 512) x item columns
        [1024 c, 1024 c + 1024), float32."""
        s, bounds = self._products(t, c)
        with np.errstate(over="ignore", invalid="ignore"):
            return self._finish(s, *bounds)

    def key_piece(self, t: int, c: int) -> tuple[np.ndarray, bool]:
        """Tile ``(t, c)`` for the top-K selection (:mod:`.topk`), and
        whether it holds the distances negated: the dot product's products
        as they come when none can leave float32's range (no pass to negate
        or check them), else :meth:`piece`."""
        if not self.products_fit:
            return self.piece(t, c), False
        return self._products(t, c)[0], True

    def key_pieces(self, tiles, c: int) -> Iterator[tuple[int, tuple[np.ndarray, bool]]]:
        """``(t, key_piece(t, c))`` for each tile of ``tiles``, made by
        :meth:`key_stacks` (a stacked call's tiles as views of its rows)."""
        for parts, d, negated in self.key_stacks(tiles, c):
            for t, a, b in parts:
                yield t, (d[a:b], negated)

    def key_stacks(self, tiles, c: int) -> Iterator[tuple[list, np.ndarray, bool]]:
        """The pieces of gallery piece ``c`` for the tiles of ``tiles``, as
        ``(parts, d, negated)``: ``d`` the distances (or, ``negated``, the
        distances negated: :meth:`key_piece`) of one tile or of up to
        STACK_TILES consecutive tiles multiplied with the piece by one BLAS
        call (the gallery packed once: about a tenth less time for the top
        K), each tile ``t`` of ``parts`` its rows ``[a, b)``.  A stacked call
        is made only where it gives every tile exactly the bits of its own
        call, which the matrix path makes: checked once per shape of call,
        on random values (:mod:`.stacked_calls`) and on the first piece of
        that shape (:meth:`_stack_gives_tiles`); a shape where it does not
        hold is multiplied tile by tile.  The stacked call is made
        gallery-major (the piece times the queries: OpenBLAS' SkylakeX
        ``sgemm`` multiplies that shape about 8 % faster here, with the same
        bits), so ``d`` is a column-major view, which :mod:`.topk` compares
        as it lies.  The metric's distances are made from the stacked
        products value by value (:meth:`_finish`), as from each tile's call."""
        tiles = list(tiles)
        for i in range(0, len(tiles), STACK_TILES):
            group = tiles[i : i + STACK_TILES]
            if len(group) < 2 or group[-1] - group[0] != len(group) - 1:
                for t in group:
                    yield self._own(t, c)
                continue
            qa = group[0] * TILE_ROWS
            qb = min((group[-1] + 1) * TILE_ROWS, self.shape[0])
            ga, gb = c * TILE_COLS, min((c + 1) * TILE_COLS, self.shape[1])
            shape = (qb - qa, gb - ga)
            ok = self._stacks.get(shape)
            if ok is None and not self._claim(shape):
                ok = False  # another thread checks this shape: tile by tile meanwhile
            if ok is False:
                for t in group:
                    yield self._own(t, c)
                continue
            try:
                q = self._kept(
                    "stack",
                    (group[0], group[-1]),
                    partial(self._take, self.query, self.qidx, qa, qb, self.qshift),
                )
                g = self._kept(
                    "gallery",
                    c,
                    partial(self._take, self.gallery, self.gidx, ga, gb, self.gshift),
                )
                with one_blas_thread(), np.errstate(over="ignore", invalid="ignore"):
                    s = np.matmul(g, q.T).T  # (gallery-major: see above)
                if ok is None:
                    ok = self._stacks[shape] = self._stack_gives_tiles(s, group, c)
            except BaseException:
                if ok is None:  # this thread's check did not end: the next call checks again
                    with self._stack_lock:
                        self._stacks.pop(shape, None)
                raise
            if not ok:
                for t in group:
                    yield self._own(t, c)
                continue
            parts = [(t, t * TILE_ROWS - qa, min((t + 1) * TILE_ROWS, qb) - qa) for t in group]
            if self.products_fit:
                yield parts, s, True
            else:  # the metric's distances, value by value as the tiles' own
                with np.errstate(over="ignore", invalid="ignore"):
                    yield parts, self._finish(s, qa, qb, ga, gb), False

    def _own(self, t: int, c: int) -> tuple[list, np.ndarray, bool]:
        """Tile ``t``'s piece ``c`` by its own call, as :meth:`key_stacks` gives it."""
        d, negated = self.key_piece(t, c)
        return [(t, 0, d.shape[0])], d, negated

    def _claim(self, shape: tuple[int, int]) -> bool:
        """Whether this thread checks stacked calls of ``shape`` (the first
        to ask does; the check multiplies the tiles twice, and the two
        threads of the top K ask for the first pieces' shape together)."""
        with self._stack_lock:
            if shape in self._stacks:
                return False
            self._stacks[shape] = None
            return True

    def _stack_gives_tiles(self, s: np.ndarray, group: list[int], c: int) -> bool:
        """Whether the stacked product ``s`` of ``group`` and piece ``c``
        holds, bit for bit, each tile's own product."""
        qa = group[0] * TILE_ROWS
        rows = [min((t + 1) * TILE_ROWS, self.shape[0]) - t * TILE_ROWS for t in group]
        if not stacked_sums_alike(rows, s.shape[1], self.query.shape[1], s.dtype):
            return False
        for t in group:
            own = self._products(t, c)[0]
            a = t * TILE_ROWS - qa
            bits = np.dtype(f"u{own.itemsize}")  # (float64 too: s is column-major)
            if not np.array_equal(s[a : a + own.shape[0]].view(bits), own.view(bits)):
                return False
        return True

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
        """The features as they are: those of a file as where they are
        read from (:class:`~.file_rows.FileRows`, never their values: a
        worker reads the same file; the cluster's machines share it), arrays
        in memory with their values; the caches left behind."""
        # (a worker's BLAS may sum otherwise: it checks the stacked calls again)
        left = ("_tiles", "_local", "_stacks", "_stack_lock")
        state = {k: v for k, v in self.__dict__.items() if k not in left}
        state["_tiles_keep"] = self._tiles._keep
        return state

    def __setstate__(self, state: dict) -> None:
        keep = state.pop("_tiles_keep")
        self.__dict__.update(state)
        self._tiles = TileCache(self._tile, keep=keep)
        self._stacks = {}
        self._stack_lock = threading.Lock()

    # -- the first K of each row
    def top_keys(self, tiles: range, k: int) -> list[np.ndarray]:
        """For each query tile of ``tiles``: every row's ``k`` smallest
        (value, column) keys, sorted (the first k of the stable ascending
        order, exactly: :mod:`.topk`); one pass over the gallery for all the
        tiles, its pieces split between the two cores."""
        return select_tiles(self, tiles, min(k, self.shape[1]), TILE_COLS, threads=WORKERS)
