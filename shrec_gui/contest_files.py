"""What the controller opens, saves and closes: an assessment (the runs
read again against it), files told apart by content, sessions and contest
files, the autosave to recover.  Files are opened off the GUI thread only:
in the scoring worker or a FileTasks thread.

:class:`ContestFiles` is a part of
:class:`~shrec_gui.controller.ContestController` (a mixin: the controller's
signals and state)."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import ShrecEvalError
from shrec_eval.options import EvalOptions
from shrec_eval.profiles import get_profile, options_given

from .worker import Job, classify, user_message


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


class ContestFiles:
    """Opening, saving and closing, for the
    :class:`~shrec_gui.controller.ContestController`."""

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
        now = runs is None  # the runs open, read again: each one's key now (see _adopt)
        runs = self.run_sources() if now else list(runs)
        options = options or self.options
        pairs = [(self._new_key(), r) for r in runs]
        self._pending = {
            "runs": pairs,
            "options": options,
            "session": session,
            "view": view,
            "keep_session": keep_session,
            "replaces": set(self.entries),  # the runs open while it is read
            "was": dict(zip((k for k, _ in pairs), self.entries)) if now else {},
        }
        self._pending["generation"] = self._start(
            Job(list(pairs), options, source), f"Reading {Path(source.path).name}…", supersede=True
        )

    def open_files(self, paths, confirm=None, keep_runs=None, given=None) -> None:
        """Open files and folders (recent files, drag and drop, command line),
        told apart by content off the GUI thread: a session, or an assessment
        first and then the runs.  When a session or an assessment among them
        would replace what is open, ``confirm()`` is asked first (False: nothing
        changes); runs alone are added without asking.  A new assessment
        starts clean (with the runs opened with it) unless ``keep_runs()``
        answers True (None: nothing changes) for the runs already open.
        ``given`` (the command line's scoring options: EvalOptions and the
        fields it wrote) goes over the options of the session or assessment
        opened."""
        self.run_task(
            classify,
            [str(p) for p in paths],
            done=lambda kinds: self._open_classified(kinds, confirm, keep_runs, given),
        )

    def _open_classified(
        self, kinds: list[tuple[str, str]], confirm=None, keep_runs=None, given=None
    ) -> None:
        sessions = [p for p, k in kinds if k == "session"]
        replaces = sessions or any(k in ("cla", "qrels") for _, k in kinds)
        if replaces and confirm is not None and not confirm():
            return
        if sessions:
            self.open_session(sessions[0], given=given)
            return
        assessments = [p for p, k in kinds if k in ("cla", "qrels")]
        runs = [RunSource(p) for p, _ in kinds if p not in assessments]
        if assessments:
            keep = bool(self.entries) and keep_runs is not None and keep_runs()
            if keep is None:
                return
            kept = self.run_sources() if keep else []
            try:
                options = self.options if given is None else options_given(self.options, *given)
            except ShrecEvalError as exc:
                self.problem.emit("Cannot use the options", str(exc))
                return
            self.open_assessment(
                AssessmentSource(assessments[0]), runs=kept + runs, options=options
            )
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
    def open_session(self, path: str, given=None) -> None:
        """A session or contest file (the demo manifest's format), read off
        the GUI thread; it takes effect once its assessment has loaded.
        ``given``: the command line's scoring options (EvalOptions, the fields
        it wrote) over the file's, as ``shrec-eval evaluate CONTEST.json``
        takes them; the session is then unsaved (the file has its own)."""
        self.run_task(
            Contest.read,
            str(path),
            done=lambda contest, p=str(path): self._open_contest(p, contest, given=given),
            title="Cannot open the session",
        )

    def _open_contest(
        self, path: str, contest: Contest, *, recovered: bool = False, given=None
    ) -> None:
        own = contest.options
        if given is not None:
            try:
                contest = replace(contest, options=options_given(own, *given))
            except ShrecEvalError as exc:
                self.problem.emit("Cannot open the session", f"{path}: {exc}")
                return
        self.shapes.set_sources(contest.shapes, contest.query_shapes)
        self.open_assessment(
            contest.assessment,
            runs=list(contest.runs),
            options=contest.options,
            session=(path, contest.name or Path(path).stem),
            view=contest.view,
        )
        if self._pending is not None:  # its other fields (description...) are kept
            self._pending.update(contest=replace(contest, options=own), recovered=recovered)
            if contest.options != own:  # what the file holds, for "unsaved changes"
                self._pending["saved_options"] = own

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
