"""The contest the window shows, and the jobs that score it.

:class:`ContestController` owns the assessment, the engine options, the
runs (by key: a key names one run for as long as it is open, whatever
failed to load or is sorted where), the job queue of the scoring thread and
the results; it emits what changed and the tabs read it back.  Files are
opened off the GUI thread only: in the scoring worker or a FileTasks thread.

Here: the signals, the state and the edits of the runs (undoable).  Its
other parts: contest_files.py (opening, sessions, closing), job_queue.py
(the scoring thread's jobs and their answers), run_entry.py (one run)."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.options import EvalOptions
from shrec_eval.outputs.palette import RunLook, run_looks
from shrec_eval.service import effective_options

from ..models.tables import plural
from ..workers.file_tasks import FileTasks
from ..workers.scoring import Job, ScoringThread
from ..workers.shapes import ShapesService
from .contest_files import ContestFiles
from .job_queue import JobQueue
from .run_entry import RunEntry
from .undo import UndoHistory, undoable

#: how each matrix order reads matrices, in words (menus, captions, the undo history)
MATRIX_ORDER_WORDS = {"listing": "in listing order", "id": "by id"}


class ContestController(QObject):
    changed = Signal()  # runs added, removed, scored or failed (results coalesced)
    optionsChanged = Signal(object)  # EvalOptions
    status = Signal(str)
    progress = Signal(int)  # 0..1000 while a job runs, -1 when idle
    problem = Signal(str, str)  # title, message for the user
    fileUsed = Signal(str, bool)  # path, whether it belongs in the recent files
    sessionOpened = Signal(str, str)  # path, name
    recoveryEnded = Signal(str)  # the contest of an autosave: "" opened, else why not
    assessmentOpened = Signal(str)  # the path of an assessment opened without a session
    closed = Signal()  # the contest was closed: nothing is open
    ended = Signal()  # the window closed: its helper processes end
    listsReady = Signal(object)  # QueryLists: one query's ranked list in every run
    confusionReady = Signal(int, str, object)  # run key, query class, FirstTierConfusion
    confusionFailed = Signal(int, str, str)
    comparisonReady = Signal(object)
    comparisonFailed = Signal(str)
    formatAsked = Signal(int, str, object)  # run key, path, candidate formats

    #: called with the contest about to be read and scored, before its job
    #: starts (a headless export's output gate); an error it raises is told
    #: and nothing is read
    before_scoring = None

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.options = EvalOptions()
        self.assessment_source: AssessmentSource | None = None
        self.assessment = None
        self.entries: dict[int, RunEntry] = {}
        self.session_path: str | None = None
        self.session_view: dict = {}  # the view state of the session last opened (view_state.py)
        self.opened: Contest | None = None  # the contest file opened: its other fields are kept
        self.recovered = False  # what is open came from an autosave (autosave.py)
        #: what was last opened from or written to a session (session_state())
        self.saved_state = None
        self._next_key = 1
        #: the assessment being read, with the runs to score against it (or None)
        self.pending: dict | None = None
        #: results arriving close together are shown in one refresh
        self.changed_timer = QTimer(self)
        self.changed_timer.setSingleShot(True)
        self.changed_timer.setInterval(120)
        self.changed_timer.timeout.connect(self.changed)
        self.files = FileTasks(self)  # the file tasks of the contest's files
        self.scoring = ScoringThread(self)
        self.shapes = ShapesService(self)  # the shapes folders and their thumbnails
        self.history = UndoHistory(self)  # undo and redo of the edits (undo.py)
        # the parts: the scoring thread's jobs and answers, and the contest's files
        self.jobs = JobQueue(self)
        self.contest_files = ContestFiles(self)

    # -- state ------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.scoring.busy

    @property
    def thread(self):
        return self.scoring.thread

    def idle(self) -> bool:
        """No job running and no result waiting to be shown."""
        return not self.busy and not self.changed_timer.isActive() and self.contest_files.idle()

    def readable_entries(self) -> list[RunEntry]:
        """The runs that could be read (result None while pending)."""
        return [e for e in self.entries.values() if e.error is None]

    def looks(self) -> dict[int, RunLook]:
        """Run key -> how the run is drawn: the look of its place in the
        contest (its own colour when it has one), as the command line's
        report draws the same contest (shrec_eval.outputs.palette.run_looks)."""
        entries = list(self.entries.values())
        return dict(zip((e.key for e in entries), run_looks([e.colour for e in entries])))

    def scored_entries(self) -> list[RunEntry]:
        return [e for e in self.entries.values() if e.result is not None]

    def run_sources(self, *, named: bool = False) -> list[RunSource]:
        """Every run (the unreadable ones too) with its current colour, and
        (``named``) the name it is shown under."""
        return [
            replace(e.source, colour=e.colour, name=e.name if named else e.source.name)
            for e in self.entries.values()
        ]

    def default_rank_key(self) -> str:
        """The measure ``shrec-eval evaluate`` ranks by (the profile's, else
        the assessment's default)."""
        return self.options.rules.table(self.assessment, self.options)[1]

    def session_state(self) -> tuple:
        """What a session keeps: the assessment, the runs, the options and the
        shapes folders."""
        return (
            self.assessment_source,
            tuple(self.run_sources()),
            self.options,
            (self.shapes.source, self.shapes.query_source),
        )

    def unsaved(self) -> bool:
        """An assessment is open and differs from the session last opened or saved."""
        return self.assessment_source is not None and self.session_state() != self.saved_state

    def unsaved_changes(self) -> list[str]:
        """What differs from the session last opened or saved, in words for
        the unsaved-changes question (nothing unsaved: empty; no session:
        what is open)."""
        if not self.unsaved():
            return []
        name = Path(self.assessment_source.path).name
        if self.saved_state is None and self.recovered:
            return ["the work recovered from the autosave"]
        if self.saved_state is None:
            return [f"the assessment {name} and {plural(len(self.entries), 'run')}"]
        source, runs, options, shapes = self.saved_state
        out = []
        if source != self.assessment_source and source.path == self.assessment_source.path:
            out.append(f"how the assessment is read (matrices {self.matrix_order_words()})")
        elif source != self.assessment_source:
            out.append(f"the assessment ({name} now)")
        now_runs = self.run_sources()
        before = [r.path for r in runs]
        now = [r.path for r in now_runs]
        added = sum(p not in before for p in now)
        removed = sum(p not in now for p in before)
        names = {}  # the names runs had, by file (a file twice: in order)
        for r in runs:
            names.setdefault(r.path, []).append(r.name)
        renamed = sum(r.name != names[r.path].pop(0) for r in now_runs if names.get(r.path))
        if added:
            out.append(f"{plural(added, 'run')} added")
        if removed:
            out.append(f"{plural(removed, 'run')} removed")
        if renamed:
            out.append(f"{plural(renamed, 'run')} renamed")
        unnamed = [replace(r, name=None) for r in runs], [replace(r, name=None) for r in now_runs]
        if not added and not removed and unnamed[0] != unnamed[1]:
            out.append("how runs are read or shown")
        if options != self.options:
            changed = [
                f.name
                for f in fields(options)
                if f.name != "rules" and getattr(options, f.name) != getattr(self.options, f.name)
            ] or ["profile"]  # the same name, another evaluator file's rules
            out.append(f"the scoring options ({', '.join(changed)})")
        if shapes != (self.shapes.source, self.shapes.query_source):
            out.append("the shapes folders")
        return out

    def scored_status(self) -> str:
        """The status of the runs: how many are scored with the current
        options, of how many, and how many could not be read."""
        current = sum(self.is_current(e.result) for e in self.entries.values())
        failed = sum(e.error is not None for e in self.entries.values())
        return (
            f"{current} of {plural(len(self.entries), 'run')} scored with the current options"
            + (f"; {failed} could not be read (see Data checks)." if failed else ".")
        )

    def set_options(self, options: EvalOptions) -> None:
        """New engine options: results scored with others are stale until F5
        (OK in Options scores at once); runs added or brought back from now
        on are scored with these (job_queue.py: the assessment read again
        first when their profile reads it by other rules)."""
        self.options = options
        self.optionsChanged.emit(options)
        stale = len(self.stale_entries())
        if stale:
            runs = f"{stale} run{'s' if stale != 1 else ''}"
            self.status.emit(
                f"Options changed: the results of {runs} are stale; F5 scores with the new options."
            )

    def current_options(self) -> EvalOptions:
        """The options results scored now carry: the user's, with what the
        profile fixes (psbtable's cutoff, boli's interpolation...)."""
        return effective_options(self.options)

    def is_current(self, result) -> bool:
        """Whether a result was scored with the options now chosen."""
        return result is not None and result.options == self.current_options()

    def stale_entries(self) -> list[RunEntry]:
        """Runs whose results were scored with other options (F5 re-scores)."""
        return [e for e in self.scored_entries() if not self.is_current(e.result)]

    def shown_options(self) -> EvalOptions:
        """The options of the results shown (the first scored run's; the
        current ones when nothing is scored)."""
        scored = self.scored_entries()
        return scored[0].result.options if scored else self.current_options()

    # -- runs -------------------------------------------------------------------------
    def new_key(self) -> int:
        self._next_key += 1
        return self._next_key - 1

    @undoable(lambda self, sources: f"Add {plural(len(sources), 'run')}")
    def add_runs(self, sources: list[RunSource]) -> None:
        if self.assessment is None:
            self.problem.emit(
                "No assessment",
                "Open the assessment (a .cla or qrels file) first; "
                "the runs are read against its collection.",
            )
            return
        pairs = []
        for s in sources:
            key = self.new_key()
            self.entries[key] = RunEntry(key, s, s.colour)
            pairs.append((key, s))
            self.fileUsed.emit(str(s.path), False)
        self.changed.emit()
        self.jobs.start(Job(pairs, self.options), f"Reading {len(pairs)} run(s)…")

    @undoable(lambda self, keys: f"Remove {plural(len(set(keys) & set(self.entries)), 'run')}")
    def remove(self, keys) -> None:
        """Take runs out of the contest, by key (read or not); undoable."""
        names = [self.entries[k].name for k in keys if k in self.entries]
        taken = [e for e in (self.entries.pop(k, None) for k in keys) if e is not None]
        removed = [e.key for e in taken]
        self.history.put_aside(taken)  # an undo brings them back as they are
        for k in removed:
            self.scoring.requestForget.emit(k)
        if removed:
            self.jobs.distinct_names()
            self.changed.emit()
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            # said even when scoring goes on: all the runs may have gone at once
            self.status.emit(
                f"Removed {plural(len(removed), 'run')} ({shown}); Edit > Undo (Ctrl+Z) "
                f"brings {'it' if len(removed) == 1 else 'them'} back."
                + ("" if self.busy or not self.entries else " " + self.scored_status())
            )

    @undoable(lambda self, key, name: "Rename a run")
    def rename_run(self, key: int, name: str) -> None:
        """Show a run under ``name`` (empty: the name its file gives); undoable."""
        e = self.entries.get(key)
        if e is None:
            return
        e.source = replace(e.source, name=name.strip() or None)
        self.names_changed()
        self.changed.emit()

    def names_changed(self) -> None:
        """The runs' names again from their sources (a rename, an undo), by
        the one rule of RunEntry.name."""
        for e in self.scored_entries():
            e.base_name = e.source.name or e.own_name or e.path_name
        self.jobs.distinct_names()

    @undoable("Scoring options")
    def change_options(self, options: EvalOptions, matrix_order: str | None = None) -> None:
        """The options the user chose (the options dialog), and how matrices
        are read (``matrix_order``; None: as they are): every run scored with
        them (the assessment read again for another matrix order); undoable."""
        self._set_matrix_order(matrix_order)
        self.set_options(options)
        self.score()

    @undoable(lambda self, order: f"Read matrices {MATRIX_ORDER_WORDS[order]}")
    def set_matrix_order(self, order: str) -> None:
        """Read the matrices in another order (the assessment read again and
        every run scored: the other reading a data check offers); undoable."""
        self._set_matrix_order(order)
        self.score()

    def _set_matrix_order(self, order: str | None) -> None:
        source = self.assessment_source
        if source is not None and order is not None and order != self.matrix_order():
            self.assessment_source = replace(source, matrix_order=order)

    def matrix_order(self) -> str:
        """The matrix order the user chose for the assessment (beneath a
        profile that fixes it): listing unless said."""
        source = self.assessment_source
        return (source.matrix_order if source is not None else None) or "listing"

    def matrix_order_words(self) -> str:
        """How the matrices are read now (the profile's rule over the user's
        choice): ``by id`` or ``in listing order``."""
        a = self.assessment
        return MATRIX_ORDER_WORDS[a.matrix_order if a is not None else self.matrix_order()]

    def apply_reading(self, other) -> None:
        """Score the runs in another reading a data check offers (an
        ``OtherReading``: the matrix order, or an option); undoable."""
        if other.setting == "matrix_order":
            self.set_matrix_order(other.value)
        else:
            self.change_options(replace(self.options, **{other.setting: other.value}))

    @undoable("Shapes folders")
    def set_shapes(self, shapes, query_shapes=None) -> None:
        """The shapes folders the user chose; undoable."""
        self.shapes.set_sources(shapes, query_shapes)

    def opening(self) -> bool:
        """An assessment is being read (it replaces the runs once read)."""
        return self.pending is not None

    def score_entries(self, entries) -> None:
        """Read and score these runs (back from an undo, or new)."""
        self.jobs.start(Job([(e.key, e.source) for e in entries], self.options), "Scoring…")

    @undoable(lambda self, key, fmt: f"Read a run as {fmt}")
    def choose_run_format(self, key: int, fmt: str) -> None:
        """Read a run again with the format the user chose; undoable."""
        e = self.entries.get(key)
        if e is None:
            return
        e.source = replace(e.source, format=fmt)
        self.jobs.start(Job([(key, e.source)], self.options), f"Reading {e.name} as {fmt}…")

    # -- the parts' faces: the contest's files (contest_files.py) ---------------------
    def open_assessment(self, source: AssessmentSource, **kwargs) -> None:
        """Load an assessment (ContestFiles.open_assessment)."""
        self.contest_files.open_assessment(source, **kwargs)

    def open_files(self, paths, confirm=None, keep_runs=None, given=None, *, ordered=False):
        """Open files and folders (ContestFiles.open_files)."""
        self.contest_files.open_files(paths, confirm, keep_runs, given, ordered=ordered)

    def run_task(self, fn, *args, **kwargs) -> None:
        """``fn(*args)`` on a file thread (ContestFiles.run_task)."""
        self.contest_files.run_task(fn, *args, **kwargs)

    def close(self) -> None:
        """Nothing open any more (ContestFiles.close)."""
        self.contest_files.close()

    def open_session(self, path: str, given=None, confirm=None) -> None:
        """A session or contest file (ContestFiles.open_session)."""
        self.contest_files.open_session(path, given, confirm)

    def recover(self, autosave: str, session: str | None, name: str) -> None:
        """The contest an autosave holds (ContestFiles.recover)."""
        self.contest_files.recover(autosave, session, name)

    def contest(self, name: str = "shrec-gui session", view: dict | None = None) -> Contest | None:
        """What is open, as a Contest (ContestFiles.contest)."""
        return self.contest_files.contest(name, view)

    def save_session(self, path: str, view: dict | None = None, name: str | None = None) -> bool:
        """Write what is open as a session (ContestFiles.save_session)."""
        return self.contest_files.save_session(path, view, name)

    # -- the parts' faces: the scoring jobs (job_queue.py) ----------------------------
    def score(self) -> None:
        """F5 (JobQueue.score)."""
        self.jobs.score()

    def cancel(self) -> None:
        self.jobs.cancel()

    def shutdown(self) -> None:
        self.jobs.shutdown()
        self.ended.emit()

    def request_lists(self, query_id: str) -> None:
        """One query's ranked list in every scored run (JobQueue.request_lists)."""
        self.jobs.request_lists(query_id)

    def request_confusion(self, key: int, query_class: str) -> None:
        """First-tier classes of one class in one run (JobQueue.request_confusion)."""
        self.jobs.request_confusion(key, query_class)

    def compare(self, params: dict) -> None:
        """Compare the runs scored with the current options (JobQueue.compare)."""
        self.jobs.compare(params)
