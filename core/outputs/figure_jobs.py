"""The report's figures as jobs, drawn by helper processes.

The figures were four fifths of a report's time: four figures, each laid
out and saved as PDF, SVG and PNG by matplotlib, in Python, one after the
other.  Here each figure is a :class:`FigureJob`: the figure function of
:mod:`.figures`, what it draws from (:class:`FigureRun`: the few numbers of
each run's results a report figure shows, small whatever the number of
queries) and its settings; :func:`figure_files` draws it and gives the bytes
of its files.  :class:`FigureDrawers` are helper processes (spawned, Qt-free,
dying with their parent: :mod:`shrec_eval.model.parent_watch`) that the
command line starts before it scores (their import of matplotlib is done by
the time the figures are wanted) and the app when a report is asked for;
they draw while the caller makes the tables and the gallery.  Without
drawers the jobs run in this process, one after the other: the same
function, the same bytes.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..model.parent_watch import die_with_parent
from .figure_style import figure_bytes
from .palette import REPORT_FIGURES

#: drawing processes: one per core, at most one per figure of a report
WORKERS = max(1, min(len(REPORT_FIGURES), os.cpu_count() or 1))


@dataclass(frozen=True)
class FigureCurve:
    """A curve as the report's figures draw it: its x values and its mean."""

    x: np.ndarray
    mean: np.ndarray


@dataclass(frozen=True)
class FigureRun:
    """What the report's figures show of a run's results (a RunResult, read
    the same way): its name, measure keys and options, its means, class
    means and the mean of each curve.  No per-query values: sending it to a
    drawing process costs little whatever the number of queries."""

    run_name: str
    keys: list[str]
    options: object
    means: dict[str, float | None]
    per_class: dict[str, dict]
    curves: dict[str, FigureCurve] = field(default_factory=dict)

    @classmethod
    def of(cls, result) -> FigureRun:
        return cls(
            result.run_name,
            list(result.keys),
            result.options,
            dict(result.means),
            result.per_class,
            {k: FigureCurve(c.x, c.mean) for k, c in result.curves.items()},
        )

    def mean(self, key: str) -> float | None:
        return self.means[key]


@dataclass(frozen=True)
class FigureJob:
    """One figure of a report: ``figures/NAME.FMT`` in each of ``formats``,
    drawn by ``draw(*args, **kwargs)`` (a figure function of :mod:`.figures`)."""

    name: str
    draw: Callable
    args: tuple
    kwargs: dict
    formats: tuple[str, ...]
    #: about how long it draws (the heaviest are started first)
    weight: float = 1.0


def figure_files(job: FigureJob) -> dict[str, bytes]:
    """``figures/NAME.FMT`` -> bytes of a job's figure: drawn (laid out) once,
    saved in every format."""
    fig = job.draw(*job.args, **job.kwargs)
    return {f"figures/{job.name}.{fmt}": figure_bytes(fig, fmt) for fmt in job.formats}


def _ready() -> None:
    """A drawing process's start: its life tied to its parent's, and
    matplotlib's drawing and file modules imported now (about a second),
    while its parent still scores."""
    die_with_parent()
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.backends.backend_pdf  # noqa: F401
    import matplotlib.backends.backend_svg  # noqa: F401
    import matplotlib.figure  # noqa: F401
    import matplotlib.textpath  # noqa: F401

    from . import figures  # noqa: F401 - late: the jobs' functions (figures imports this module)


class FigureDrawers:
    """Helper processes drawing figure jobs (``workers`` of them, default
    :data:`WORKERS`), started at once: make them before the work that their
    start should overlap.  Ended by :meth:`close` (or ``with``)."""

    def __init__(self, workers: int | None = None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        n = workers or WORKERS
        spawn = multiprocessing.get_context("spawn")  # never fork a process running Qt
        self._pool = ProcessPoolExecutor(n, mp_context=spawn, initializer=_ready)
        self._submitted: dict[bytes, object] = {}
        # the processes start with a task each (in this thread: on Linux they die
        # with it); their import of matplotlib runs meanwhile
        for _ in range(n):
            self._pool.submit(os.getpid)

    def submit(self, job: FigureJob):
        """A future of :func:`figure_files` of ``job``; the same one for a
        job equal to one submitted before (the app starts a report's figures
        when its folder is asked for, and the export submits them again)."""
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
