"""The contest's shapes in the app: the shapes folders (saved in sessions),
and a worker thread that indexes them, has thumbnails drawn (through the same
per-user disk cache as the command line: shrec_eval.shapes.thumbnails), reads
meshes for the 3D view and draws its CPU turntable frames.  The GUI thread
only asks and shows: every answer comes back as a queued signal.

Thumbnails are drawn in separate processes (spawned, Qt-free): trimesh's
readers are Python loops, and in a thread of the GUI's process they held the
interpreter lock against the window (a 380 ms stall in the benchmark while a
thousand thumbnails were drawn).

Requests are served newest first: asking for the thumbnails of another query
drops those of the query before that were not drawn yet (cancel drops them
all), so that the strips on screen fill in first."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import threading
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage
from shrec_eval.errors import ShrecEvalError
from shrec_eval.model.parent_watch import die_with_parent
from shrec_eval.shapes.index import ShapesSource
from shrec_eval.shapes.render import render_mesh
from shrec_eval.shapes.thumbnails import (
    ShapeFileError,
    load_mesh,
    placeholder,
    shape_warning,
    thumbnail_rgba,
)

#: the side of a thumbnail in the app, in pixels (drawn at the screen's pixel ratio)
THUMB_PX = 72
ITEM, QUERY = "item", "query"
# what starting a spawned process pool imports, imported here at start-up: imported
# by the service thread at the first thumbnail, they held the interpreter lock
# against the window for about 200 ms
for _name in (
    "multiprocessing.connection",
    "multiprocessing.queues",
    "multiprocessing.synchronize",
    "multiprocessing.spawn",
    *(
        ("multiprocessing.popen_spawn_posix", "multiprocessing.resource_tracker")
        if os.name == "posix"
        else ("multiprocessing.popen_spawn_win32",)
    ),
):
    importlib.import_module(_name)

#: pictures kept in memory (about 20 KB each at 72 px)
MAX_IMAGES = 5000
#: drawing processes: every core but one (the GUI's), at least one, at most four
WORKERS = max(1, min(4, (os.cpu_count() or 2) - 1))


def qimage(rgba: np.ndarray) -> QImage:
    """A QImage owning a copy of an RGBA array (safe to make in any thread)."""
    a = np.ascontiguousarray(rgba, dtype=np.uint8)
    h, w = a.shape[:2]
    return QImage(a.data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()


class ShapesService(QObject):
    """The shapes folders of the open contest and their pictures."""

    sourcesChanged = Signal()
    indexed = Signal(str)  # what was found, or why not
    thumbnailReady = Signal(str, str, object)  # role (item / query), id, QImage
    progress = Signal(int, int)  # done, total of the thumbnails asked for (0, 0: idle)
    meshReady = Signal(str, str, object)  # role, id, (vertices, faces) or the reason (str)
    viewReady = Signal(int, object)  # request, QImage of a turntable frame

    def __init__(self, parent: QObject | None = None, *, size: int = THUMB_PX) -> None:
        super().__init__(parent)
        self.size = size
        self.source: ShapesSource | None = None
        self.query_source: ShapesSource | None = None
        self.index_error: str | None = None
        self._images: dict[tuple[str, str], QImage] = {}
        self.problems: dict[str, str] = {}
        self._lock = threading.Condition()
        self._gen = 0
        self._todo: deque = deque()
        self._view = None  # the latest turntable frame asked for
        self._mesh = None  # (role, id) asked for the 3D view
        self._done = self._total = 0
        self._stop = False
        self._index = self._query_index = None
        self._pool: ProcessPoolExecutor | None = None  # made at the first thumbnail
        self._thread = threading.Thread(target=self._run, name="thumbnails", daemon=True)
        self._thread.start()

    # -- the GUI thread ---------------------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.source is not None or self.query_source is not None

    def set_sources(self, shapes: ShapesSource | None, query_shapes=None) -> None:
        """New shapes folders (None: none); the pictures of the old ones are dropped."""
        if (shapes, query_shapes) == (self.source, self.query_source):
            return
        self.source, self.query_source = shapes, query_shapes
        self._images.clear()
        self.problems = {}
        self.index_error = None
        with self._lock:
            self._gen += 1
            self._todo.clear()
            self._done = self._total = 0
            self._todo.append(("index", self._gen, shapes, query_shapes))
            self._lock.notify()
        self.sourcesChanged.emit()

    def new_contest(self) -> None:
        """Another contest opened (perhaps on the same shapes folders): the
        shapes that could not be shown are its own from now on.  The pictures
        of the earlier ones are dropped too, so that showing them again says
        so again (the disk cache makes that cheap)."""
        with self._lock:  # what is being drawn for the contest before is dropped
            self._gen += 1
            self._todo = deque(t for t in self._todo if t[0] != "thumb")
            self._done = self._total = 0
            problems, self.problems = self.problems, {}
        for item_id in problems:
            for role in (ITEM, QUERY):
                self._images.pop((role, item_id), None)
        self.progress.emit(0, 0)

    def image(self, role: str, item_id: str) -> QImage | None:
        return self._images.get((role, item_id))

    def request(self, wanted, *, replace: bool = True) -> None:
        """Draw the (role, id) pairs not drawn yet, in this order, before
        anything asked earlier; ``replace``: what was asked earlier and not
        drawn yet is dropped (another query shown), else it waits."""
        missing = [w for w in dict.fromkeys(wanted) if w not in self._images]
        if not missing and not replace:
            return
        with self._lock:
            earlier = deque(t for t in self._todo if t[0] != "thumb")
            later = deque() if replace else deque(t for t in self._todo if t[0] == "thumb")
            earlier.extend(("thumb", self._gen, role, i) for role, i in missing)
            earlier.extend(later)
            self._todo = earlier
            if replace:
                self._done, self._total = 0, len(missing)
            else:
                self._total += len(missing)
            done, total = self._done, self._total
            self._lock.notify()
        self.progress.emit(done, total)

    def cancel(self) -> None:
        with self._lock:
            self._todo = deque(t for t in self._todo if t[0] != "thumb")
            self._done = self._total = 0
        self.progress.emit(0, 0)

    def request_mesh(self, role: str, item_id: str) -> None:
        with self._lock:
            self._mesh = (self._gen, role, item_id)
            self._lock.notify()

    def request_view(self, request: int, vertices, faces, rotation, zoom: float, size: int):
        """A turntable frame; only the newest request waiting is drawn."""
        with self._lock:
            self._view = (request, vertices, faces, rotation, zoom, size)
            self._lock.notify()

    def warning(self):
        return shape_warning(self.problems)

    def shutdown(self) -> None:
        with self._lock:
            self._stop = True
            self._lock.notify()
        self._thread.join(timeout=5)

    # -- the worker thread ------------------------------------------------------------------
    def _next(self):
        with self._lock:
            while not self._stop and not self._todo and self._view is None and self._mesh is None:
                self._lock.wait()
            if self._stop:
                return None
            if self._todo and self._todo[0][0] == "index":  # the folder first: all else needs it
                return self._todo.popleft()
            if self._view is not None:  # the 3D view first: a person is dragging
                task, self._view = ("view", *self._view), None
                return task
            if self._mesh is not None:
                task, self._mesh = ("mesh", *self._mesh), None
                return task
            task = self._todo.popleft()
            if task[0] != "thumb":
                return task
            batch = [task]  # one thumbnail per drawing process at a time
            while len(batch) < WORKERS and self._todo and self._todo[0][0] == "thumb":
                batch.append(self._todo.popleft())
            return ("thumbs", batch)

    def _run(self) -> None:
        while True:
            task = self._next()
            if task is None:
                if self._pool is not None:
                    self._pool.shutdown(wait=False, cancel_futures=True)
                return
            try:
                self._serve(task)
            except Exception as exc:  # never let the thread die: say it
                self.indexed.emit(f"unexpected {type(exc).__name__}: {exc}")

    def _start_pool(self) -> None:
        if self._pool is None:
            spawn = multiprocessing.get_context("spawn")  # never fork a process running Qt
            # they die with the app, however it ends (shrec_eval.model.parent_watch)
            self._pool = ProcessPoolExecutor(WORKERS, mp_context=spawn, initializer=die_with_parent)
            # the processes start with the first task: a cheap one, now
            self._pool.submit(os.getpid)

    def _draw(self, batch) -> list:
        """(rgba, problem) of each thumbnail task, from the drawing processes."""
        self._start_pool()
        files = [self._lookup(role, i) for _, _, role, i in batch]
        try:
            futures = [self._pool.submit(thumbnail_rgba, f, self.size) for f in files]
            return [f.result() for f in futures]
        except BrokenProcessPool:  # a drawing process died (memory?): a new pool next time
            self._pool = None
            why = "the drawing process stopped (too large a file?)"
            return [(placeholder(self.size, why), why) for _ in batch]

    def _lookup(self, role: str, item_id: str):
        index = self._query_index if role == QUERY and self._query_index else self._index
        return index.files(item_id) if index is not None else None

    def _serve(self, task) -> None:
        kind = task[0]
        if kind == "index":
            _, gen, shapes, query_shapes = task
            try:
                self._index = shapes.index() if shapes is not None else None
                self._query_index = query_shapes.index() if query_shapes is not None else None
                text = "; ".join(
                    i.describe() for i in (self._index, self._query_index) if i is not None
                )
            except ShrecEvalError as exc:
                self._index = self._query_index = None
                text = f"error: {exc}"
            self.indexed.emit(text)
            if self._index is not None or self._query_index is not None:
                self._start_pool()  # the drawing processes start now, not at the first query
        elif kind == "thumbs":
            batch = task[1]
            for (_, gen, role, item_id), (rgba, problem) in zip(batch, self._draw(batch)):
                image = qimage(rgba)
                with self._lock:
                    if gen != self._gen:
                        continue
                    self._done += 1
                    done, total = self._done, self._total
                self._deliver(gen, role, item_id, image, problem)
                self.progress.emit(done, total)
        elif kind == "mesh":
            _, gen, role, item_id = task
            files = self._lookup(role, item_id)
            if files is None or files.mesh is None:
                what = "no shape file" if files is None else "an image, not a mesh"
                self.meshReady.emit(role, item_id, what)
                return
            try:
                self.meshReady.emit(role, item_id, load_mesh(files.mesh, files.root))
            except ShapeFileError as exc:
                self.meshReady.emit(role, item_id, f"{files.mesh.name}: {exc}")
        elif kind == "view":
            _, request, v, f, rotation, zoom, size = task
            try:
                rgba = render_mesh(v, f, size, rotation=rotation, scale=zoom)
            except ValueError:
                return
            self.viewReady.emit(request, qimage(rgba))

    def _deliver(self, gen, role, item_id, image, problem) -> None:
        # written from this thread: a dict assignment is atomic; the GUI thread
        # reads the image once thumbnailReady arrives
        if gen == self._gen:
            if len(self._images) >= MAX_IMAGES:  # the oldest half goes (the disk cache has it)
                for k in list(self._images)[: MAX_IMAGES // 2]:
                    self._images.pop(k, None)
            self._images[(role, item_id)] = image
            if problem is not None:
                self.problems[item_id] = problem
            self.thumbnailReady.emit(role, item_id, image)
