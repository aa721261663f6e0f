"""A PSB binary matrix and distances tile by tile: a float32 matrix run cut
into the tiles of :class:`~shrec_eval.kernels.distances.Distances` for the
same top-K selection (MatrixPieces), and the binary matrix of distances
written a piece at a time (matrix_pieces)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np

from ..model.parallel import WORKERS, in_order
from . import distances as tiles  # the tile sizes, read when used (tests set them)


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
        self.n_tiles = -(-self.shape[0] // tiles.TILE_ROWS)
        self.n_pieces = -(-self.shape[1] // tiles.TILE_COLS)
        self._strip = threading.local()

    def piece(self, t: int, c: int) -> np.ndarray:
        # a binary matrix is read a block of whole rows at a time (never
        # memory-mapped, so a file cut short is an error, not SIGBUS: FileRows): the
        # tile's rows once (kept by the thread for the tile's next pieces),
        # then the piece's columns
        if getattr(self._strip, "t", None) != t:
            self._strip.rows = None
            self._strip.rows = self.matrix[t * tiles.TILE_ROWS : (t + 1) * tiles.TILE_ROWS]
            self._strip.t = t
        rows = self._strip.rows
        return np.ascontiguousarray(
            rows[:, c * tiles.TILE_COLS : (c + 1) * tiles.TILE_COLS], dtype=np.float32
        )

    top_keys = tiles.Distances.top_keys

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_strip"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._strip = threading.local()


def matrix_pieces(dist: tiles.Distances) -> Iterator[bytes]:
    """The PSB binary matrix (little-endian float32, row after row) of the
    distances, a tile of rows at a time, two tiles computed at once."""
    for block in in_order(dist._tile, range(dist.n_tiles), ahead=WORKERS):
        yield np.ascontiguousarray(block, dtype="<f4").tobytes()
