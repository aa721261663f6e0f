"""Arrays of numbers stored in a file (a PSB binary matrix, a ``.npy`` file, an
uncompressed member of an ``.npz``) read a block of rows at a time by checked
reads, never memory-mapped.

Why not a mapping: when a mapped file is truncated or rewritten while it is
used (``cp new.npy run.npy`` truncates it first; a training job saves its
features again), the next read of a page past its new end kills the process
with SIGBUS, which Python cannot catch: no message, no output.  A read
instead returns fewer bytes, which is a :class:`~shrec_eval.errors.FormatError`
naming the file; and the file's size and time, noted when it was opened, are
compared at every read, so a file rewritten to the same size is an error too,
never a mix of its old and new rows.

The cost: each block is copied from the page cache into its own buffer (a
mapping reads the cache's pages in place), a memory copy per block, about a
tenth of a second per GB.  The rows the engine asks for come a block at a
time (tiles of 512 or 1,024 rows), so an array is never whole in memory; the
rows of a block are read in as few reads as they allow (runs of rows that
follow each other in the file, one read each).

An array sent to another process (a Dask worker) travels as its path, offset,
type, shape and the size and time noted: the worker reads the same file."""

from __future__ import annotations

import os

import numpy as np

from ...errors import FileAccessError, FormatError

__all__ = ["FileRows", "file_stamp"]

#: a read at an offset into a buffer, one system call (not on Windows)
_PREADV = getattr(os, "preadv", None)


def file_stamp(st: os.stat_result) -> tuple[int, int]:
    """What tells that a file changed: its size and modification time."""
    return (st.st_size, st.st_mtime_ns)


