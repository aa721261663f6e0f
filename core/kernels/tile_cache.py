"""The rows of distance tiles kept for the next block of queries (a small cache
keyed by tile, bounded in bytes), so that a block's top K and its ranked
lists do not compute a tile twice.

It offers TileCache."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable


class TileCache:
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
                if event is None:
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
