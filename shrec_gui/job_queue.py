"""The controller's jobs in the scoring thread: reading and scoring runs,
the results as they arrive (coalesced into one refresh), one query's ranked
lists, a class's confusion and the comparison of runs.

:class:`JobQueue` is a part of
:class:`~shrec_gui.controller.ContestController` (a mixin: the controller's
signals and state); the jobs themselves are worker.py's."""

from __future__ import annotations

from dataclasses import replace

from shrec_eval.profiles import get_profile
from shrec_eval.reading.readers import distinct_names

from .run_entry import RunEntry
from .undo import undoable
from .worker import Job


class JobQueue:
    """Scoring, and the worker's answers, for the
    :class:`~shrec_gui.controller.ContestController`."""

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
        self.entries = {k: RunEntry(k, s, s.colour) for k, s in pending["runs"]}
        self.history.forget_runs_aside()  # read for another reading of the assessment
        if not pending["keep_session"]:  # another contest: another history
            self.history.clear()
            self.opened = pending.get("contest")
            self.recovered = bool(pending.get("recovered"))
        if pending["session"] is not None:  # a session or contest file: now it has opened
            self.session_path = pending["session"][0] or None
            self.session_view = pending["view"] or {}
            self._saved_state = None if self.recovered else self._state()
            if self._saved_state is not None and "saved_options" in pending:
                # opened under the command line's options: the file holds its own
                source, runs, _, shapes = self._saved_state
                self._saved_state = (source, runs, pending["saved_options"], shapes)
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
        """First-tier classes of one class in one run (scoring.confusion), in the worker."""
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
