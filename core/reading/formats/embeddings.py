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

from dataclasses import replace
from pathlib import Path

import numpy as np

from ...choices import METRICS
from ...errors import FormatError
from ...kernels import distances as tiles  # the tile sizes, read when used (tests set them)
from ...kernels.blas_threads import (  # noqa: F401
    one_blas_thread,
)
from ...kernels.distances import Distances
from ...kernels.matrix_pieces import MatrixPieces, matrix_pieces  # noqa: F401
from ...kernels.rowsort import tied_pairs
from ...kernels.tile_cache import TileCache
from ...model.assessment import Assessment, DataWarning
from ...model.runs import Run
from .features import (  # noqa: F401
    INFLATE_FLOOR,
    INFLATE_RATIO,
    Features,
    identity,
    is_embeddings,
    load_features,
    rows_for,
)
from .matrix import MatrixRun, ties_warning

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


# -- distances ---------------------------------------------------------------------


def top_k_of_matrix(run: MatrixRun, assessment: Assessment, k: int) -> TopKRun:
    """The first ``k`` results of each row of a binary (float32) matrix run."""
    if run.matrix.dtype != np.float32:
        raise FormatError(
            run.source,
            "--top-k applies to embedding runs and binary float32 matrices; the ranking of "
            "this matrix's float64 values is not made from keys of 32 bits "
            "(--max-rank cuts its lists after a full ranking)",
        )
    top = TopKRun(
        run.name,
        MatrixPieces(run.matrix),
        assessment,
        k,
        source=run.source,
        format=f"{run.format}, first {k}",
        warnings=[*run.warnings, *_top_k_note(assessment, k)],
    )
    top.positional = run.positional  # the matrix-order check reads the whole rows
    return top


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

    matrix: Distances

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
        self._groups = TileCache(self._group, keep=2)

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
        return range(g * tiles.TOPK_TILES, min((g + 1) * tiles.TOPK_TILES, self.distances.n_tiles))

    @property
    def n_groups(self) -> int:
        return -(-self.distances.n_tiles // tiles.TOPK_TILES)

    def set_keys(self, keys_by_group: dict[int, np.ndarray]) -> None:
        """Each group's keys selected elsewhere (every row's first ``keep``
        keys, sorted: the gallery shards of a cluster's workers, merged),
        kept for the scoring, which then selects nothing."""
        self._groups = TileCache(self._group, keep=max(2, self.n_groups))
        for g, keys in keys_by_group.items():
            self._groups.put(g, self._lists(g, keys))

    @property
    def keep(self) -> int:
        """The keys kept per row: K, plus one where a query is an item."""
        return self._keep

    def _group(self, g: int) -> tuple[np.ndarray, np.ndarray]:
        """The lists of group ``g``'s query tiles: items and lengths."""
        tiles = self.group_tiles(g)
        keys = self.distances.top_keys(tiles, self._keep)  # type: ignore[misc]  # shared method
        return self._lists(g, np.concatenate(keys))

    def _lists(self, g: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The lists of group ``g`` from its rows' keys (the tied pairs counted)."""
        q0 = self.group_tiles(g)[0] * tiles.TILE_ROWS
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
        per = tiles.TOPK_TILES * tiles.TILE_ROWS
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
        200 MB to clear for 200,000 entries); or, where the pairs outnumber
        the entries and come sorted, by a search of the pairs."""
        idx, lengths = self.ranked_block(rows)
        ranks = np.full(pair_row.size, -1, dtype=np.int64)
        if not pair_row.size or not idx.size:
            return lengths, ranks
        width = np.int64(self.n_items + 1)
        flat = idx.reshape(-1).astype(np.int64)
        entry = np.repeat(np.arange(idx.shape[0], dtype=np.int64), idx.shape[1]) * width + flat
        entry[flat < 0] = -1  # padding matches no pair
        want = np.asarray(pair_row, np.int64) * width  # (one array of the pairs' size, not two)
        want += np.asarray(pair_item, np.int64)
        if want.size > entry.size and not (want[1:] <= want[:-1]).any():
            # more pairs than list entries (R above K), asked in (row, item)
            # order as the engine asks the judged items: the entries searched
            # among the pairs, not every pair among the sorted entries; each
            # row's entries by item first (a list's items are distinct), so
            # that the searches go through the pairs in order (cache-friendly:
            # 40 % less time at R = 1,000)
            by_item = np.argsort(idx, axis=1, kind="stable")
            rank = by_item.reshape(-1)
            entry = entry.reshape(idx.shape)[np.arange(idx.shape[0])[:, None], by_item].reshape(-1)
            at = np.minimum(np.searchsorted(want, entry), want.size - 1)
            found = np.flatnonzero(want[at] == entry)
            ranks[at[found]] = rank[found]
            return lengths, ranks
        order = np.argsort(entry, kind="stable")
        sorted_entry = entry[order]
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
            advice=", kept with --keep-self",
        )
    ]


def _top_k_note(a: Assessment, k: int) -> list[DataWarning]:
    """Which measures a cut at rank K leaves exact and which become bounds;
    the count is the queries whose R (relevant items) exceeds K.  Nothing
    when K cuts no list (every query keeps its whole list, its own item
    aside: every value is exact, none a bound)."""
    reach = np.where(a.query_items >= 0, k + 1, k)  # a query's own item is kept besides K
    if (reach >= a.n_items).all():
        return []
    counts = np.diff(a.indptr)
    n_rel = counts
    if (a.query_items >= 0).any():  # (no pass over the judgments otherwise)
        qidx = np.repeat(np.arange(a.n_queries), counts)
        own = a.judged_items == a.query_items[qidx]  # a query's own item is not counted in R
        n_rel = counts - np.bincount(qidx[own], minlength=a.n_queries)
    over = int((n_rel > k).sum())
    exact = f"nn, and p, r, cg, dcg, ncg, ndcg @K for K <= {k}" + (", e_measure" if k >= 32 else "")
    return [
        DataWarning(
            "top_k",
            f"only each query's first {k} results are kept (--top-k {k}): exact are {exact}; "
            f"ft, ft_psb and map@r where R <= {k}, st and st_psb where 2R <= {k}; the others "
            "(ap, adr, dcg_psb, recall, tp/fp/fn/tn, acc, e_measure below 32, the curves past "
            f"rank {k}) see only the first {k}: items past it count as not retrieved "
            "(ap, adr, dcg_psb and recall become lower bounds); queries with R > K",
            over,
            advice=f" (--top-k {k})",
        )
    ]


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
    qidx, gidx = rows_for(f, assessment)
    dist = Distances(
        f.query,
        identity(qidx, f.query.shape[0]),
        f.gallery,
        identity(gidx, f.gallery.shape[0]),
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
    run: TopKRun | EmbeddingRun
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
            warnings=notes + _top_k_note(assessment, top_k),
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
        assert isinstance(run, EmbeddingRun)  # no top K: every distance
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
