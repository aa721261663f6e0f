"""Scoring off the GUI thread.

A :class:`ScoringWorker` lives in a QThread (worker object + moveToThread,
as superqt's ``new_worker_qthread``); the GUI asks it for work with queued
signals and it answers with signals.  Reading files and scoring both run
there; the engine gets a progress callback and a ``should_stop`` that reads
a flag the GUI sets (Orange3's TaskState idea), so Cancel takes effect
between two blocks of queries.
"""

from __future__ import annotations

import os
import threading
import traceback
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QThread, Signal, Slot
from shrec_eval import Cancelled, EvalOptions, evaluate, query_detail
from shrec_eval.errors import ContestFileError, ShrecEvalError
from shrec_eval.formats.matrix import RESPONSIVE_BLOCK_VALUES
from shrec_eval.readers import load_assessment, load_run
from shrec_eval.stats import compare


@dataclass
class AssessmentSpec:
    path: str
    queries: str | None = None
    graded: bool = False
    collection_size: int | None = None
    collection: str | None = None
    format: str | None = None
    normalize_ids: bool = True

    def load(self):
        size = self.collection_size if (self.format or _sniff(self.path)) == "qrels" else None
        return load_assessment(
            self.path,
            format=self.format,
            queries=self.queries,
            graded=self.graded,
            collection_size=size,
            collection=self.collection,
            normalize_ids=self.normalize_ids,
        )


def _sniff(path):
    from shrec_eval.readers import sniff

    try:
        return sniff(path)
    except ContestFileError:
        return None


@dataclass
class RunSpec:
    key: int
    path: str
    name: str | None = None
    format: str | None = None
    variant: str | None = None
    trec_order: bool = False

    def cache_key(self):
        """What the loaded run depends on, the file's size and time included,
        so that a file changed on disk is read again."""
        return (
            self.path,
            self.format,
            self.variant,
            self.trec_order,
            self.name,
            _fingerprint(self.path),
        )


def _fingerprint(path: str):
    try:
        st = os.stat(path)
        if os.path.isdir(path):
            entries = [e.stat() for e in os.scandir(path) if e.is_file()]
            return (
                len(entries),
                max((e.st_mtime_ns for e in entries), default=0),
                sum(e.st_size for e in entries),
            )
        return (st.st_size, st.st_mtime_ns)
    except OSError:
        return None


@dataclass
class Job:
    """Score ``runs`` against the assessment (loading it first when
    ``assessment`` is given)."""

    runs: list[RunSpec]
    options: EvalOptions
    assessment: AssessmentSpec | None = None
    generation: int = 0
    stop: threading.Event = field(default_factory=threading.Event)