class FileRows:
    """A 2-D array of ``dtype`` stored in the file ``path`` from byte
    ``offset`` on (C order, or Fortran order when ``fortran``), read a
    block of rows at a time.  Indexing (a slice of rows, a row, an array of
    rows) gives those rows as a new array; ``np.asarray`` of it reads it
    whole.  ``what`` says what the file should hold, for the message of a
    file that ends too soon; ``stamp`` (:func:`file_stamp`) is the file as
    it was opened (default: as it is now)."""

    ndim = 2

    def __init__(
        self,
        path,
        shape: tuple[int, int],
        dtype,
        *,
        offset: int = 0,
        fortran: bool = False,
        what: str = "",
        stamp: tuple[int, int] | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.shape = (int(shape[0]), int(shape[1]))
        self.dtype = np.dtype(dtype)
        self.offset = int(offset)
        self.fortran = bool(fortran)
        self.what = what
        if stamp is None:
            try:
                stamp = file_stamp(os.stat(self.path))
            except OSError as exc:
                raise FileAccessError.wrap(self.path, exc) from exc
        self.stamp = stamp

    @property
    def nbytes(self) -> int:
        return self.shape[0] * self.shape[1] * self.dtype.itemsize

    def __len__(self) -> int:
        return self.shape[0]

    # -- reading
    def _error(self, end: int) -> FormatError:
        what = f"; {self.what}" if self.what else ""
        return FormatError(
            self.path,
            f"the file ended after {end:,} bytes while it was read{what} (was it truncated or "
            "rewritten while it was scored?)",
        )

    def _pieces(self, fh, view: memoryview, offsets: list[int], lengths: list[int]) -> None:
        """Bytes ``[offsets[i], offsets[i] + lengths[i])`` of the open file,
        one piece after another, into ``view``: one read a piece (os.preadv
        where the system has it), more only when a read gives less."""
        fd = fh.fileno()
        pos = 0
        for at, n in zip(offsets, lengths):
            got = 0
            while got < n:
                part = view[pos + got : pos + n]
                if _PREADV is not None:
                    k = _PREADV(fd, [part], at + got)
                else:
                    fh.seek(at + got)
                    k = fh.readinto(part)
                if not k:
                    raise self._error(at + got)
                got += k
            pos += n

    def _read(self, starts: list[int], stops: list[int]) -> np.ndarray:
        """Rows ``[starts[i], stops[i])`` of the file, one run after another."""
        size = self.dtype.itemsize
        n, cols = self.shape
        out = np.empty((sum(b - a for a, b in zip(starts, stops)), cols), self.dtype)
        if not out.size:
            return out
        try:
            with open(self.path, "rb", buffering=0) as fh:
                self._check(os.fstat(fh.fileno()))
                if not self.fortran:
                    row = cols * size
                    offsets = [self.offset + a * row for a in starts]
                    lengths = [(b - a) * row for a, b in zip(starts, stops)]
                    view = memoryview(out).cast("B")  # type: ignore[arg-type]  # a buffer (stubs: 3.12+)
                    self._pieces(fh, view, offsets, lengths)
                else:  # a column's values follow each other: a run is a piece of each
                    at = 0
                    for a, b in zip(starts, stops):
                        part = np.empty((cols, b - a), dtype=self.dtype)
                        offsets = [self.offset + (j * n + a) * size for j in range(cols)]
                        view = memoryview(part).cast("B")  # type: ignore[arg-type]  # as above
                        self._pieces(fh, view, offsets, [(b - a) * size] * cols)
                        out[at : at + b - a] = part.T
                        at += b - a
                self._check(os.fstat(fh.fileno()))
        except OSError as exc:
            raise FileAccessError.wrap(self.path, exc) from exc
        return out

    def _check(self, st: os.stat_result) -> None:
        now = file_stamp(st)
        if now == self.stamp:
            return
        if now[0] < self.offset + self.nbytes:
            raise self._error(now[0])
        how = (
            f"it had {self.stamp[0]:,} bytes when it was opened, it has {now[0]:,}"
            if now[0] != self.stamp[0]
            else "its modification time is not the one it had when it was opened"
        )
        raise FormatError(
            self.path,
            f"the file changed while it was read ({how}): was it rewritten while it was scored?",
        )

    def __getitem__(self, key) -> np.ndarray:
        if isinstance(key, slice):
            start, stop, step = key.indices(self.shape[0])
            if step != 1:
                return self[np.arange(start, stop, step)]
            return self._read([start], [max(stop, start)])
        rows = np.asarray(key, dtype=np.int64)
        if rows.ndim == 0:
            r = int(rows) + (self.shape[0] if int(rows) < 0 else 0)
            if not 0 <= r < self.shape[0]:
                raise IndexError(f"row {int(rows)} of {self.shape[0]}")
            return self._read([r], [r + 1])[0]
        rows = rows.reshape(-1)
        if not rows.size:
            return np.empty((0, self.shape[1]), dtype=self.dtype)
        rows = np.where(rows < 0, rows + self.shape[0], rows)
        if rows.min() < 0 or rows.max() >= self.shape[0]:
            raise IndexError(f"rows out of the {self.shape[0]} rows of {self.path}")
        if (np.diff(rows) == 1).all():  # rows that follow each other: one read
            return self._read([int(rows[0])], [int(rows[-1]) + 1])
        lo, hi = int(rows.min()), int(rows.max()) + 1
        if hi - lo <= 4 * rows.size:  # one read of the span, then the rows
            return self._read([lo], [hi])[rows - lo]
        # the distinct rows in file order, in runs of rows that follow each
        # other (one read a run), then in the order asked
        distinct, where = np.unique(rows, return_inverse=True)
        cut = np.flatnonzero(np.diff(distinct) != 1) + 1
        starts = distinct[np.r_[0, cut]].tolist()
        stops = (distinct[np.r_[cut - 1, distinct.size - 1]] + 1).tolist()
        return self._read(starts, stops)[where]

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        whole = self._read([0], [self.shape[0]])
        return whole if dtype is None else whole.astype(dtype)

    def __repr__(self) -> str:
        return (
            f"FileRows({self.path!r}, {self.shape[0]} x {self.shape[1]} {self.dtype}, "
            f"from byte {self.offset})"
        )
