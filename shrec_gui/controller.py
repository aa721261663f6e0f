"""The contest the window shows, and the jobs that score it.

:class:`ContestController` owns the assessment, the engine options, the
runs (by key: a key names one run for as long as it is open, whatever
failed to load or is sorted where), the job queue of the scoring thread and
the results; it emits what changed and the tabs read it back.  Files are
opened off the GUI thread only: in the scoring worker or a FileTasks thread."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import ShrecEvalError
from shrec_eval.options import EvalOptions
from shrec_eval.profiles import get_profile
from shrec_eval.reading.readers import distinct_names
from shrec_eval.service import effective_options

from .models import plural
from .plots import colour_for
from .shapes_service import ShapesService
from .undo import UndoHistory, undoable
from .worker import FileTasks, Job, ScoringThread, classify, user_message


def app_leaves_out(profile) -> str | None:
    """Why the app does not open a contest of this profile (one that reads
    its contests itself: one result per dataset, each with its own
    assessment, where the app holds one), and what to do instead."""
    if profile.contest_reader is None:
        return None
    return (
        f"The {profile.name} profile reads its contests itself ({profile.help}); the app holds "
        f"one assessment. Score it with: shrec-eval evaluate {profile.contest_usage} "
        f"--profile {profile.name} (--report DIR, --native DIR)."
    )


#: what the app edits of a contest; the other fields of the contest file
#: it opened are written back as they were
_EDITED = {"assessment", "runs", "options", "name", "view", "shapes", "query_shapes"}


@dataclass
class RunEntry:
    key: int
    source: RunSource
    colour: str
    result: object = None
    error: str | None = None  # the reader's message when the file could not be used
    base_name: str | None = None  # the run's own name (the result's may get a suffix)
    run: object = None  # the Run the scoring service read (its ranked lists: the gallery)
    own_name: str | None = None  # the name the file gives (a rename to nothing shows it again)

    @property
    def name(self) -> str:
        if self.result is not None:
            return self.result.run_name
        return self.source.name or Path(self.source.path).name


class ContestController(QObject):
    changed = Signal()  # runs added, removed, scored or failed (results coalesced)
    optionsChanged = Signal(object)  # EvalOptions
    status = Signal(str)
    progress = Signal(int)  # 0..1000 while a job runs, -1 when idle
    problem = Signal(str, str)  # title, message for the user
    fileUsed = Signal(str, bool)  # path, whether it belongs in the recent files
    sessionOpened = Signal(str, str)  # path, name
    assessmentOpened = Signal(str)  # the path of an assessment opened without a session
    closed = Signal()  # the contest was closed: nothing is open
    listsReady = Signal(object)  # QueryLists: one query's ranked list in every run
    confusionReady = Signal(int, str, object)  # run key, query class, FirstTierConfusion
    confusionFailed = Signal(int, str, str)
    comparisonReady = Signal(object)
    comparisonFailed = Signal(str)
    formatAsked = Signal(int, str, object)  # run key, path, candidate formats

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
        self._saved_state = None  # what was last opened from or written to a session
        self._next_key = 1
        self._pending: dict | None = None
        self._failures: list[str] = []
        self._queue_total = 1
        self._queue_done = 0
        self._comparison = 0
        self._lists_request = 0
        self._tasks: dict[int, tuple] = {}
        self._changed_timer = QTimer(self)
        self._changed_timer.setSingleShot(True)
        self._changed_timer.setInterval(120)
        self._changed_timer.timeout.connect(self.changed)
        self.files = FileTasks(self)
        self.files.done.connect(self._task_done)
        self.files.failed.connect(self._task_failed)
        self.scoring = ScoringThread(self)
        self.shapes = ShapesService(self)  # the shapes folders and their thumbnails
        self.history = UndoHistory(self)  # undo and redo of the edits (undo.py)
        w = self.scoring.worker
        # bound methods of this object (not lambdas): Qt then queues the call
        # to the GUI thread; a lambda would run in the worker's thread
        w.assessmentLoaded.connect(self._on_assessment_loaded)
        w.assessmentFailed.connect(self._on_assessment_failed)
        w.runStarted.connect(self._on_run_started)
        w.progress.connect(self._on_progress)
        w.runScored.connect(self._on_run_scored)
        w.runFailed.connect(self._on_run_failed)
        w.runAmbiguous.connect(self._on_run_ambiguous)
        w.finished.connect(self._on_finished)
        w.listsReady.connect(self._on_lists_ready)
        w.confusionReady.connect(self.confusionReady)  # signal to signal: queued here
        w.confusionFailed.connect(self.confusionFailed)
        w.comparisonReady.connect(self._on_comparison_ready)
        w.comparisonFailed.connect(self._on_comparison_failed)

    # -- state ------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.scoring.busy

    @property
    def thread(self):
        return self.scoring.thread

    def idle(self) -> bool:
        """No job running and no result waiting to be shown."""
        return not self.busy and not self._changed_timer.isActive() and not self._tasks

    def readable_entries(self) -> list[RunEntry]:
        """The runs that could be read (result None while pending)."""
        return [e for e in self.entries.values() if e.error is None]

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
        return get_profile(self.options.profile).table(self.assessment, self.options)[1]

    def _state(self) -> tuple:
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
        return self.assessment_source is not None and self._state() != self._saved_state

    def unsaved_changes(self) -> list[str]:
        """What differs from the session last opened or saved, in words for
        the unsaved-changes question (nothing unsaved: empty; no session:
        what is open)."""
        if not self.unsaved():
            return []
        name = Path(self.assessment_source.path).name
        if self._saved_state is None and self.recovered:
            return ["the work recovered from the autosave"]
        if self._saved_state is None:
            return [f"the assessment {name} and {plural(len(self.entries), 'run')}"]
        source, runs, options, shapes = self._saved_state
        out = []
        if source != self.assessment_source:
            out.append(f"the assessment ({name} now)")
        before = [r.path for r in runs]
        now = [r.path for r in self.run_sources()]
        added = sum(p not in before for p in now)
        removed = sum(p not in now for p in before)
        if added:
            out.append(f"{plural(added, 'run')} added")
        if removed:
            out.append(f"{plural(removed, 'run')} removed")
        if not added and not removed and tuple(runs) != tuple(self.run_sources()):
            out.append("how runs are read or shown")
        if options != self.options:
            changed = [
                f.name
                for f in fields(options)
                if getattr(options, f.name) != getattr(self.options, f.name)
            ]
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
        """New engine options (the runs are scored with them on F5; until
        then their results are stale)."""
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

    # -- opening ----------------------------------------------------------------------
    def _new_key(self) -> int:
        self._next_key += 1
        return self._next_key - 1

    def open_assessment(
        self,
        source: AssessmentSource,
        *,
        runs: list[RunSource] | None = None,
        options: EvalOptions | None = None,
        session: tuple[str, str] | None = None,
        view: dict | None = None,
        keep_session: bool = False,
    ) -> None:
        """Load an assessment in the worker; on success it replaces the
        current one (with ``options``, and the ``session`` (path, name) and
        ``view`` state it came from, or the session open when ``keep_session``)
        and the runs (by default the current ones) are read and scored again;
        on failure nothing changes and the reader is quoted."""
        why = app_leaves_out(get_profile((options or self.options).profile))
        if why is not None:
            self.problem.emit("Cannot open the contest", why)
            return
        self.fileUsed.emit(str(source.path), False)
        runs = self.run_sources() if runs is None else list(runs)
        options = options or self.options
        pairs = [(self._new_key(), r) for r in runs]
        self._pending = {
            "runs": pairs,
            "options": options,
            "session": session,
            "view": view,
            "keep_session": keep_session,
        }
        self._start(
            Job(pairs, options, source), f"Reading {Path(source.path).name}…", supersede=True
        )

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
            key = self._new_key()
            colour = s.colour or colour_for(len(self.entries))
            self.entries[key] = RunEntry(key, s, colour)
            pairs.append((key, s))
            self.fileUsed.emit(str(s.path), False)
        self.changed.emit()
        self._start(Job(pairs, self.options), f"Reading {len(pairs)} run(s)…")

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
            self._distinct_names()
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
        """The runs' names again from their sources (a rename, an undo)."""
        for e in self.scored_entries():
            e.base_name = e.source.name or e.own_name or Path(e.source.path).name
        self._distinct_names()

    @undoable("Scoring options")
    def change_options(self, options: EvalOptions) -> None:
        """The options the user chose (the options dialog): every run scored
        with them; undoable."""
        self.set_options(options)
        self.score()

    @undoable("Shapes folders")
    def set_shapes(self, shapes, query_shapes=None) -> None:
        """The shapes folders the user chose; undoable."""
        self.shapes.set_sources(shapes, query_shapes)

    def opening(self) -> bool:
        """An assessment is being read (it replaces the runs once read)."""
        return self._pending is not None

    def score_entries(self, entries) -> None:
        """Read and score these runs (back from an undo, or new)."""
        self._start(Job([(e.key, e.source) for e in entries], self.options), "Scoring…")

    def open_files(self, paths, confirm=None, keep_runs=None) -> None:
        """Open files and folders (recent files, drag and drop, command line),
        told apart by content off the GUI thread: a session, or an assessment
        first and then the runs.  When a session or an assessment among them
        would replace what is open, ``confirm()`` is asked first (False: nothing
        changes); runs alone are added without asking.  A new assessment
        starts clean (with the runs opened with it) unless ``keep_runs()``
        answers True (None: nothing changes) for the runs already open."""
        self.run_task(
            classify,
            [str(p) for p in paths],
            done=lambda kinds: self._open_classified(kinds, confirm, keep_runs),
        )

    def _open_classified(self, kinds: list[tuple[str, str]], confirm=None, keep_runs=None) -> None:
        sessions = [p for p, k in kinds if k == "session"]
        replaces = sessions or any(k in ("cla", "qrels") for _, k in kinds)
        if replaces and confirm is not None and not confirm():
            return
        if sessions:
            self.open_session(sessions[0])
            return
        assessments = [p for p, k in kinds if k in ("cla", "qrels")]
        runs = [RunSource(p) for p, _ in kinds if p not in assessments]
        if assessments:
            keep = bool(self.entries) and keep_runs is not None and keep_runs()
            if keep is None:
                return
            kept = self.run_sources() if keep else []
            self.open_assessment(AssessmentSource(assessments[0]), runs=kept + runs)
            self.fileUsed.emit(assessments[0], True)
        elif runs:
            self.add_runs(runs)

    def run_task(self, fn, *args, done, title: str = "Cannot open the file") -> None:
        """``fn(*args)`` on a file thread; ``done(value)`` on the GUI thread,
        or the message goes to :attr:`problem` under ``title``."""
        self._tasks[self.files.start(fn, *args)] = (done, title)

    def _task_done(self, request: int, value) -> None:
        done, _ = self._tasks.pop(request, (None, ""))
        if done is not None:
            done(value)

    def _task_failed(self, request: int, message: str) -> None:
        _, title = self._tasks.pop(request, (None, ""))
        self.problem.emit(title, message)

    def close(self) -> None:
        """Nothing open any more: no assessment, no runs, no session, the
        default options; a job under way is cancelled and its results dropped."""
        if self.busy:
            self.scoring.cancel()
        for k in self.entries:
            self.scoring.requestForget.emit(k)
        self._pending = None
        self.assessment_source = self.assessment = None
        self.entries = {}
        self.session_path = None
        self.session_view = {}
        self._saved_state = None
        self.opened = None
        self.recovered = False
        self.history.clear()
        self._changed_timer.stop()
        self.set_options(EvalOptions())
        self.shapes.set_sources(None, None)
        self.changed.emit()
        self.closed.emit()
        self.status.emit("Closed. Open the demo, an assessment or a session.")

    # -- sessions ---------------------------------------------------------------------
    def open_session(self, path: str) -> None:
        """A session or contest file (the demo manifest's format), read off
        the GUI thread; it takes effect once its assessment has loaded."""
        self.run_task(
            Contest.read,
            str(path),
            done=lambda contest, p=str(path): self._open_contest(p, contest),
            title="Cannot open the session",
        )

    def _open_contest(self, path: str, contest: Contest, *, recovered: bool = False) -> None:
        self.shapes.set_sources(contest.shapes, contest.query_shapes)
        self.open_assessment(
            contest.assessment,
            runs=list(contest.runs),
            options=contest.options,
            session=(path, contest.name or Path(path).stem),
            view=contest.view,
        )
        if self._pending is not None:  # its other fields (description...) are kept
            self._pending.update(contest=contest, recovered=recovered)

    def recover(self, autosave: str, session: str | None, name: str) -> None:
        """Open the contest an autosave holds (autosave.py) as the session
        ``session`` it was (None: none yet) named ``name``, with its changes
        unsaved."""
        self.run_task(
            Contest.read,
            str(autosave),
            done=lambda contest: self._open_contest(
                session or "", replace(contest, name=name), recovered=True
            ),
            title="Cannot recover the autosave",
        )

    def contest(self, name: str = "shrec-gui session", view: dict | None = None) -> Contest | None:
        """What is open, as a Contest (runs with the names and colours shown,
        and the window's ``view`` state)."""
        if self.assessment_source is None:
            return None
        now = Contest(
            self.assessment_source,
            self.run_sources(named=True),
            self.options,
            name,
            view=view or {},
            shapes=self.shapes.source,
            query_shapes=self.shapes.query_source,
        )
        if self.opened is None:
            return now
        # every other field of the contest file it came from (description...)
        return replace(
            self.opened, **{f.name: getattr(now, f.name) for f in fields(now) if f.name in _EDITED}
        )

    def save_session(self, path: str, view: dict | None = None, name: str | None = None) -> bool:
        """Write what is open (and the window's ``view`` state) as a session
        named ``name`` (the contest's; none yet: the file's name)."""
        contest = self.contest(name or Path(path).stem, view=view)
        if contest is None:
            self.problem.emit("Nothing to save", "Open an assessment first.")
            return False
        try:
            contest.write(path)
        except (OSError, ShrecEvalError) as exc:
            self.problem.emit("Cannot write the file", user_message(exc, path))
            return False
        self.session_path = path
        self._saved_state = self._state()
        self.recovered = False
        self.fileUsed.emit(path, True)
        self.status.emit(f"Wrote {path}")
        return True

    # -- scoring ----------------------------------------------------------------------
    def _start(self, job: Job, text: str, *, supersede: bool = False) -> None:
        self._queue_total = max(len(job.runs), 1)
        self._queue_done = 0
        self.scoring.start(job, supersede=supersede)
        self.status.emit(text)
        self.progress.emit(0)

    def score(self) -> None:
        """Score every run again (after changing options)."""
        if self.assessment is None:
            self.problem.emit("Nothing to score", "Open an assessment and add runs first.")
            return
        if not self.entries:
            self.status.emit("No run to score: add runs (Ctrl+R) or a folder.")
            return
        profile = get_profile(self.options.profile)
        if profile.rereads(self.assessment, self.assessment_source):
            # the profile reads the assessment by other rules (trec_eval: ids
            # as written, numbers as C reads them; sipiran21: by id): read again
            self.open_assessment(
                self.assessment_source,
                runs=self.run_sources(),
                options=self.options,
                keep_session=True,
            )
            return
        self._start(Job([(k, e.source) for k, e in self.entries.items()], self.options), "Scoring…")

    def cancel(self) -> None:
        if self.busy:
            self.scoring.cancel()
            self.status.emit("Cancelling…")

    def shutdown(self) -> None:
        self.scoring.shutdown()
        self.shapes.shutdown()

    def _current(self, gen: int) -> bool:
        return gen == self.scoring.generation

    def _on_assessment_loaded(self, gen, source, assessment) -> None:
        if not self._current(gen) or self._pending is None:
            return
        pending, self._pending = self._pending, None
        self.assessment_source = source
        self.assessment = assessment
        if not pending["keep_session"]:  # another contest: its own shapes problems
            self.shapes.new_contest()
        if pending["options"] is not self.options:
            self.set_options(pending["options"])
        self.entries = {
            k: RunEntry(k, s, s.colour or colour_for(i)) for i, (k, s) in enumerate(pending["runs"])
        }
        self.history.forget_runs_aside()  # read for another reading of the assessment
        if not pending["keep_session"]:  # another contest: another history
            self.history.clear()
            self.opened = pending.get("contest")
            self.recovered = bool(pending.get("recovered"))
        if pending["session"] is not None:  # a session or contest file: now it has opened
            self.session_path = pending["session"][0] or None
            self.session_view = pending["view"] or {}
            self._saved_state = None if self.recovered else self._state()
            self.sessionOpened.emit(*pending["session"])
            if not self.recovered:
                self.fileUsed.emit(pending["session"][0], True)
        elif not pending["keep_session"]:  # an assessment on its own: no session any more
            self.session_path = None
            self.session_view = {}
            self.assessmentOpened.emit(str(source.path))
        self.changed.emit()

    def _on_assessment_failed(self, gen, source, message) -> None:
        self._pending = None
        self.problem.emit("Cannot open the assessment", message)

    def _on_run_started(self, gen, key, name) -> None:
        if self._current(gen):
            e = self.entries.get(key)
            label = e.name if e else name
            self.status.emit(f"Scoring {label} ({self._queue_done + 1} of {self._queue_total})")

    def _on_progress(self, gen, key, done, total) -> None:
        if self._current(gen):
            frac = (self._queue_done + (done / total if total else 1)) / self._queue_total
            self.progress.emit(int(1000 * frac))

    def _on_run_scored(self, gen, key, result, run) -> None:
        if self._current(gen):
            self._queue_done += 1
        e = self.entries.get(key)
        if e is None:  # removed meanwhile
            return
        e.result, e.error, e.base_name, e.run = result, None, result.run_name, run
        if e.source.name is None:
            e.own_name = result.run_name
        self._distinct_names()
        self._changed_soon()

    def _distinct_names(self) -> None:
        """Two runs of one name (two TREC files of one run tag) shown apart,
        as the command line names them (shrec_eval.service.final_names)."""
        scored = self.scored_entries()
        names = distinct_names(
            [e.base_name or e.result.run_name for e in scored],
            [e.result.run_source for e in scored],
        )
        for e, name in zip(scored, names):
            e.result.run_name = name

    def _on_run_failed(self, gen, key, message) -> None:
        if self._current(gen):
            self._queue_done += 1
        e = self.entries.get(key)
        if e is None:  # removed, or of an assessment superseded before it was adopted
            return
        e.error, e.result = message, None  # kept (a session still lists it; F5 tries again)
        self._failures.append(message)
        self._changed_soon()

    def _on_run_ambiguous(self, gen, key, message, candidates) -> None:
        """A run that fits several formats: kept unread (Data checks quote the
        reader) and the window asks which format (``choose_run_format``)."""
        if self._current(gen):
            self._queue_done += 1
        e = self.entries.get(key)
        if e is None:
            return
        e.error, e.result = message, None
        self._changed_soon()
        self.formatAsked.emit(key, str(e.source.path), tuple(candidates))

    @undoable(lambda self, key, fmt: f"Read a run as {fmt}")
    def choose_run_format(self, key: int, fmt: str) -> None:
        """Read a run again with the format the user chose."""
        e = self.entries.get(key)
        if e is None:
            return
        e.source = replace(e.source, format=fmt)
        self._start(Job([(key, e.source)], self.options), f"Reading {e.name} as {fmt}…")

    def _changed_soon(self) -> None:
        """Results arriving close together are shown in one refresh."""
        if not self._changed_timer.isActive():
            self._changed_timer.start()

    def _on_finished(self, gen, cancelled) -> None:
        if self._failures:  # one message for every run of the job that could not be read
            failures, self._failures = self._failures, []
            more = f"\n\n({len(failures) - 3} more in Data checks.)" if len(failures) > 3 else ""
            self.problem.emit(
                "Cannot read a run" if len(failures) == 1 else f"Cannot read {len(failures)} runs",
                "\n\n".join(failures[:3]) + more + "\n\nThe other results are kept.",
            )
        if not self._current(gen):
            return
        self._changed_timer.stop()  # the last results now, in every tab
        self.changed.emit()
        self.progress.emit(-1)
        self.status.emit(
            ("Cancelled; earlier results kept. " if cancelled else "") + self.scored_status()
        )

    # -- details and comparisons ------------------------------------------------------
    def request_lists(self, query_id: str) -> None:
        """One query's ranked list in every scored run (with item ids and
        classes), made in the worker; answered by listsReady."""
        self._lists_request += 1
        runs = [(e.key, e.name) for e in self.scored_entries()]
        self.scoring.lists(self._lists_request, query_id, runs)

    def request_confusion(self, key: int, query_class: str) -> None:
        """First-tier classes of one class in one run (shrec_eval.scoring.confusion), in the
        worker."""
        self.scoring.requestConfusion.emit(key, query_class)

    def _on_lists_ready(self, request, lists) -> None:
        if request == self._lists_request:  # not an answer to an older question
            self.listsReady.emit(lists)

    def compare(self, params: dict) -> None:
        """Compare the runs scored with the current options (a run still
        holding results of older options is left out until re-scored)."""
        results = [
            e.result
            for e in self.readable_entries()
            if self.is_current(e.result) and params["measure"] in e.result.keys
        ]
        if len(results) < 2:
            self.comparisonFailed.emit(
                "At least two runs scored with the current options are needed (F5 scores them)."
            )
            return
        self._comparison += 1
        self.scoring.compare(self._comparison, results, params)

    def _on_comparison_ready(self, request, comparison) -> None:
        if request == self._comparison:
            self.comparisonReady.emit(comparison)

    def _on_comparison_failed(self, request, message) -> None:
        if request == self._comparison:
            self.comparisonFailed.emit(message)
