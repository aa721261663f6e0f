"""Work items computed by two threads while the caller consumes the results
in order.

numpy releases the GIL in its loops, so pure per-item work runs on both
cores: the readers' chunks (tokenizing, numbers, packing ids) while the
calling thread does what must happen in file order (giving ids their
codes), and the engine's blocks of queries.  At most ``ahead`` chunks are in flight, so memory stays
bounded whatever the file's size; an error raised for an item reaches the
caller when that chunk's turn comes, so the first error in file order is
the one reported.

Hand-written over ``concurrent.futures`` because ``Executor.map`` submits
every item at once (the whole file's chunks in memory).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: threads parsing chunks (the machines this runs on have at least two cores)
WORKERS = 2


def in_order(fn: Callable[[T], R], items: Iterable[T], *, ahead: int = 4) -> Iterator[R]:
    """``fn(item)`` for every item, computed by worker threads, yielded in
    the order of ``items``."""
    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="shrec-read") as pool:
        pending: deque = deque()
        # the first result is awaited alone: items made after the caller has
        # seen it (a reader's chunks, with the id table as it is then) can
        # use what it did with it
        limit = 1
        try:
            for item in items:
                pending.append(pool.submit(fn, item))
                if len(pending) >= limit:
                    yield pending.popleft().result()
                    limit = ahead
            while pending:
                yield pending.popleft().result()
        finally:
            for f in pending:
                f.cancel()
