"""Per-line columns and line numbers of a file read a chunk at a time (the
TREC readers): what is kept of every line until the file is read, in as
little memory as the lines need."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


class Columns:
    """Per-line int32 columns of a file read a chunk at a time, one after
    another in arrays made for the lines expected (:meth:`reserve`: the room
    no line takes is never touched), grown by half when more come; no list of
    chunks to join at the end (which held the columns twice)."""

    def __init__(self, k: int) -> None:
        self._arrays = [np.empty(0, dtype=np.int32) for _ in range(k)]
        self.n = 0

    def reserve(self, n: int) -> None:
        if n > self._arrays[0].size:
            grown = [np.empty(n, dtype=np.int32) for _ in self._arrays]
            for new, old in zip(grown, self._arrays):
                new[: self.n] = old[: self.n]
            self._arrays = grown

    def append(self, *parts: np.ndarray) -> None:
        m = self.n + parts[0].size
        if m > self._arrays[0].size:
            self.reserve(max(m, self._arrays[0].size * 3 // 2))
        for array, part in zip(self._arrays, parts):
            array[self.n : m] = part
        self.n = m

    def recode(self, k: int, remap: np.ndarray) -> None:
        """Column ``k`` of the lines so far recoded: ``remap[value]``."""
        column = self._arrays[k][: self.n]
        column[:] = remap[column]

    def arrays(self) -> list[np.ndarray]:
        return [a[: self.n] for a in self._arrays]


class LineNumbers:
    """The line number of entry ``e`` (an int or an array of them) from the
    chunks' line numbers: a chunk of consecutive lines keeps its first line
    number alone (no file-long array unless the entries were reordered)."""

    def __init__(self, parts: Iterable[np.ndarray] = ()) -> None:
        self.firsts: list[int] = []
        self.parts: list[np.ndarray | None] = []
        self.starts = [0]
        for p in parts:
            self.add(p)

    def add(self, numbers: np.ndarray) -> None:
        consecutive = (
            numbers.size
            and int(numbers[-1]) - int(numbers[0]) == numbers.size - 1
            and bool((numbers[1:] > numbers[:-1]).all())
        )
        self.firsts.append(int(numbers[0]) if numbers.size else 0)
        self.parts.append(None if consecutive else numbers)
        self.starts.append(self.starts[-1] + numbers.size)

    def array(self) -> np.ndarray:
        """Every entry's line number."""
        return self[np.arange(self.starts[-1])]

    def __getitem__(self, e):
        at = np.asarray(e, dtype=np.int64)
        k = np.searchsorted(self.starts, at, side="right") - 1
        out = np.empty(at.shape, dtype=np.int64)
        for part in np.unique(k).tolist():
            sel = k == part
            local = at[sel] - self.starts[part]
            numbers = self.parts[part]
            out[sel] = local + self.firsts[part] if numbers is None else numbers[local]
        return int(out) if out.ndim == 0 else out
