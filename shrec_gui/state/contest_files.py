"""What the controller opens, saves and closes: an assessment (the runs
read again against it), files told apart by content, sessions and contest
files, the autosave to recover.  Files are opened off the GUI thread only:
in the scoring worker or a FileTasks thread.

:class:`ContestFiles` is a part of
:class:`~shrec_gui.state.controller.ContestController` (its
``contest_files``: it emits the controller's signals and sets its state)."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

from PySide6.QtCore import QObject
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import ShrecEvalError
from shrec_eval.option_args import command_line_words
from shrec_eval.options import EvalOptions
from shrec_eval.profiles import options_given
from shrec_eval.reading.contest_fields import contest_roles, is_contest_file

from ..workers.scoring import Job, classify, dropped_order, read_assessment, user_message


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


#: said when the contest of an autosave cannot be opened (autosave.py keeps it)
RECOVERY_KEPT = (
    "\n\nThe autosave copy is kept: the next start offers it again (once the files it "
    "names are back where they were, it opens)."
)

#: what the app edits of a contest; the other fields of the contest file
#: it opened are written back as they were
_EDITED = {"assessment", "runs", "options", "name", "view", "shapes", "query_shapes"}


class ContestFiles(QObject):
    """Opening, saving and closing, for the
    :class:`~shrec_gui.state.controller.ContestController` ``c`` (its part
    ``contest_files``)."""

    def __init__(self, controller) -> None:
        super().__init__(controller)
        self.c = controller
        self._tasks: dict[int, tuple] = {}  # file tasks running: request -> what to do next
        # bound methods of this QObject: the answers are queued to the GUI thread
        controller.files.done.connect(self._task_done)
        controller.files.failed.connect(self._task_failed)

    def idle(self) -> bool:
        """No file task of the contest's is running."""
        return not self._tasks

    def open_assessment(
        self,
        source: AssessmentSource,
        *,
        runs: list[RunSource] | None = None,
        options: EvalOptions | None = None,
        session: tuple[str, str] | None = None,
        view: dict | None = None,
        keep_session: bool = False,
        loaded=None,
    ) -> None:
        """Load an assessment in the worker (``loaded``: read already, by
        :func:`~shrec_gui.workers.scoring.read_assessment`); on success it replaces the
        current one (with ``options``, and the ``session`` (path, name) and
        ``view`` state it came from, or the session open when ``keep_session``)
        and the runs (by default the current ones) are read and scored again;
        on failure nothing changes and the reader is quoted."""
        if self._left_out(options or self.c.options):
            return
        now = runs is None  # the runs open, read again: each one's key now (see _adopt)
        runs = self.c.run_sources() if now else list(runs)
        options = options or self.c.options
        if self.c.before_scoring is not None:
            shapes = self.c.shapes
            contest = Contest(
                source, tuple(runs), options, shapes=shapes.source, query_shapes=shapes.query_source
            )
            try:
                self.c.before_scoring(contest)
            except ShrecEvalError as exc:
                self.c.problem.emit("Cannot write the outputs", str(exc))
                return
        self.c.fileUsed.emit(str(source.path), False)
        pairs = [(self.c.new_key(), r) for r in runs]
        self.c.pending = {
            "runs": pairs,
            "options": options,
            "session": session,
            "view": view,
            "keep_session": keep_session,
            "replaces": set(self.c.entries),  # the runs open while it is read
            "was": dict(zip((k for k, _ in pairs), self.c.entries)) if now else {},
        }
        self.c.pending["generation"] = self.c.jobs.start(
            Job(list(pairs), options, source, loaded=loaded),
            f"Reading {Path(source.path).name}…",
            supersede=True,
        )

    def _left_out(self, options: EvalOptions) -> bool:
        """Whether the app leaves a contest of these options' profile out (said)."""
        why = app_leaves_out(options.rules)
        if why is not None:
            self.c.problem.emit("Cannot open the contest", why)
        return why is not None

    def open_files(self, paths, confirm=None, keep_runs=None, given=None, *, ordered=False):
        """Open files and folders (drag and drop; ``ordered``: the command
        line, a recent file) as the command line takes them (contest_roles):
        a session alone, or the assessment first and the runs after it.  Not
        ``ordered`` (dropped together, no order meant), the assessment among
        them (told by content, off the GUI thread) goes first, and without
        one they are runs, added.  A file that cannot be read is said before
        any question.  When a session or an assessment
        would replace what is open, ``confirm()`` is asked (False: nothing
        changes).  A new assessment starts clean (with the runs opened with
        it) unless ``keep_runs()`` answers True (None: nothing changes) for
        the runs already open.  ``given`` (the command line's scoring options:
        EvalOptions and the fields it wrote) goes over the options of the
        session or assessment opened."""
        paths = [str(p) for p in paths]

        def found(order) -> None:
            if order is None:  # runs alone: added to the contest open
                self.c.add_runs([RunSource(p) for p in paths])
            else:
                self._open_paths(order, confirm, keep_runs, given)

        if ordered:  # checked (regular files and folders of a known kind), in this order
            self.run_task(classify, paths, done=lambda _: found(paths))
        else:
            self.run_task(dropped_order, paths, self.c.assessment is not None, done=found)

    def _open_paths(self, paths, confirm=None, keep_runs=None, given=None) -> None:
        session, assessment, runs = contest_roles(paths)
        if session is not None:
            self.open_session(session, given=given, confirm=confirm)
            return
        if assessment is None:
            return
        sessions = [Path(p).name for p in paths if is_contest_file(p)]
        if sessions:
            self.c.problem.emit(
                "Cannot open the files",
                f"{', '.join(sessions)}: a session or contest file opens alone (it names its "
                f"assessment and runs); nothing was opened of {', '.join(map(str, paths))}.",
            )
            return
        try:
            options = (
                self.c.options
                if given is None
                else options_given(self.c.options, *given, spell=command_line_words)
            )
        except ShrecEvalError as exc:
            self.c.problem.emit("Cannot use the options", str(exc))
            return
        if self._left_out(options):
            return
        source = AssessmentSource(assessment)

        def read(loaded) -> None:  # the assessment can be read: now the questions
            if confirm is not None and not confirm():
                return
            keep = bool(self.c.entries) and keep_runs is not None and keep_runs()
            if keep is None:
                return
            kept = self.c.run_sources() if keep else []
            self.open_assessment(
                source, runs=kept + [RunSource(p) for p in runs], options=options, loaded=loaded
            )

        self.run_task(
            read_assessment, source, options.rules, done=read, title="Cannot open the assessment"
        )

    def run_task(
        self, fn, *args, done, title: str = "Cannot open the file", failed=None, more: str = ""
    ) -> None:
        """``fn(*args)`` on a file thread; ``done(value)`` on the GUI thread,
        or the message goes to :attr:`problem` under ``title`` (with ``more``
        after it) and to ``failed(message)``."""
        self._tasks[self.c.files.start(fn, *args)] = (done, title, failed, more)

    def _task_done(self, request: int, value) -> None:
        done = self._tasks.pop(request, (None,))[0]
        if done is not None:
            done(value)

    def _task_failed(self, request: int, message: str) -> None:
        _, title, failed, more = self._tasks.pop(request, (None, "", None, ""))
        self.c.problem.emit(title, message + more)
        if failed is not None:
            failed(message)

    def close(self) -> None:
        """Nothing open any more: no assessment, no runs, no session, the
        default options; a job under way is cancelled and its results dropped."""
        if self.c.busy:
            self.c.scoring.cancel()
        for k in self.c.entries:
            self.c.scoring.requestForget.emit(k)
        self.c.pending = None
        self.c.assessment_source = self.c.assessment = None
        self.c.entries = {}
        self.c.session_path = None
        self.c.session_view = {}
        self.c.saved_state = None
        self.c.opened = None
        self.c.recovered = False
        self.c.history.clear()
        self.c.changed_timer.stop()
        self.c.set_options(EvalOptions())
        self.c.shapes.set_sources(None, None)
        self.c.changed.emit()
        self.c.closed.emit()
        self.c.status.emit("Closed. Open the demo, an assessment or a session.")

    # -- sessions ---------------------------------------------------------------------
    def open_session(self, path: str, given=None, confirm=None) -> None:
        """A session or contest file (the demo manifest's format), read off
        the GUI thread; it takes effect once its assessment has loaded.
        ``given``: the command line's scoring options (EvalOptions, the fields
        it wrote) over the file's, as ``shrec-eval evaluate CONTEST.json``
        takes them.  ``confirm()`` (the unsaved-changes question) is asked
        once the file has been read (False: nothing changes)."""

        def read(contest, p=str(path)) -> None:
            if confirm is None or confirm():
                self._open_contest(p, contest, given=given)

        self.run_task(Contest.read, str(path), done=read, title="Cannot open the session")

    def _open_contest(
        self, path: str, contest: Contest, *, recovered: bool = False, given=None
    ) -> None:
        own = contest.options
        if given is not None:
            try:
                contest = replace(
                    contest, options=options_given(own, *given, spell=command_line_words)
                )
                contest.refuse_fixed()  # the file's reading settings, under the profile given
            except ShrecEvalError as exc:
                self.c.problem.emit("Cannot open the session", f"{path}: {exc}")
                return
        self.c.shapes.set_sources(contest.shapes, contest.query_shapes)
        self.open_assessment(
            contest.assessment,
            runs=list(contest.runs),
            options=contest.options,
            session=(path, contest.name or Path(path).stem),
            view=contest.view,
        )
        if self.c.pending is not None:  # its other fields (description...) are kept
            self.c.pending.update(contest=replace(contest, options=own), recovered=recovered)

    def recover(self, autosave: str, session: str | None, name: str) -> None:
        """Open the contest an autosave holds (autosave.py) as the session
        ``session`` it was (None: none yet) named ``name``, with its changes
        unsaved.  :attr:`recoveryEnded` says whether it opened; when it does
        not (a damaged copy, files moved), the problem says so and that the
        copy is kept for the next start."""

        def read(contest) -> None:
            self._open_contest(session or "", replace(contest, name=name), recovered=True)
            if self.c.pending is None:  # refused before reading (a profile the app leaves out)
                self.c.recoveryEnded.emit("not opened")

        self.run_task(
            Contest.read,
            str(autosave),
            done=read,
            title="Cannot recover the autosave",
            failed=lambda message: self.c.recoveryEnded.emit(message),
            more=RECOVERY_KEPT,
        )

    def contest(self, name: str = "shrec-gui session", view: dict | None = None) -> Contest | None:
        """What is open, as a Contest (runs with the names and colours shown,
        and the window's ``view`` state)."""
        if self.c.assessment_source is None:
            return None
        now = Contest(
            self.c.assessment_source,
            self.c.run_sources(named=True),
            self.c.options,
            name,
            view=view or {},
            shapes=self.c.shapes.source,
            query_shapes=self.c.shapes.query_source,
        )
        if self.c.opened is None:
            return now
        # every other field of the contest file it came from (description...)
        return replace(
            self.c.opened,
            **{f.name: getattr(now, f.name) for f in fields(now) if f.name in _EDITED},
        )

    def save_session(self, path: str, view: dict | None = None, name: str | None = None) -> bool:
        """Write what is open (and the window's ``view`` state) as a session
        named ``name`` (the contest's; none yet: the file's name)."""
        contest = self.contest(name or Path(path).stem, view=view)
        if contest is None:
            self.c.problem.emit("Nothing to save", "Open an assessment first.")
            return False
        try:  # on a file task: the GUI thread never opens a file
            self.c.files.run(contest.write, path)
        except (OSError, ShrecEvalError) as exc:
            self.c.problem.emit("Cannot write the file", user_message(exc, path))
            return False
        self.c.session_path = path
        self.c.saved_state = self.c.session_state()
        self.c.recovered = False
        self.c.fileUsed.emit(path, True)
        self.c.status.emit(f"Wrote {path}")
        return True
