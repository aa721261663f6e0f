"""Scoring off the GUI thread.

A :class:`ScoringWorker` lives in a QThread (worker object + moveToThread,
as superqt's ``new_worker_qthread``); the GUI asks it for work with queued
signals and it answers with signals.  Reading files and scoring both run
there; the engine gets a progress callback and a ``should_stop`` that reads
a flag the GUI sets (Orange3's TaskState idea), so Cancel takes effect
between two blocks of queries.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from dataclasses import dataclass, field, replace

from pyqtgraph.util.garbage_collector import GarbageCollector
from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot
from shrec_eval import Cancelled, EvalOptions
from shrec_eval.contest import AssessmentSource, RunSource
from shrec_eval.errors import ContestFileError, FileAccessError, FormatError, ShrecEvalError
from shrec_eval.reading.contest_fields import is_contest_file
from shrec_eval.reading.formats.source import KINDS
from shrec_eval.reading.readers import (
    ASSESSMENT_FORMATS,
    RUN_FORMATS,
    classify_path,
    detect_run_format,
    sniff_all,
)
from shrec_eval.scoring.confusion import first_tier_confusion
from shrec_eval.scoring.memory import release_freed_blocks
from shrec_eval.scoring.stats import compare
from shrec_eval.service import RunCache, effective_options, run_stamp, score_runs, user_message

from .ranked_data import QueryLists, RunList, class_names, run_list

#: a job's defects (exceptions that are not a reader's or the system's
#: words) for a developer's log; the user sees the message, never stderr
log = logging.getLogger(__name__)

#: seconds between two reading steps told to the window, at least (a reader's
#: steps, a megabyte or a file, come faster than a progress bar shows them)
PROGRESS_EVERY = 0.05


@dataclass
class Job:
    """Score ``runs`` (run key, source) against the assessment (loading it
    first when ``assessment`` is given).  ``only_changed`` (F5): a run this
    worker scored already with these options, whose file has not changed
    since, is left as it is (told by ``unchanged``)."""

    runs: list[tuple[int, RunSource]]
    options: EvalOptions
    assessment: AssessmentSource | None = None
    #: the assessment already read from ``assessment`` (read_assessment), or None
    loaded: object = None
    generation: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    only_changed: bool = False


def read_assessment(source: AssessmentSource, profile):
    """The assessment of ``source`` read by the rules of ``profile``: in the
    scoring thread when a contest opens, or on a file thread first (a file
    that cannot be read is said before any question about it)."""
    return source.load(profile)


def classify(paths) -> list[tuple[str, str]]:
    """(path, kind) of files to open, told apart by content: "session" (a
    .json), an assessment ("cla", "qrels") or a run format; a folder of rank
    lists.  Pipes and devices are refused (the app opens files and folders).
    Reads the files, so it runs off the GUI thread (:class:`FileTasks`)."""
    return [(p, fits[0]) for p, fits in _formats(paths)]


def _formats(paths) -> list[tuple[str, list[str]]]:
    """(path, every kind its content fits, the likeliest first): see classify."""
    out = []
    for p in map(str, paths):
        what = classify_path(p)
        if what == "missing":
            raise FileAccessError(p, "cannot read the file: there is no such file or folder")
        if what not in ("file", "folder"):  # never opened here (d19)
            raise ContestFileError(
                p,
                f"this is {KINDS[what]}; the app opens regular files and folders "
                "(the command line reads a pipe once)",
            )
        fits = ["session"] if is_contest_file(p) else sniff_all(p)
        if not fits:
            raise _unknown(p)
        out.append((p, fits))
    return out


def dropped_order(paths, contest_open: bool) -> list[str] | None:
    """Files dropped together (no order meant), read off the GUI thread: in
    the order contest_roles takes them, the assessment among them first (a
    session: as they are); None: no assessment among them (runs to add).  A
    file that can only be an assessment (a .cla) goes before one that reads
    as a run too (a matrix of four whole-number columns reads as qrels); such
    a file with no other assessment is the assessment when no contest is
    open, and with one open which it is cannot be told: ContestFileError."""
    found = _formats(paths)
    if any(fits == ["session"] for _, fits in found):
        return [p for p, _ in found]
    sure = [p for p, fits in found if set(fits) <= set(ASSESSMENT_FORMATS)]
    maybe = [p for p, fits in found if fits[0] in ASSESSMENT_FORMATS]
    first = (sure or maybe or [None])[0]
    if first is None:
        return None
    if not sure and contest_open:
        fits = dict(found)[first]
        runs = [RUN_FORMATS[k] for k in fits if k in RUN_FORMATS]
        raise ContestFileError(
            first,
            f"this reads both as an assessment ({ASSESSMENT_FORMATS[fits[0]]}) and as a run "
            f"({'; '.join(runs)}): File > Open assessment… opens it as the assessment, "
            "File > Add runs… adds it as a run",
        )
    return [first] + [p for p, _ in found if p != first]


def _unknown(path: str) -> ContestFileError:
    """Why a file is neither an assessment nor a run, with the line the
    readers looked at and what it holds (as the command line says it)."""
    what = (
        "this is neither an assessment (.cla, qrels) "
        "nor a run (matrix, TREC run, folder of rank lists, .npy or .npz features)"
    )
    try:
        detect_run_format(path)
    except FormatError as exc:  # "...was expected; line 1 reads '...' (4 fields)"
        seen = exc.message.split("; ", 1)[1] if "; " in exc.message else ""
        return ContestFileError(path, what + (f"; {seen}" if seen else ""), line=exc.line)
    except ShrecEvalError:
        pass
    return ContestFileError(path, what)


class ScoringWorker(QObject):
    """Loads and scores in its own thread; every answer is a signal."""

    assessmentLoaded = Signal(int, object, object)  # generation, AssessmentSource, Assessment
    assessmentFailed = Signal(int, object, str)  # generation, AssessmentSource, message
    runStarted = Signal(int, int, str)  # generation, run key, name
    reading = Signal(int, int, int, int)  # generation, run key, read, total (bytes, files...)
    progress = Signal(int, int, int, int)  # generation, run key, queries scored, total
    unchanged = Signal(int, int)  # generation, runs of the job left as they were (F5)
    runScored = Signal(int, int, object, object)  # generation, run key, RunResult, Run
    runFailed = Signal(int, int, str)  # generation, run key, message
    runAmbiguous = Signal(int, int, str, object)  # generation, run key, message, formats
    finished = Signal(int, int)  # generation, cancelled (0 or 1)
    listsReady = Signal(int, object)  # request number, QueryLists
    confusionReady = Signal(int, str, object)  # run key, query class, FirstTierConfusion
    confusionFailed = Signal(int, str, str)
    comparisonReady = Signal(int, object)  # request number, Comparison
    comparisonFailed = Signal(int, str)

    def __init__(self) -> None:
        super().__init__()
        self._assessment = None
        self._cache = RunCache()  # runs read, for scoring again with other options
        self._by_key: dict = {}  # run key -> Run
        self._stamps: dict = {}  # run key -> what its last result depends on (run_stamp)
        self._options = EvalOptions()
        self._classes = None  # (assessment, class of each item): for the ranked lists

    @Slot(object)
    def run_job(self, job: Job) -> None:
        """Load the assessment (when the job has one), then read and score the
        job's runs, each answered by a signal.  Never raises: an exception
        (a defect too) fails the runs not answered yet, with its message
        (the window names each run); ``finished`` always ends the job."""
        gen = job.generation
        stop = job.stop
        cancelled = False
        answered: set[int] = set()  # keys answered
        try:
            if job.assessment is not None:
                try:
                    a = job.loaded
                    if a is None:
                        a = read_assessment(job.assessment, job.options.rules)
                except Exception as exc:  # noqa: BLE001 - reported to the user
                    self.assessmentFailed.emit(gen, job.assessment, user_message(exc))
                    return
                if stop.is_set():  # superseded: the GUI keeps what it had, and so do we
                    cancelled = True
                    return
                self._assessment = a
                self._cache.clear()
                self._by_key.clear()
                self._stamps.clear()
                self.assessmentLoaded.emit(gen, job.assessment, a)
            if self._assessment is None:
                return
            # the ranked lists and confusions follow the profile as the scores do
            self._options = effective_options(job.options)
            runs = job.runs
            if job.only_changed:
                runs = [(k, s) for k, s in runs if self._stamps.get(k) != run_stamp(s, job.options)]
                if len(runs) < len(job.runs):
                    self.unchanged.emit(gen, len(job.runs) - len(runs))
                answered.update(k for k, _ in job.runs)
                answered.difference_update(k for k, _ in runs)
            keys = [key for key, _ in runs]
            # the scoring service of every front end (shrec_eval.service): each
            # run read with the profile's reader settings, then scored; text is
            # parsed a chunk at a time by numpy loops that release the GIL
            # each run read under no name: the app names its runs itself
            # (RunEntry.name: the name given, else this reader's own, a TREC
            # run's tag), so a name taken back shows the reader's again
            outcomes = score_runs(
                self._assessment,
                [replace(source, name=None) for _, source in runs],
                job.options,
                cache=self._cache,
                errors="collect",
                started=lambda i, name: self.runStarted.emit(gen, keys[i], name),
                reading=_every(lambda i, d, t: self.reading.emit(gen, keys[i], d, t)),
                progress=lambda i, d, t: self.progress.emit(gen, keys[i], d, t),
                should_stop=stop.is_set,
            )
            for o in outcomes:
                key = keys[o.index]
                answered.add(key)
                if o.candidates:  # the user is asked which format
                    self.runAmbiguous.emit(gen, key, o.error, o.candidates)
                elif o.error is not None:
                    if not isinstance(o.exception, (ShrecEvalError, OSError, type(None))):
                        log.debug("run %s: a defect", key, exc_info=o.exception)
                    self._stamps.pop(key, None)
                    self.runFailed.emit(gen, key, o.error)
                else:
                    self._by_key[key] = o.run
                    self._stamps[key] = run_stamp(runs[o.index][1], job.options)
                    for curve in o.result.curves.values():
                        curve.make_means()  # here, not by the window when a tab draws it
                    self.runScored.emit(gen, key, o.result, o.run)
        except Cancelled:
            cancelled = True
        except Exception as exc:  # noqa: BLE001 - the job's guard: said in the window
            if not isinstance(exc, (ShrecEvalError, OSError)):
                log.debug("scoring job %s: a defect", gen, exc_info=exc)
            self._fail(gen, [k for k, _ in job.runs if k not in answered], user_message(exc))
        finally:
            release_freed_blocks()  # the memory the job freed, back to the system
            self._emit(self.finished, gen, int(cancelled or stop.is_set()))

    def _fail(self, gen: int, keys, message: str) -> None:
        """The runs ``keys`` failed with ``message`` (the window names each)."""
        for key in keys:
            self._stamps.pop(key, None)
            self._emit(self.runFailed, gen, key, message)

    @staticmethod
    def _emit(signal, *args) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:  # the window (and the receiver) went away meanwhile
            pass

    @Slot(int, str, object, object)
    def lists(self, request: int, query_id: str, runs, stop) -> None:
        """The ranked list of one query in each run (key, name) of ``runs``,
        with the ids and classes of its items; ``stop`` (an Event) set: a
        newer request came, this one is dropped."""
        a = self._assessment
        if a is not None and (self._classes is None or self._classes[0] is not a):
            self._classes = (a, class_names(a))
        out = []
        for key, name in runs:
            if stop.is_set():
                return
            run = self._by_key.get(key)
            if run is None or a is None:
                out.append(RunList.failed(key, name, "this run has not been scored"))
                continue
            try:
                out.append(run_list(a, run, key, name, query_id, self._options, self._classes[1]))
            except Exception as exc:  # noqa: BLE001 - reported to the user
                out.append(RunList.failed(key, name, user_message(exc)))
        self.listsReady.emit(request, QueryLists(query_id, tuple(out)))

    @Slot(int, str)
    def confusion(self, key: int, query_class: str) -> None:
        """The classes filling the first tiers of one class's queries in one run."""
        run = self._by_key.get(key)
        if run is None or self._assessment is None:
            self.confusionFailed.emit(key, query_class, "this run has not been scored")
            return
        try:
            c = first_tier_confusion(self._assessment, run, query_class, self._options)
        except Exception as exc:  # noqa: BLE001
            self.confusionFailed.emit(key, query_class, user_message(exc))
            return
        self.confusionReady.emit(key, query_class, c)

    @Slot(int, object, object, object)
    def compare(self, request: int, results, params, stop) -> None:
        """Significance tests of scored runs (shrec_eval.scoring.stats), off the GUI thread;
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
        self._stamps.pop(key, None)

    @Slot(int, object)
    def remember(self, key: int, run) -> None:
        """A run taken out and brought back (undo): its ranked lists again."""
        self._by_key[key] = run


def _every(fn):
    """``fn(i, done, total)`` at most once every :data:`PROGRESS_EVERY`
    seconds for one ``i`` (a run's first and last calls always)."""
    last = [None, 0.0]

    def call(i: int, done: int, total: int) -> None:
        now = time.monotonic()
        if i != last[0] or done >= total or now - last[1] >= PROGRESS_EVERY:
            last[0], last[1] = i, now
            fn(i, done, total)

    return call


def collect_garbage_on_the_gui_thread() -> None:
    """Python's cyclic garbage collector runs in whichever thread happens to
    allocate.  When it frees Qt objects (a closed window's widgets) in the
    worker thread, that thread holds Qt's object lock while waiting for the
    GIL, and the GUI thread deleting a widget holds the GIL while waiting for
    that lock: the app freezes (seen in the GUI tests: QObject's destructor in
    the worker against shiboken's deletion in the main thread).  pyqtgraph's
    GarbageCollector turns automatic collection off and collects on a timer of
    the GUI thread instead; installed once per application.  Automatic
    collection also froze the GUI thread alone: run by an allocation inside
    PySide's disconnect callback, while Qt holds a lock of its mutex pool, it
    freed one of pyqtgraph's menus (Python-owned QMenus) whose actions' lock
    hashed to the same mutex (seen in the GUI tests: ``QObject::~QObject``
    under ``QObject::disconnect``)."""
    app = QCoreApplication.instance()
    if app is not None and getattr(app, "_gui_thread_gc", None) is None:
        app._gui_thread_gc = GuiThreadCollector(interval=0.5)
    if app is not None and gc.isenabled():
        gc.disable()


#: Python's collection thresholds as this module found them
_THRESHOLDS = gc.get_threshold()


class GuiThreadCollector(GarbageCollector):
    """pyqtgraph's collector on a GUI-thread timer, with automatic collection
    off for good: its first threshold set to 0 as well (pyqtgraph's timer
    keeps the thresholds it found, and collects by them), so that a library
    turning collection back on (dask's ``disable_gc``, around its array
    slicing, re-enables it on exit whenever it was on when dask was
    imported, whatever the state at entry) cannot make it run in whichever
    thread allocates; the timer also turns it off again."""

    def __init__(self, interval: float = 1.0, debug: bool = False) -> None:
        super().__init__(interval, debug)
        self.threshold = _THRESHOLDS  # Python's, whatever an earlier collector set
        gc.set_threshold(0, *_THRESHOLDS[1:])

    def check(self) -> None:
        if gc.isenabled():
            gc.disable()
        super().check()


class ScoringThread(QObject):
    """Owns the worker thread (parented, quit + wait on shutdown)."""

    submit = Signal(object)
    requestLists = Signal(int, str, object, object)
    requestConfusion = Signal(int, str)
    requestForget = Signal(int)
    requestRemember = Signal(int, object)
    requestComparison = Signal(int, object, object, object)

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        collect_garbage_on_the_gui_thread()
        self.thread = QThread(parent)
        self.thread.setObjectName("shrec-scoring")
        self.worker = ScoringWorker()
        self.worker.moveToThread(self.thread)
        self.submit.connect(self.worker.run_job)
        self.requestLists.connect(self.worker.lists)
        self.requestConfusion.connect(self.worker.confusion)
        self.requestForget.connect(self.worker.forget)
        self.requestRemember.connect(self.worker.remember)
        self.requestComparison.connect(self.worker.compare)
        self.thread.finished.connect(self.worker.deleteLater)
        self.thread.start()
        self.generation = 0
        self.busy = False
        self._jobs: dict[int, Job] = {}
        self._compare_stop = threading.Event()
        self._lists_stop = threading.Event()
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

    def lists(self, request: int, query_id: str, runs) -> None:
        """Ask for one query's ranked lists; an older request not answered
        yet is dropped."""
        self._lists_stop.set()
        self._lists_stop = threading.Event()
        self.requestLists.emit(request, query_id, runs, self._lists_stop)

    def shutdown(self) -> None:
        self.cancel()
        self.thread.quit()
        self.thread.wait()


def _covers(new: Job, running: Job) -> bool:
    """Whether the new job scores every run the running one scores."""
    keys = {k for k, _ in new.runs}
    return all(k in keys for k, _ in running.runs)