def user_message(exc: BaseException) -> str:
    if isinstance(exc, ShrecEvalError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")
    return f"unexpected {type(exc).__name__}: {exc}"


class ScoringWorker(QObject):
    """Loads and scores in its own thread; every answer is a signal."""

    assessmentLoaded = Signal(int, object, object)  # generation, spec, Assessment
    assessmentFailed = Signal(int, object, str)  # generation, spec, message
    runStarted = Signal(int, int, str)  # generation, run key, name
    progress = Signal(int, int, int, int)  # generation, run key, done, total
    runScored = Signal(int, int, object, object)  # generation, run key, RunResult, Run
    runFailed = Signal(int, int, str)  # generation, run key, message
    finished = Signal(int, int)  # generation, cancelled (0 or 1)
    detailReady = Signal(int, str, object)  # run key, query id, QueryDetail
    detailFailed = Signal(int, str, str)
    comparisonReady = Signal(int, object)  # request number, Comparison
    comparisonFailed = Signal(int, str)

    def __init__(self) -> None:
        super().__init__()
        self._assessment = None
        self._runs: dict = {}  # cache key -> Run
        self._by_key: dict = {}  # run key -> Run
        self._options = EvalOptions()

    @Slot(object)
    def run_job(self, job: Job) -> None:
        gen = job.generation
        stop = job.stop
        cancelled = False
        try:
            if job.assessment is not None:
                try:
                    a = job.assessment.load()
                except Exception as exc:  # noqa: BLE001 - reported to the user
                    self.assessmentFailed.emit(gen, job.assessment, user_message(exc))
                    return
                if stop.is_set():  # superseded: the GUI keeps what it had, and so do we
                    cancelled = True
                    return
                self._assessment = a
                self._runs.clear()
                self._by_key.clear()
                self.assessmentLoaded.emit(gen, job.assessment, a)
            if self._assessment is None:
                return
            self._options = job.options
            for spec in job.runs:
                if stop.is_set():
                    cancelled = True
                    break
                self.runStarted.emit(gen, spec.key, spec.name or spec.path)
                try:
                    run = self._runs.get(spec.cache_key())
                    if run is None:
                        run = load_run(
                            spec.path,
                            self._assessment,
                            format=spec.format,
                            variant=spec.variant,
                            trec_order=spec.trec_order,
                            name=spec.name,
                            # large ASCII matrices in blocks: the GUI thread
                            # gets the GIL between them
                            block_values=RESPONSIVE_BLOCK_VALUES,
                        )
                        self._runs[spec.cache_key()] = run
                    self._by_key[spec.key] = run
                    result = evaluate(
                        self._assessment,
                        run,
                        job.options,
                        progress=lambda d, t, k=spec.key: self.progress.emit(gen, k, d, t),
                        should_stop=stop.is_set,
                    )
                except Cancelled:
                    cancelled = True
                    break
                except Exception as exc:  # noqa: BLE001 - reported to the user
                    if not isinstance(exc, (ShrecEvalError, OSError)):
                        traceback.print_exc()
                    self.runFailed.emit(gen, spec.key, user_message(exc))
                    continue
                self.runScored.emit(gen, spec.key, result, run)
        finally:
            self.finished.emit(gen, int(cancelled or stop.is_set()))

    @Slot(int, str)
    def detail(self, key: int, query_id: str) -> None:
        run = self._by_key.get(key)
        if run is None or self._assessment is None:
            self.detailFailed.emit(key, query_id, "this run has not been scored")
            return
        try:
            d = query_detail(self._assessment, run, query_id, self._options)
        except Exception as exc:  # noqa: BLE001
            self.detailFailed.emit(key, query_id, user_message(exc))
            return
        self.detailReady.emit(key, query_id, d)

    @Slot(int, object, object, object)
    def compare(self, request: int, results, params, stop) -> None:
        """Significance tests of scored runs (shrec_eval.stats), off the GUI thread;
        ``stop`` (an Event) cancels between two pairs."""
        try:
            c = compare(results, should_stop=stop.is_set, **params)
        except Cancelled:
            self.comparisonFailed.emit(request, "cancelled")
            return
        except Exception as exc:  # noqa: BLE001 - reported to the user
            self.comparisonFailed.emit(request, user_message(exc))
            return
        self.comparisonReady.emit(request, c)

    @Slot(int)
    def forget(self, key: int) -> None:
        self._by_key.pop(key, None)


class ScoringController(QObject):
    """Owns the worker thread (parented, quit + wait on shutdown)."""

    submit = Signal(object)
    requestDetail = Signal(int, str)
    requestForget = Signal(int)
    requestComparison = Signal(int, object, object, object)

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.thread = QThread(parent)
        self.thread.setObjectName("shrec-scoring")
        self.worker = ScoringWorker()
        self.worker.moveToThread(self.thread)
        self.submit.connect(self.worker.run_job)
        self.requestDetail.connect(self.worker.detail)
        self.requestForget.connect(self.worker.forget)
        self.requestComparison.connect(self.worker.compare)
        self.thread.finished.connect(self.worker.deleteLater)
        self.thread.start()
        self.generation = 0
        self.busy = False
        self._jobs: dict[int, Job] = {}
        self._compare_stop = threading.Event()
        self.worker.finished.connect(self._done)

    def start(self, job: Job, *, supersede: bool = False) -> int:
        """Queue a job.  ``supersede`` (a new assessment) cancels every job
        not finished; otherwise a running re-score that the new job repeats
        is cancelled, and any other job (opening an assessment, reading
        other runs) finishes first while the new one waits behind it."""
        for old in self._jobs.values():
            if supersede or (old.assessment is None and _covers(job, old)):
                old.stop.set()
        self.generation += 1
        job.generation = self.generation
        self._jobs[job.generation] = job
        self.busy = True
        self.submit.emit(job)
        return self.generation

    def _done(self, gen: int, cancelled: int) -> None:
        self._jobs.pop(gen, None)
        self.busy = bool(self._jobs)

    def cancel(self) -> None:
        """Cancel every job not finished, and a running comparison."""
        for job in self._jobs.values():
            job.stop.set()
        self._compare_stop.set()

    def compare(self, request: int, results, params) -> None:
        """Ask for a comparison; one still running is cancelled."""
        self._compare_stop.set()
        self._compare_stop = threading.Event()
        self.requestComparison.emit(request, results, params, self._compare_stop)

    def shutdown(self) -> None:
        self.cancel()
        self.thread.quit()
        self.thread.wait()


def _covers(new: Job, running: Job) -> bool:
    """Whether the new job scores every run the running one scores."""
    keys = {s.key for s in new.runs}
    return all(s.key in keys for s in running.runs)
