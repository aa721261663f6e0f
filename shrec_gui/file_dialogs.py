"""The File menu's dialogs of the main window: open an assessment, add runs or a
folder of rank lists (what a file is, and so which reader options it needs, is told
off the GUI thread), open and save sessions (with the window's view state), recent
files (also on the welcome page), closing, and the unsaved-changes question.

A mixin of :class:`~shrec_gui.mainwindow.MainWindow` (it uses the window's
``controller``, ``prefs`` and ``_on_file_used``), so that the window module keeps
to menus, tabs and their wiring."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox
from shrec_eval.contest import AssessmentSource, RunSource
from shrec_eval.resources import demo_manifest

from . import view_state
from .dialogs import ReaderDialog
from .welcome import missing_files
from .worker import classify


class FileDialogs:
    def confirm_discard(self) -> bool:
        """Before the contest is replaced or closed, or the app quits (the one
        question every such path asks): Save (True once written), Discard
        (True) or Cancel (False: nothing changes)."""
        if not self.controller.unsaved():
            return True
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            "The assessment, runs or options changed since the session was last saved. "
            "Save the session first?",
            buttons.Save | buttons.Discard | buttons.Cancel,
            buttons.Save,
        )
        if answer == buttons.Discard:
            return True
        if answer == buttons.Save:
            return self.save_session_action()
        return False

    def _open_file(self, title: str, filters: str) -> str:
        path, _ = QFileDialog.getOpenFileName(self, title, self.prefs.last_folder(), filters)
        return path

    def open_assessment_dialog(self) -> None:
        """A new assessment replaces the open one (the runs are kept and read
        against it): asked about unsaved changes first."""
        if not self.confirm_discard():
            return
        path = self._open_file("Open assessment", "Assessments (*.cla *.qrels *.txt);;All (*)")
        if path:  # what the file is, and so which options it needs, is read off this thread
            self.controller.run_task(
                classify, [path], done=self._assessment_chosen, title="Cannot open the assessment"
            )

    def _assessment_chosen(self, kinds) -> None:
        path, kind = kinds[0]
        values = {}
        if kind in ("cla", "qrels"):
            d = ReaderDialog(kind, path, self, self.prefs.last_folder())
            if d.exec() != QDialog.DialogCode.Accepted:
                return
            values = d.values()
        self.controller.open_assessment(AssessmentSource(path, **values))
        self._on_file_used(path, True)

    def add_runs_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self,
            "Add runs",
            self.prefs.last_folder(),
            "Runs (*.txt *.matrix *.trec *.run *.res *.npy *.npz);;All files (*)",
        )
        if paths:
            self.controller.run_task(classify, paths, done=self._runs_chosen)

    def _runs_chosen(self, kinds) -> None:
        extra = {}
        if any(k == "trec" for _, k in kinds):
            d = ReaderDialog("trec", kinds[0][0], self)
            if d.exec() != QDialog.DialogCode.Accepted:
                return
            extra = d.values()
        features = {}
        first = next((p for p, k in kinds if k == "embeddings"), None)
        if first is not None:  # feature vectors: which distance, how many results
            d = ReaderDialog("embeddings", first, self)
            if d.exec() != QDialog.DialogCode.Accepted:
                return
            features = d.values()
        self.controller.add_runs(
            [RunSource(p, **extra, **(features if k == "embeddings" else {})) for p, k in kinds]
        )

    def add_run_folder_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(
            self, "Add a folder of rank lists", self.prefs.last_folder()
        )
        if path:
            d = ReaderDialog("ranklists", path, self)
            if d.exec() == QDialog.DialogCode.Accepted:
                self.controller.add_runs([RunSource(path, format="ranklists", **d.values())])

    def ask_save_path(self, title: str, name: str, filters: str) -> str:
        start = os.path.join(self.prefs.last_folder(), name)
        path, _ = QFileDialog.getSaveFileName(self, title, start, filters)
        return path

    # -- recent files, closing ----------------------------------------------------------
    def open_recent(self, path: str) -> None:
        """A recent session or assessment (it replaces the contest)."""
        if self.confirm_discard():
            self.controller.open_files([path])

    def _show_recent(self) -> None:
        """The recent files on the welcome page; the missing ones are found
        on a file thread and greyed."""
        items = self.prefs.recent()
        self.welcome.set_recent(items, self.welcome.missing & set(items))
        if items:
            self.controller.run_task(missing_files, items, done=self.welcome.set_missing)

    def forget_recent(self, path: str) -> None:
        self.prefs.forget_recent(path)
        self._rebuild_recent()

    def close_contest(self) -> None:
        """Back to the welcome page (asked about unsaved changes)."""
        if self.confirm_discard():
            self.controller.close()

    # -- sessions -------------------------------------------------------------------------
    def open_session_dialog(self) -> None:
        if not self.confirm_discard():
            return
        path = self._open_file("Open session", "Sessions and contests (*.json);;All files (*)")
        if path:
            self.controller.open_session(path)

    def save_session_action(self) -> bool:
        """Ctrl+S: the session that is open (never the bundled demo manifest);
        whether it was written."""
        path = self.controller.session_path
        demo = str(demo_manifest().parent.resolve())
        if path and not str(Path(path).resolve()).startswith(demo):
            return self.controller.save_session(path, view_state.capture(self))
        return self.save_session_dialog()

    def save_session_dialog(self) -> bool:
        path = self.ask_save_path("Save session", "session.json", "Session (*.json)")
        return bool(path) and self.controller.save_session(path, view_state.capture(self))
