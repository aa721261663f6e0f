"""The controller's jobs in the scoring thread: reading and scoring runs,
the results as they arrive (coalesced into one refresh), one query's ranked
lists, a class's confusion and the comparison of runs.

:class:`JobQueue` is a part of
:class:`~shrec_gui.state.controller.ContestController` (its ``jobs``: it
emits the controller's signals and reads its runs); the jobs themselves are
workers/scoring.py's."""

from __future__ import annotations

from PySide6.QtCore import QObject
from shrec_eval.reading.readers import distinct_names

from ..workers.scoring import Job
from .contest_files import RECOVERY_KEPT, app_leaves_out
from .run_entry import RunEntry
from .undo import identity

#: the share of a run's part of the progress bar its reading takes (bytes of
#: a file, files of a folder); scoring (queries) takes the rest, or all of it
#: for a run read already (scored again from memory)
READ_SHARE = 0.5


class JobQueue(QObject):
    """Scoring, and the worker's answers, for the
    :class:`~shrec_gui.state.controller.ContestController` ``c`` (its part
    ``jobs``): the jobs it starts, the progress bar, the runs' answers."""

    def __init__(self, controller) -> None:
        super().__init__(controller)
        self.c = controller
        # the progress bar: runs of the jobs since the worker was last idle,
        # runs each job has left to answer, what each run is at
        self._queue_total = 1
        self._queue_done = 0
        self._job_left: dict[int, int] = {}
        self._phase: dict[int, str] = {}
        self._unchanged: dict[int, bool] = {}  # F5 jobs that found nothing to do
        self._failures: list[str] = []
        self._comparison = 0
        self._lists_request = 0
        w = controller.scoring.worker
        # bound methods of this QObject (not lambdas): Qt then queues the call
        # to the GUI thread; a lambda would run in the worker's thread
        w.assessmentLoaded.connect(self._on_assessment_loaded)
        w.assessmentFailed.connect(self._on_assessment_failed)
        w.runStarted.connect(self._on_run_started)
        w.reading.connect(self._on_reading)
        w.progress.connect(self._on_progress)
        w.unchanged.connect(self._on_unchanged)
        w.runScored.connect(self._on_run_scored)
        w.runFailed.connect(self._on_run_failed)
        w.runAmbiguous.connect(self._on_run_ambiguous)
        w.finished.connect(self._on_finished)
        w.listsReady.connect(self._on_lists_ready)
        w.confusionReady.connect(controller.confusionReady)  # signal to signal: queued
        w.confusionFailed.connect(controller.confusionFailed)
        w.comparisonReady.connect(self._on_comparison_ready)
        w.comparisonFailed.connect(self._on_comparison_failed)

    # -- scoring ----------------------------------------------------------------------
    def start(self, job: Job, text: str, *, supersede: bool = False) -> int | None:
        """The one way a job starts (its generation; None: not now).  A job of
        runs (no assessment of its own) is scored against the assessment as
        the options' profile reads it: while an assessment is being read,
        the runs wait for it (scored once it is in, :meth:`_adopt`); when the
        profile reads it by other rules than it was read with (the profile
        changed since: trec_eval reads ids as written, sipiran21 matrices by
        id), it is read again first, with every run, as F5 does."""
        if job.assessment is None and self.c.assessment is not None:
            if self.c.pending is not None:
                self.c.status.emit(
                    "The assessment is being read; the runs are scored once it is in."
                )
                return None
            profile = job.options.rules
            if profile.rereads(self.c.assessment, self.c.assessment_source):
                self.c.open_assessment(self.c.assessment_source, keep_session=True)
                if self.c.pending is None:  # refused (the window said why): so do the runs
                    self._not_scored(self.c.entries.values(), app_leaves_out(profile) or "")
                return None
        if not self.c.busy:  # a new batch: the bar counts its runs
            self._queue_total = self._queue_done = 0
            self._phase = {}
        gen = self.c.scoring.start(job, supersede=supersede)
        self._queue_total += len(job.runs)
        self._job_left[gen] = len(job.runs)
        self.c.status.emit(text)
        self.c.progress.emit(self._bar())
        return gen

    def score(self) -> None:
        """F5: score every run that needs it (added, failed, scored with other
        options, its file changed since; the others stay as they are), the
        assessment read again first when the profile reads it otherwise.
        Nothing to do: the status bar says so."""
        if self.c.assessment is None:
            self.c.status.emit(
                "Nothing to score: open an assessment (Ctrl+O), a session or the demo (Ctrl+D)."
            )
            return
        if not self.c.entries:
            self.c.status.emit("No run to score: add runs (Ctrl+R) or a folder.")
            return
        self.start(
            Job(
                [(k, e.source) for k, e in self.c.entries.items()],
                self.c.options,
                only_changed=True,
            ),
            "Scoring…",
        )

    def cancel(self) -> None:
        if self.c.busy:
            self.c.scoring.cancel()
            self.c.status.emit("Cancelling…")

    def shutdown(self) -> None:
        self.c.scoring.shutdown()
        self.c.shapes.shutdown()

    def _current(self, gen: int) -> bool:
        return gen == self.c.scoring.generation

    def _pending_job(self, gen: int) -> bool:
        """Whether ``gen`` is the job reading the assessment now awaited."""
        return self.c.pending is not None and self.c.pending.get("generation") == gen

    def _on_assessment_loaded(self, gen, source, assessment) -> None:
        if not self._pending_job(gen):
            return
        pending, self.c.pending = self.c.pending, None
        self.c.assessment_source = source
        self.c.assessment = assessment
        if not pending["keep_session"]:  # another contest: its own shapes problems
            self.c.shapes.new_contest()
        if pending["options"] is not self.c.options and not pending["keep_session"]:
            self.c.set_options(pending["options"])
        waiting = self._adopt(pending)
        self.c.history.forget_runs_aside()  # read for another reading of the assessment
        if not pending["keep_session"]:  # another contest: another history
            self.c.history.clear()
            self.c.opened = pending.get("contest")
            self.c.recovered = bool(pending.get("recovered"))
        if pending["session"] is not None:  # a session or contest file: now it has opened
            self.c.session_path = pending["session"][0] or None
            self.c.session_view = pending["view"] or {}
            # opened under the command line's options (shrec-gui --profile X): they
            # are how this launch reads the contest, as shrec-eval evaluate
            # CONTEST.json --profile X reads it, not a change of the user's (the
            # same command shows the same again): nothing unsaved, nothing asked
            self.c.saved_state = None if self.c.recovered else self.c.session_state()
            self.c.sessionOpened.emit(*pending["session"])
            if not self.c.recovered:
                self.c.fileUsed.emit(pending["session"][0], True)
        elif not pending["keep_session"]:  # an assessment on its own: no session any more
            self.c.session_path = None
            self.c.session_view = {}
            self.c.assessmentOpened.emit(str(source.path))
            self.c.fileUsed.emit(str(source.path), True)  # read: a recent file now
        self.c.changed.emit()
        if pending.get("recovered"):
            self.c.recoveryEnded.emit("")
        # what changed while it was read: other options (their profile may read it
        # otherwise again), runs added or read another way
        if pending["options"] != self.c.options:
            self.score()
        elif waiting:
            self.c.score_entries(waiting)

    def _adopt(self, pending: dict) -> list[RunEntry]:
        """The runs of an assessment now read: those it was read with (the
        worker scores them), less those removed meanwhile, with the names
        and formats given meanwhile, and the runs added meanwhile.  Returns
        the runs still to score (added, or read another way since)."""
        was, now = pending["was"], self.c.entries
        entries, waiting = {}, []
        for k, s in pending["runs"]:
            old = now.get(was[k]) if k in was else None
            if k in was and old is None:  # removed while it was read
                continue
            e = RunEntry(k, s, s.colour)
            if old is not None:
                e.source, e.colour = old.source, old.colour
                if identity(old.source) != identity(s):
                    waiting.append(e)
            entries[k] = e
        for k, e in now.items():
            if k not in pending["replaces"]:  # added while it was read
                entries[k] = e
                waiting.append(e)
        self.c.entries = entries
        return waiting

    def _on_assessment_failed(self, gen, source, message) -> None:
        if not self._pending_job(gen):
            return
        pending, self.c.pending = self.c.pending, None
        if pending.get("recovered"):
            self.c.problem.emit("Cannot recover the autosave", message + RECOVERY_KEPT)
            self.c.recoveryEnded.emit(message)
            return
        added = [e for k, e in self.c.entries.items() if k not in pending["replaces"]]
        if not pending["keep_session"]:  # the contest open stays: runs added meanwhile join it
            self.c.problem.emit("Cannot open the assessment", message)
            if added:
                self.c.score_entries(added)
            return
        # read again for the options' profile: the runs it was to score say why not
        profile = pending["options"].profile
        unscored = self._not_scored(
            self.c.entries.values(), f"the {profile} profile cannot read the assessment: {message}"
        )
        self.c.problem.emit(
            f"Cannot read the assessment under the {profile} profile",
            f"{message}\n\nNo run is scored under the {profile} profile"
            + (f"; never scored: {', '.join(e.name for e in unscored)}" if unscored else "")
            + "; earlier results are kept (stale). Scoring > Options: another profile.",
        )

    def _not_scored(self, entries, why: str) -> list[RunEntry]:
        """The runs of ``entries`` without a result or an error get ``why``
        they are not scored (Data checks show it; F5 tries again)."""
        out = [e for e in entries if e.result is None and e.error is None]
        for e in out:
            e.error = f"not scored: {why}"
        if out:
            self._changed_soon()
        return out

    def _bar(self, part: float = 0.0) -> int:
        """The progress bar (0..1000): the runs answered, and ``part`` of the next."""
        return int(1000 * min(1.0, (self._queue_done + part) / max(self._queue_total, 1)))

    def _answered(self, gen: int, n: int = 1) -> None:
        self._queue_done += n
        if gen in self._job_left:
            self._job_left[gen] -= n

    def _label(self, key: int, name: str = "") -> str:
        e = self.c.entries.get(key)
        return f"{e.name if e else name} ({self._queue_done + 1} of {self._queue_total})"

    def _on_run_started(self, gen, key, name) -> None:
        if gen in self._job_left:
            self.c.status.emit(f"Scoring {self._label(key, name)}")

    def _on_reading(self, gen, key, done, total) -> None:
        """A run being read: the first part of its share of the bar."""
        if gen not in self._job_left:
            return
        if key not in self._phase:
            self._phase[key] = "reading"
            self.c.status.emit(f"Reading {self._label(key)}")
        self.c.progress.emit(self._bar(READ_SHARE * (done / total if total else 1.0)))

    def _on_progress(self, gen, key, done, total) -> None:
        """A run being scored: the rest of its share (all of it, read from memory)."""
        if gen not in self._job_left:
            return
        read = READ_SHARE if key in self._phase else 0.0
        if self._phase.get(key) == "reading":
            self._phase[key] = "scoring"
            self.c.status.emit(f"Scoring {self._label(key)}")
        self.c.progress.emit(self._bar(read + (1 - read) * (done / total if total else 1.0)))

    def _on_unchanged(self, gen, n) -> None:
        """Runs an F5 left as they were (scored with these options, files
        unchanged): all of the job's, and there was nothing to do."""
        self._unchanged[gen] = n == self._job_left.get(gen)
        self._answered(gen, n)

    def _on_run_scored(self, gen, key, result, run) -> None:
        self._answered(gen)
        e = self.c.entries.get(key)
        if e is None:  # removed meanwhile
            return
        # read under no name (ScoringWorker.run_job): the reader's own, shown
        # unless the run was given one (RunEntry.name)
        e.result, e.error, e.run, e.own_name = result, None, run, result.run_name
        e.base_name = e.source.name or e.own_name
        self.distinct_names()
        self._changed_soon()

    def distinct_names(self) -> None:
        """Two runs of one name (two TREC files of one run tag) shown apart,
        as the command line names them (shrec_eval.service.final_names)."""
        scored = self.c.scored_entries()
        names = distinct_names(
            [e.base_name or e.result.run_name for e in scored],
            [e.result.run_source for e in scored],
        )
        for e, name in zip(scored, names):
            e.result.run_name = name

    def _on_run_failed(self, gen, key, message) -> None:
        self._answered(gen)
        e = self.c.entries.get(key)
        if e is None:  # removed, or of an assessment superseded before it was adopted
            return
        e.error, e.result = message, None  # kept (a session still lists it; F5 tries again)
        self._failures.append(f"{e.name}: {message}")
        self._changed_soon()

    def _on_run_ambiguous(self, gen, key, message, candidates) -> None:
        """A run that fits several formats: kept unread (Data checks quote the
        reader) and the window asks which format (``choose_run_format``)."""
        self._answered(gen)
        e = self.c.entries.get(key)
        if e is None:
            return
        e.error, e.result = message, None
        self._changed_soon()
        self.c.formatAsked.emit(key, str(e.source.path), tuple(candidates))

    def _changed_soon(self) -> None:
        """Results arriving close together are shown in one refresh."""
        if not self.c.changed_timer.isActive():
            self.c.changed_timer.start()

    def _on_finished(self, gen, cancelled) -> None:
        # runs a cancelled or superseded job never answered: off the bar
        self._queue_done += max(self._job_left.pop(gen, 0), 0)
        if self._pending_job(gen):  # stopped before the assessment was in: nothing changes
            self.c.pending = None  # (runs added meanwhile stay unscored: F5 scores them)
        unchanged = self._unchanged.pop(gen, False)
        if self._failures:  # one message for every run of the job that could not be read
            failures, self._failures = self._failures, []
            more = f"\n\n({len(failures) - 3} more in Data checks.)" if len(failures) > 3 else ""
            self.c.problem.emit(
                "Cannot read or score a run"
                if len(failures) == 1
                else f"Cannot read or score {len(failures)} runs",
                "\n\n".join(failures[:3]) + more + "\n\nThe other results are kept.",
            )
        if not self._current(gen):
            return
        self.c.changed_timer.stop()  # the last results now, in every tab
        self.c.changed.emit()
        self.c.progress.emit(-1)
        nothing = unchanged and not cancelled
        self.c.status.emit(
            ("Cancelled; earlier results kept. " if cancelled else "")
            + ("Nothing to score (no option or file changed): " if nothing else "")
            + self.c.scored_status()
        )

    # -- details and comparisons ------------------------------------------------------
    def request_lists(self, query_id: str) -> None:
        """One query's ranked list in every scored run (with item ids and
        classes), made in the worker; answered by listsReady."""
        self._lists_request += 1
        runs = [(e.key, e.name) for e in self.c.scored_entries()]
        self.c.scoring.lists(self._lists_request, query_id, runs)

    def request_confusion(self, key: int, query_class: str) -> None:
        """First-tier classes of one class in one run (scoring.confusion), in the worker."""
        self.c.scoring.requestConfusion.emit(key, query_class)

    def _on_lists_ready(self, request, lists) -> None:
        if request == self._lists_request:  # not an answer to an older question
            self.c.listsReady.emit(lists)

    def compare(self, params: dict) -> None:
        """Compare the runs scored with the current options (a run still
        holding results of older options is left out until re-scored)."""
        results = [
            e.result
            for e in self.c.readable_entries()
            if self.c.is_current(e.result) and params["measure"] in e.result.keys
        ]
        if len(results) < 2:
            self.c.comparisonFailed.emit(
                "At least two runs scored with the current options are needed (F5 scores them)."
            )
            return
        self._comparison += 1
        self.c.scoring.compare(self._comparison, results, params)

    def _on_comparison_ready(self, request, comparison) -> None:
        if request == self._comparison:
            self.c.comparisonReady.emit(comparison)

    def _on_comparison_failed(self, request, message) -> None:
        if request == self._comparison:
            self.c.comparisonFailed.emit(message)
