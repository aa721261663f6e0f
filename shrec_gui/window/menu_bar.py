"""The main window's menu bar: File, Edit (undo and redo naming the edit),
Scoring, View, Help, and the recent files.

:class:`MenuBar` is a part of :class:`~shrec_gui.window.main.MainWindow` (a
mixin: the actions call the window's slots and its dialogs')."""

from __future__ import annotations

import shiboken6
from PySide6.QtGui import QAction, QActionGroup, QKeySequence

from .help import help_actions


def _name_action(action: QAction, verb: str, text: str) -> None:
    """Undo / Redo and the edit they would undo or redo."""
    if shiboken6.isValid(action):
        action.setText(f"{verb} {text}" if text else verb)


class MenuBar:
    """The menus of the :class:`~shrec_gui.window.main.MainWindow`."""

    def _action(self, menu, text, slot, shortcut=None, tip=None) -> QAction:
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        a.triggered.connect(slot)
        menu.addAction(a)
        return a

    def _build_menus(self) -> None:
        c = self.controller
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self._action(
            f,
            "Open &assessment…",
            self.open_assessment_dialog,
            QKeySequence.StandardKey.Open,
            "a PSB .cla or TREC qrels",
        )
        self._action(f, "Add &runs…", self.add_runs_dialog, "Ctrl+R", "matrices, TREC runs")
        self._action(
            f, "Add run &folder…", self.add_run_folder_dialog, "Ctrl+Shift+R", "rank-list files"
        )
        f.addSeparator()
        self._action(f, "Open &demo contest", self.open_demo, "Ctrl+D")
        self._action(f, "Open &session…", self.open_session_dialog, "Ctrl+Shift+O")
        self._action(f, "&Save session", self.save_session_action, QKeySequence.StandardKey.Save)
        self._action(
            f, "Save session &as…", self.save_session_dialog, QKeySequence.StandardKey.SaveAs
        )
        self._action(
            f,
            "&Close contest",
            self.close_contest,
            QKeySequence.StandardKey.Close,
            "back to the welcome page",
        )
        self.recent_menu = f.addMenu("Recent")
        f.addSeparator()
        self._action(
            f,
            "S&hapes…",
            self.shapes_dialog,
            None,
            "the folders of the collection's and the queries' shapes (thumbnails, 3D view)",
        )
        self.export_action = self._action(
            f, "&Export this tab as CSV…", self.exports.export_tab_dialog, "Ctrl+E"
        )
        self._action(
            f,
            "Export &report…",
            self.exports.export_report_dialog,
            "Ctrl+Shift+E",
            "the report folder of shrec-eval --report, with the figures",
        )
        self._action(
            f,
            "Export &native files…",
            self.exports.export_native_dialog,
            None,
            "the evaluator's own output files (shrec-eval --native): boli, psbtable, shapenet17",
        )
        f.addSeparator()
        self._action(f, "&Quit", self.quit_action, QKeySequence.StandardKey.Quit)
        e = mb.addMenu("&Edit")
        self._build_undo(e)
        e.addSeparator()
        self._action(e, "&Copy selection (TSV)", self.copy_selection, QKeySequence.StandardKey.Copy)
        s = mb.addMenu("&Scoring")
        self._action(s, "&Score all runs", c.score, "F5")
        self.cancel_action = self._action(s, "&Cancel", c.cancel, "Esc")
        self._action(s, "&Options…", self.options_dialog, "Ctrl+,")
        s.addSeparator()
        self.remove_action = self._action(
            s, "&Remove selected runs", self.remove_selected_runs, "Del"
        )
        self.rename_action = self._action(
            s, "Re&name run…", self.rename_selected_run, "F2", "the name a run is shown under"
        )
        v = mb.addMenu("&View")
        group = QActionGroup(self)
        self.light_action = QAction("&Light", self, checkable=True)
        self.dark_action = QAction("&Dark", self, checkable=True)
        for a, dark in ((self.light_action, False), (self.dark_action, True)):
            group.addAction(a)
            v.addAction(a)
            a.triggered.connect(lambda _=False, d=dark: self.set_dark(d))
        v.addSeparator()
        self.sort_action = self._action(
            v,
            "&Sort by the current column",
            self.sort_current_table,
            "F9",
            "the column of the table's current cell, as a click on its head; again: the other way",
        )
        h = mb.addMenu("&Help")
        help_actions(self, h)  # the shortcuts (F1), measures, profiles, file formats
        h.addSeparator()
        self._action(h, "&About", self.about)
        self._rebuild_recent()

    def _rebuild_recent(self) -> None:
        self.recent_menu.clear()
        items = self.prefs.recent()
        for p in items:
            a = self.recent_menu.addAction(p)
            a.triggered.connect(lambda _=False, path=p: self.open_recent(path))
        self.recent_menu.setEnabled(bool(items))
        if self.showing_welcome():
            self._show_recent()

    def _build_undo(self, menu) -> None:
        """Edit > Undo and Redo (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y): the
        controller's history (undo.py), their texts naming the edit."""
        history = self.controller.history
        stack = history.stack
        self.undo_action = self._action(menu, "&Undo", history.undo, QKeySequence.StandardKey.Undo)
        self.redo_action = self._action(menu, "&Redo", history.redo)
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])

        # the signals carry what they tell (the stack may be going away with the window)
        stack.canUndoChanged.connect(self.undo_action.setEnabled)
        stack.canRedoChanged.connect(self.redo_action.setEnabled)
        stack.undoTextChanged.connect(lambda t: _name_action(self.undo_action, "&Undo", t))
        stack.redoTextChanged.connect(lambda t: _name_action(self.redo_action, "&Redo", t))
        self.undo_action.setEnabled(False)
        self.redo_action.setEnabled(False)
        history.applied.connect(self.status_label.setText)
