"""The report's figures as jobs, drawn by helper processes.

The figures were four fifths of a report's time: four figures, each laid
out and saved as PDF, SVG and PNG by matplotlib, in Python, one after the
other.  Here each figure is a :class:`~.figure_data.FigureJob` (made by
:func:`.figures.report_figure_jobs`): a drawing function of
:mod:`.figure_plots`, what it draws from (:class:`~.figure_data.FigureRun`: the few numbers of
each run's results a report figure shows, small whatever the number of
queries) and its settings; :func:`figure_files` draws it and gives the bytes
of its files.  :class:`FigureDrawers` are helper processes (spawned, Qt-free,
dying with their parent: :mod:`shrec_eval.model.parent_watch`) that the
command line starts before it scores (their import of matplotlib is done by
the time the figures are wanted) and the app when a report is asked for;
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
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..model.parent_watch import die_with_parent
from .figure_data import FigureJob
from .figure_style import figure_bytes
from .palette import REPORT_FIGURES

if TYPE_CHECKING:  # annotations only (the pool is imported when made)
    from concurrent.futures import Future, ProcessPoolExecutor

#: drawing processes: one per core, at most one per figure of a report
WORKERS = max(1, min(len(REPORT_FIGURES), os.cpu_count() or 1))


def figure_files(job: FigureJob) -> dict[str, bytes]:
    """``figures/NAME.FMT`` -> bytes of a job's figure: drawn (laid out) once,
    saved in every format."""
    fig = job.draw(*job.args, **job.kwargs)
    return {f"figures/{job.name}.{fmt}": figure_bytes(fig, fmt) for fmt in job.formats}


def _ready() -> None:
    """A drawing process's start: its life tied to its parent's, and
    matplotlib's drawing and file modules imported now (about a second),
    while its parent still scores (the jobs' functions, :mod:`.figure_plots`,
    come with the first job)."""
    die_with_parent()
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.backends.backend_pdf  # noqa: F401
    import matplotlib.backends.backend_svg  # noqa: F401
    import matplotlib.figure  # noqa: F401
    import matplotlib.textpath  # noqa: F401


class FigureDrawers:
    """Helper processes drawing figure jobs (``workers`` of them, default
    :data:`WORKERS`), started at once: make them before the work that their
    start should overlap.  Ended by :meth:`close` (or ``with``)."""

    def __init__(self, workers: int | None = None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        n = workers or WORKERS
        spawn = multiprocessing.get_context("spawn")  # never fork a process running Qt
        self._pool: ProcessPoolExecutor | None
        self._pool = ProcessPoolExecutor(n, mp_context=spawn, initializer=_ready)
        self._submitted: dict[bytes, Future] = {}
        # the processes start with a task each (in this thread: on Linux they die
        # with it); their import of matplotlib runs meanwhile
        for _ in range(n):
            self._pool.submit(os.getpid)

    def submit(self, job: FigureJob):
        """A future of :func:`figure_files` of ``job``; the same one for a
        job equal to one submitted before (the app starts a report's figures
        when its folder is asked for, and the export submits them again)."""
        assert self._pool is not None, "the drawers were closed"
        key = pickle.dumps(job, pickle.HIGHEST_PROTOCOL)
        future = self._submitted.get(key)
        if future is None or future.cancelled() or (future.done() and future.exception()):
            future = self._submitted[key] = self._pool.submit(figure_files, job)
        return future

    def close(self) -> None:
        """End the processes at once: their jobs are drawn, or no longer
        wanted (an error, a signal).  Killed, not asked to stop: a process
        ending on its own empties its interpreter first (a second or so of
        the command's time)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        stop = getattr(pool, "kill_workers", None)  # Python 3.14
        if stop is not None:
            stop()
            return
        processes = list((pool._processes or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            p.kill()
        for p in processes:
            p.join()

    def __enter__(self) -> FigureDrawers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def start_drawers(workers: int | None = None) -> FigureDrawers | None:
    """Drawers, or None where no process can be started (the figures are
    then drawn in this process)."""
    try:
        return FigureDrawers(workers)
    except OSError:
        return None


def draw_figures(
    jobs: Sequence[FigureJob], drawers: FigureDrawers | None = None
) -> Callable[[], dict[str, bytes]]:
    """Start drawing ``jobs`` in ``drawers`` (None: nothing starts now, they
    are drawn in this process when asked for); the function returning every
    job's files, in the jobs' order, once drawn.  A job whose process
    stopped (killed, out of memory) is drawn in this process."""
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
            except BrokenProcessPool:
                out.update(figure_files(job))
        return out

    return files
