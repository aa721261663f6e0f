"""The File menu's dialogs of the main window: open an assessment, add runs or a
folder of rank lists (what a file is, and so which reader options it needs, is told
off the GUI thread), open and save sessions (with the window's view state), recent
files (also on the welcome page), closing, and the unsaved-changes question.

A mixin of :class:`~shrec_gui.window.main.MainWindow` (it uses the window's
``controller``, ``prefs`` and ``_on_file_used``), so that the window module keeps
to menus, tabs and their wiring."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox, QWidget
from shrec_eval.choices import assessment_file_filters, run_file_filters
from shrec_eval.contest import AssessmentSource, RunSource
from shrec_eval.resources import demo_manifest

from ..widgets.welcome import WelcomePage, missing_files
from ..workers.scoring import classify, read_assessment
from .dialogs import ReaderDialog, TrecOrderDialog
from .settings import Preferences, output_folder

if TYPE_CHECKING:  # the type only: the dialogs get the controller from their host
    from ..state.controller import ContestController


def unsaved_question(parent, changes: list[str], session: str | None) -> tuple:
    """The unsaved-changes question: what changed (``changes``, from
    ContestController.unsaved_changes) and whether there is a session
    (``session``: its file name) to have changed; buttons with mnemonics
    (Alt+S, Alt+D). Returns (box, save button, discard button)."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Unsaved changes")
    if session is None:
        box.setText(f"No session holds {' and '.join(changes)} yet. Save them as a session first?")
    else:
        box.setText(
            f"Changed since the session {session} was opened or saved: "
            f"{'; '.join(changes)}. Save the session first?"
        )
    save = box.addButton("&Save session", QMessageBox.ButtonRole.AcceptRole)
    discard = box.addButton("&Discard changes", QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(save)
    box.setEscapeButton(cancel)
    return box, save, discard


class OutputFolderDialog(QFileDialog):
    """Where an export writes its folder (a report, native files): an
    existing folder, chosen as it is or opened (an empty one, an earlier
    export's: the output gate says whether it may be written), or a new
    folder's name typed in an existing one.  (A save dialog opens every
    existing folder instead of choosing it.)"""

    def __init__(self, parent, title: str, start: str) -> None:
        super().__init__(parent, title)
        self.setOption(QFileDialog.Option.DontUseNativeDialog)  # accept() below decides
        self.setFileMode(QFileDialog.FileMode.Directory)
        self.setOption(QFileDialog.Option.ShowDirsOnly)
        self.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        self.setLabelText(QFileDialog.DialogLabel.Accept, "&Choose")
        self.setDirectory(os.path.dirname(start))
        self.selectFile(os.path.basename(start))

    def accept(self) -> None:
        files = self.selectedFiles()
        path = files[0] if files else ""
        if path and not os.path.lexists(path) and os.path.isdir(os.path.dirname(path)):
            QDialog.accept(self)  # a new folder (Qt's own dialog wants it to exist)
            return
        super().accept()

    def path(self) -> str:
        files = self.selectedFiles()
        return files[0] if files and self.result() == QDialog.DialogCode.Accepted else ""


@dataclass(frozen=True)
class DialogHost:
    """What the File menu's dialogs need of the window, and nothing more:
    the parent of the dialogs, the contest, the preferences, whether to ask
    at all, the welcome page (its recent files), the view state a session
    keeps, the contest's name (read, and set once saved) and the recent
    files' menu to rebuild."""

    parent: QWidget
    controller: ContestController
    prefs: Preferences
    quiet: Callable[[], bool]
    welcome: Callable[[], WelcomePage]
    view: Callable[[], dict]
    contest_name: Callable[[], str | None]
    named: Callable[[str], None]
    recent_changed: Callable[[], None]


class FileDialogs(QObject):
    """The File menu's dialogs, for one main window (through its
    :class:`DialogHost`)."""

    def __init__(self, host: DialogHost) -> None:
        super().__init__(host.parent)
        self.host = host
        #: the unsaved-changes question (or its Save's file dialog) is open
        self.asking_unsaved = False

    def confirm_discard(self) -> bool:
        """Before the contest is replaced or closed, or the app quits (the one
        question every such path asks): Save (True once written), Discard
        (True) or Cancel (False: nothing changes)."""
        if not self.host.controller.unsaved():
            return True
        path = self.host.controller.session_path
        box, save, discard = unsaved_question(
            self.host.parent,
            self.host.controller.unsaved_changes(),
            Path(path).name if path else None,
        )
        # while it (or the save dialog of its Save) is open, a SIGTERM or SIGINT
        # closes the app without asking again, the autosave kept (lifecycle.py)
        self.asking_unsaved = True
        try:
            box.exec()
            if box.clickedButton() is discard:
                return True
            if box.clickedButton() is save:
                return self.save_session_action()
            return False
        finally:
            self.asking_unsaved = False

    def ask_keep_runs(self) -> bool | None:
        """A new assessment over open runs: start clean (the default), keep
        the runs (read and scored against the new assessment), or Cancel
        (None: nothing changes).  Without dialogs (headless): start clean."""
        runs = len(self.host.controller.entries)
        if not runs or self.host.quiet():
            return False
        box = QMessageBox(self.host.parent)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("New assessment")
        them = f"the {runs} runs open and score them" if runs > 1 else "the run open and score it"
        box.setText(f"Start clean, or keep {them} against the new assessment?")
        box.setInformativeText(
            "Runs made for another collection usually do not fit a new assessment."
        )
        clean = box.addButton("Start &clean", QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton("&Keep the runs", QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(clean)
        box.exec()
        if box.clickedButton() is clean:
            return False
        if box.clickedButton() is keep:
            return True
        return None

    def contest_folder(self) -> str | None:
        """The folder of the session open, else of the assessment."""
        c = self.host.controller
        path = c.session_path or (c.assessment_source and c.assessment_source.path)
        return str(Path(path).parent) if path else None

    def _open_file(self, title: str, filters: str) -> str:
        path, _ = QFileDialog.getOpenFileName(
            self.host.parent, title, self.host.prefs.last_folder(), filters
        )
        return path

    def open_assessment_dialog(self) -> None:
        """A new assessment replaces the open one: asked about unsaved
        changes first; the file chosen is read (off this thread), and one
        that cannot be read is said before any question about it; then the
        reader's options and whether to keep the runs (default: start clean)."""
        if not self.confirm_discard():
            return
        path = self._open_file("Open assessment", assessment_file_filters())
        if path:
            options = self.host.controller.options
            self.host.controller.run_task(
                lambda: (
                    classify([path])[0][1],
                    read_assessment(AssessmentSource(path), options.rules),
                ),
                done=lambda found: self._assessment_chosen(path, *found, options),
                title="Cannot open the assessment",
            )

    def _assessment_chosen(self, path: str, kind: str, loaded, options) -> None:
        values = {}
        if kind in ("cla", "qrels"):
            profile = self.host.controller.options.rules
            d = ReaderDialog(
                kind, path, self.host.parent, self.host.prefs.last_folder(), profile=profile
            )
            if d.exec() != QDialog.DialogCode.Accepted:
                return
            values = d.values()
        keep = self.ask_keep_runs()
        if keep is None:
            return
        source = AssessmentSource(path, **values)
        self.host.controller.open_assessment(
            source,
            runs=None if keep else [],
            # read again only when the reader's settings (or the options, and with
            # them the profile's rules) changed since it was read
            loaded=loaded
            if source == AssessmentSource(path) and options is self.host.controller.options
            else None,
        )

    def add_runs_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self.host.parent, "Add runs", self.host.prefs.last_folder(), run_file_filters()
        )
        if paths:
            self.host.controller.run_task(classify, paths, done=self._runs_chosen)

    def _runs_chosen(self, kinds) -> None:
        """The runs chosen, with what they are: the TREC runs among them are
        asked about once, all together (how to order each query's documents),
        unless the profile decides (trec_eval sorts as trec_eval does)."""
        trec = [p for p, k in kinds if k == "trec"]
        order = {}
        if trec and "trec_order" not in self.host.controller.options.rules.reading:
            d = TrecOrderDialog(trec, self.host.parent)
            if d.exec() != QDialog.DialogCode.Accepted:
                return
            order = d.values()
        features = {}
        first = next((p for p, k in kinds if k == "embeddings"), None)
        if first is not None:  # feature vectors: which distance, how many results
            d = ReaderDialog("embeddings", first, self.host.parent)
            if d.exec() != QDialog.DialogCode.Accepted:
                return
            features = d.values()
        self.host.controller.add_runs(
            [
                RunSource(p, **(order if k == "trec" else features if k == "embeddings" else {}))
                for p, k in kinds
            ]
        )

    def add_run_folder_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(
            self.host.parent, "Add a folder of rank lists", self.host.prefs.last_folder()
        )
        if path:
            d = ReaderDialog("ranklists", path, self.host.parent)
            if d.exec() == QDialog.DialogCode.Accepted:
                self.host.controller.add_runs([RunSource(path, format="ranklists", **d.values())])

    def ask_save_path(self, title: str, name: str, filters: str) -> str:
        """Every output (session, report, figure, CSV) is offered in the
        contest's folder, or the documents folder when that is not writable
        or inside the installation (the demo's)."""
        start = os.path.join(output_folder(self.contest_folder()), name)
        path, _ = QFileDialog.getSaveFileName(self.host.parent, title, start, filters)
        return path

    def ask_output_folder(self, title: str, name: str) -> str:
        """The folder an export writes (:class:`OutputFolderDialog`), offered
        where :meth:`ask_save_path` offers files; "" when cancelled."""
        start = os.path.join(output_folder(self.contest_folder()), name)
        dialog = OutputFolderDialog(self.host.parent, title, start)
        try:
            dialog.exec()
            return dialog.path()
        finally:
            dialog.deleteLater()

    # -- recent files, closing ----------------------------------------------------------
    def open_recent(self, path: str) -> None:
        """A recent session or assessment (it replaces the contest)."""
        if self.confirm_discard():
            self.host.controller.open_files([path], ordered=True)

    def show_recent(self) -> None:
        """The recent files on the welcome page; the missing ones are found
        on a file thread and greyed."""
        items = self.host.prefs.recent()
        self.host.welcome().set_recent(items, self.host.welcome().missing & set(items))
        if items:
            self.host.controller.run_task(
                missing_files, items, done=self.host.welcome().set_missing
            )

    def forget_recent(self, path: str) -> None:
        self.host.prefs.forget_recent(path)
        self.host.recent_changed()

    def close_contest(self) -> None:
        """Back to the welcome page (asked about unsaved changes)."""
        if self.confirm_discard():
            self.host.controller.close()

    # -- sessions -------------------------------------------------------------------------
    def open_session_dialog(self) -> None:
        if not self.confirm_discard():
            return
        path = self._open_file("Open session", "Sessions and contests (*.json);;All files (*)")
        if path:
            self.host.controller.open_session(path)

    def save_session_action(self) -> bool:
        """Ctrl+S: the session that is open (never the bundled demo manifest);
        whether it was written."""
        path = self.host.controller.session_path
        demo = str(demo_manifest().parent.resolve())
        if path and not str(Path(path).resolve()).startswith(demo):
            return self.save_session_to(path)
        return self.save_session_dialog()

    def save_session_dialog(self) -> bool:
        path = self.ask_save_path("Save session", "session.json", "Session (*.json)")
        return bool(path) and self.save_session_to(path)

    def save_session_to(self, path: str) -> bool:
        """Write the session under the contest's name (the one it was opened
        with; a new contest takes the file's name), shown in the title."""
        name = self.host.contest_name() or Path(path).stem
        if not self.host.controller.save_session(path, self.host.view(), name):
            return False
        self.host.named(name)
        return True
