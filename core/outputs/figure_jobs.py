"""The report's figures as jobs, drawn by helper processes.

The figures were four fifths of a report's time: four figures, each laid
out and saved as PDF, SVG and PNG by matplotlib, in Python, one after the
other.  Here each figure is a :class:`~.figure_data.FigureJob` (made by
:func:`.figures.report_figure_jobs`): a drawing function of
:mod:`.figure_plots`, what it draws from (:class:`~.figure_data.FigureRun`: the few numbers of
each run's results a report figure shows, small whatever the number of
queries) and its settings; :func:`figure_files` draws it and gives the bytes
of its files.  :class:`FigureDrawers` are helper processes (Qt-free,
dying with their parent: :mod:`shrec_eval.model.parent_watch`) that the
command line starts before it scores (forked from a server process that
imports matplotlib once, started as soon as the command's arguments ask
for a report: :mod:`.figure_start`) and the
app when a report is asked for (spawned, each importing it);
they draw while the caller makes the tables and the gallery.  What such a
process imports is matplotlib and the figures' own modules (this one,
:mod:`.figure_data`, :mod:`.figure_plots`, :mod:`.figure_style`,
:mod:`.palette`): the jobs name their measures as text, so that the
measure registry, the profiles and the readers stay out of it.  Without
drawers the jobs run in this process, one after the other: the same
function, the same bytes.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..model.parent_watch import die_with_parent
from .figure_data import FigureJob
from .figure_start import DRAWING_MODULES, drawing_context, hold_server, let_go_of_server
from .figure_style import figure_bytes
from .palette import REPORT_FIGURES

if TYPE_CHECKING:  # annotations only (the pool is imported when made)
    from concurrent.futures import Future, ProcessPoolExecutor

#: drawing processes: one per core, at most one per figure of a report
WORKERS = max(1, min(len(REPORT_FIGURES), os.cpu_count() or 1))

#: jobs whose futures drawers keep (a job asked for again gets its drawing):
#: those of the last few reports
MEMORY = 4 * len(REPORT_FIGURES)


def figure_files(job: FigureJob) -> dict[str, bytes]:
    """``figures/NAME.FMT`` -> bytes of a job's figure: drawn (laid out) once,
    saved in every format."""
    fig = job.draw(*job.args, **job.kwargs)
    return {f"figures/{job.name}.{fmt}": figure_bytes(fig, fmt) for fmt in job.formats}


def _ready() -> None:
    """A drawing process's start: its life tied to its parent's, and
    :data:`DRAWING_MODULES` imported now, while its parent still scores
    (forked from the server that imported them: nothing left to import)."""
    import importlib

    die_with_parent()
    for name in DRAWING_MODULES:
        importlib.import_module(name)


class FigureDrawers:
    """Helper processes drawing figure jobs (``workers`` of them, default
    :data:`WORKERS`), started at once: make them before the work that their
    start should overlap; ``from_server``: forked from a server that
    imported matplotlib once (see :func:`.figure_start.drawing_context`).
    Ended by :meth:`close` (or ``with``).  Processes that cannot be started: spawned,
    the OSError leaves ``__init__`` (:func:`start_drawers` gives None);
    forked from the server, whose start runs on a thread, every job then
    fails with BrokenProcessPool and is drawn by its caller."""

    def __init__(self, workers: int | None = None, *, from_server: bool = False) -> None:
        from concurrent.futures import ProcessPoolExecutor

        n = workers or WORKERS
        context = drawing_context(from_server)
        self._pool: ProcessPoolExecutor | None
        self._pool = ProcessPoolExecutor(n, mp_context=context, initializer=_ready)
        self._submitted: dict[bytes, Future] = {}
        # jobs submitted while the processes start: handed to the pool once started
        self._waiting: list[tuple[FigureJob, Future]] | None = None
        self._broken = False  # the processes could not be started
        # held while a process may be started (a submit), so that close()
        # knows every process it has to end
        self._lock = threading.Lock()
        #: why the processes could not start (None: they did, or are starting)
        self.start_error: BaseException | None = None
        # forked from the server: held until both close() and the start's thread
        # are done with it (the later of the two lets go: let_go_of_server)
        self._server = context.get_start_method() == "forkserver"
        self._starting = self._server
        if not self._server:
            # the processes start with a task each (in this thread: on Linux they die
            # with it); their import of matplotlib runs meanwhile
            for _ in range(n):
                self._pool.submit(os.getpid)
            return
        # a forked process starts once the server has imported the drawing modules:
        # started by a thread of its own, so that neither the command's scoring nor
        # the app's GUI thread waits (the processes die with the server, which
        # ends with this process, or with the last drawers closed)
        self._waiting = []
        hold_server()
        try:
            threading.Thread(
                target=self._start, args=(n, context), name="shrec-drawers", daemon=True
            ).start()
        except RuntimeError:  # no thread to be had (the process's limit): no drawers
            pool, self._pool, self._starting = self._pool, None, False
            pool.shutdown(wait=False)
            let_go_of_server()
            raise

    def _start(self, n: int, server) -> None:
        """Start the processes (a task each), then hand them the jobs submitted
        meanwhile.  A first process is forked and waited for: the server's
        import done, the pool starts its processes at once (a pool holds its
        lock while a process starts, and :meth:`close` would wait for the
        import).  A failure to start marks the drawers broken."""

        try:
            first = server.Process(target=os.getpid, daemon=True)
            first.start()
            first.join()
            with self._lock:
                if self._pool is not None:
                    for _ in range(n):
                        self._pool.submit(os.getpid)
        except Exception as exc:  # closed meanwhile (the server ended: EOFError), or no process
            with self._lock:
                self._broken = True
                self.start_error = exc
        with self._lock:
            waiting, self._waiting = self._waiting or [], None
            self._starting = False
            closed = self._pool is None
        if closed:  # close() has been and left the server to this thread
            let_go_of_server()
        for job, mine in waiting:
            self._forward(job, mine)

    def _forward(self, job: FigureJob, mine: Future) -> None:
        """``mine`` gets what the pool's future of ``job`` gets (closed or
        broken drawers: BrokenProcessPool, the job then drawn by its caller)."""
        from concurrent.futures.process import BrokenProcessPool

        if not mine.set_running_or_notify_cancel():
            return
        try:
            with self._lock:
                if self._pool is None or self._broken:
                    raise BrokenProcessPool("the drawing processes did not start")
                theirs = self._pool.submit(figure_files, job)
        except (RuntimeError, BrokenProcessPool, OSError) as exc:
            mine.set_exception(BrokenProcessPool(str(exc)))
            return

        def copy(done: Future) -> None:
            if done.cancelled():
                mine.set_exception(BrokenProcessPool("cancelled"))
            elif (error := done.exception()) is not None:
                mine.set_exception(error)
            else:
                mine.set_result(done.result())

        theirs.add_done_callback(copy)

    @property
    def running(self) -> bool:
        """Whether jobs go to the processes: not closed, not broken (a
        process that could not start, or one killed: the pool then ends
        the others)."""
        pool = self._pool
        return pool is not None and not self._broken and not getattr(pool, "_broken", False)

    def submit(self, job: FigureJob):
        """A future of :func:`figure_files` of ``job``; the same one for a
        job equal to one submitted before (the app starts a report's figures
        when its folder is asked for, and the export submits them again).
        Drawers that could not start raise BrokenProcessPool."""
        from concurrent.futures import Future
        from concurrent.futures.process import BrokenProcessPool

        key = pickle.dumps(job, pickle.HIGHEST_PROTOCOL)
        with self._lock:  # the app's GUI thread and its export's file thread both submit
            future = self._submitted.get(key)
            if future is None or future.cancelled() or (future.done() and future.exception()):
                if self._pool is None or self._broken:  # closed, or never started
                    raise BrokenProcessPool("the drawing processes are not running")
                if self._waiting is not None:  # the processes are starting
                    future = Future()
                    self._waiting.append((job, future))
                else:
                    future = self._pool.submit(figure_files, job)
                self._submitted[key] = future
                while len(self._submitted) > MEMORY:  # the oldest forgotten (the app keeps them)
                    del self._submitted[next(iter(self._submitted))]
        return future

    def close(self) -> None:
        """End the processes at once: their jobs are drawn, or no longer
        wanted (an error, a signal).  Killed, not asked to stop: a process
        ending on its own empties its interpreter first (a second or so of
        the command's time)."""
        with self._lock:  # no process starts after this: every one is in the list
            pool, self._pool = self._pool, None
            waiting, self._waiting = self._waiting or [], None
            processes = list(((pool._processes if pool else None) or {}).values())
            # the server let go of here, unless the start's thread still runs
            # (waiting for the server's import: it lets go when it is done)
            let_go = self._server and not self._starting
        if pool is None:
            return
        for _, future in waiting:  # jobs still waiting for the processes: not wanted now
            future.cancel()
        stop = getattr(pool, "kill_workers", None)  # Python 3.14
        if stop is not None:
            stop()
        else:
            pool.shutdown(wait=False, cancel_futures=True)
            for p in processes:
                p.kill()
            for p in processes:
                p.join()
        if let_go:
            let_go_of_server()

    def __enter__(self) -> FigureDrawers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def start_drawers(workers: int | None = None, *, from_server: bool = False) -> FigureDrawers | None:
    """Drawers (see :class:`FigureDrawers`), or None where no process can be
    started (the figures are then drawn in this process)."""
    try:
        return FigureDrawers(workers, from_server=from_server)
    except (OSError, RuntimeError):  # no process, or no thread to start them
        return None


def draw_figures(
    jobs: Sequence[FigureJob], drawers: FigureDrawers | None = None
) -> Callable[[], dict[str, bytes]]:
    """Start drawing ``jobs`` in ``drawers`` (None: nothing starts now, they
    are drawn in this process when asked for); the function returning every
    job's files, in the jobs' order, once drawn.  A job whose process
    stopped (killed, out of memory) or whose drawers were closed meanwhile
    (the app's, a contest closed) is drawn in this process."""
    from concurrent.futures import CancelledError
    from concurrent.futures.process import BrokenProcessPool

    futures: list = [None] * len(jobs)
    if drawers is not None:
        # the heaviest first: the last one started is not the one all wait for
        for i in sorted(range(len(jobs)), key=lambda i: -jobs[i].weight):
            try:
                futures[i] = drawers.submit(jobs[i])
            except BrokenProcessPool:  # drawn here
                break

    def files() -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for job, future in zip(jobs, futures):
            try:
                out.update(future.result() if future is not None else figure_files(job))
            except (BrokenProcessPool, CancelledError):
                out.update(figure_files(job))
        return out

    return files
