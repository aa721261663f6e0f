"""The report's figures as jobs, drawn by helper processes.

The figures were four fifths of a report's time: four figures, each laid
out and saved as PDF, SVG and PNG by matplotlib, in Python, one after the
other.  Here each figure is a :class:`FigureJob`: the figure function of
:mod:`.figures`, what it draws from (:class:`FigureRun`: the few numbers of
each run's results a report figure shows, small whatever the number of
queries) and its settings; :func:`figure_files` draws it and gives the bytes
of its files.  :class:`FigureDrawers` are helper processes (Qt-free, forked
from a server process that imported matplotlib once for all of them, dying
with their parent: :mod:`shrec_eval.model.parent_watch`) that the
command line starts before it scores (their import of matplotlib is done by
the time the figures are wanted) and the app when a report is asked for;
they draw while the caller makes the tables and the gallery.  Without
drawers the jobs run in this process, one after the other: the same
function, the same bytes.
"""

from __future__ import annotations

import importlib
import os
import pickle
import sys
import threading
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


#: what a drawing process imports before it draws (about a second): matplotlib's
#: drawing and file modules and the jobs' functions
_PRELOAD = (
    "matplotlib.backends.backend_agg",
    "matplotlib.backends.backend_pdf",
    "matplotlib.backends.backend_svg",
    "matplotlib.figure",
    "matplotlib.textpath",
    "shrec_eval.outputs.figures",
)


def _ready() -> None:
    """A drawing process's start: its life tied to its parent's, and
    :data:`_PRELOAD` imported (already, when it was forked from the server
    that imported them), while its parent still scores."""
    die_with_parent()
    for name in _PRELOAD:
        importlib.import_module(name)


def _context():
    """How the drawing processes start: forked from multiprocessing's fork
    server, a process that imported :data:`_PRELOAD` once for all of them
    (and stays, Qt-free, till its parent ends: a second report's processes
    start at once), where there is one (not in the PyInstaller bundle); else
    spawned, each importing them.  Never forked from the caller, which may
    run Qt."""
    import multiprocessing

    frozen = getattr(sys, "frozen", False)  # a bundle's processes: spawned, as it runs them
    if frozen or "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(_PRELOAD))
    return ctx


class FigureDrawers:
    """Helper processes drawing figure jobs (``workers`` of them, default
    :data:`WORKERS`), started at once: make them before the work that their
    start should overlap.  Ended by :meth:`close` (or ``with``)."""

    def __init__(self, workers: int | None = None) -> None:
        from concurrent.futures import ProcessPoolExecutor

        n = workers or WORKERS
        self._pool = ProcessPoolExecutor(n, mp_context=_context(), initializer=_ready)
        self._submitted: dict[bytes, object] = {}
        self._start_failed: Exception | None = None
        # the processes start with a task each, on a thread of their own: a
        # process from the fork server is there once the server has imported
        # matplotlib, and the caller goes on (scores) meanwhile
        self._starting = threading.Thread(
            target=self._start, args=(n,), name="shrec-figure-drawers", daemon=True
        )
        self._starting.start()

    def _start(self, n: int) -> None:
        try:
            for _ in range(n):
                self._pool.submit(os.getpid)
        except Exception as exc:  # noqa: BLE001 - told by submit: the jobs drawn in the caller
            self._start_failed = exc

    def submit(self, job: FigureJob):
        """A future of :func:`figure_files` of ``job``; the same one for a
        job equal to one submitted before (the app starts a report's figures
        when its folder is asked for, and the export submits them again)."""
        if self._start_failed is not None:  # no process: the job is drawn in the caller
            # late: process pools only where figures are drawn (not for --json)
            from concurrent.futures.process import BrokenProcessPool

            raise BrokenProcessPool(f"no drawing process: {self._start_failed}")
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
        self._starting.join()  # every process started is known, and ended here
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
    # late: process pools only where figures are drawn (not for --json)
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
