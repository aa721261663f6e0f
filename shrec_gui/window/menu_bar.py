"""The main window's menu bar: File, Edit (undo and redo naming the edit),
Scoring, View, Help, and the recent files.

:class:`MenuBar` is a part of :class:`~shrec_gui.window.main.MainWindow`
(its ``menus``: the actions call the window's slots and its dialogs')."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup, QKeySequence

from .help import help_actions


def _name_action(action: QAction, verb: str, text: str) -> None:
    """Undo / Redo and the edit they would undo or redo."""
    if shiboken6.isValid(action):
        action.setText(f"{verb} {text}" if text else verb)


class MenuBar(QObject):
    """The menus of one :class:`~shrec_gui.window.main.MainWindow` ``w``
    (its part ``menus``): its actions (parented to the window, whose
    shortcuts they are) call the window's slots, its dialogs' and exports'."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.w = window
        self._build_menus()

    def _action(self, menu, text, slot, shortcut=None, tip=None) -> QAction:
        a = QAction(text, self.w)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
        a.triggered.connect(slot)
        menu.addAction(a)
        return a

    def _build_menus(self) -> None:
        c = self.w.controller
        mb = self.w.menuBar()
        f = mb.addMenu("&File")
        self._action(
            f,
            "Open &assessment…",
            self.w.dialogs.open_assessment_dialog,
            QKeySequence.StandardKey.Open,
            "a PSB .cla or TREC qrels",
        )
        self._action(
            f, "Add &runs…", self.w.dialogs.add_runs_dialog, "Ctrl+R", "matrices, TREC runs"
        )
        self._action(
            f,
            "Add run &folder…",
            self.w.dialogs.add_run_folder_dialog,
            "Ctrl+Shift+R",
            "rank-list files",
        )
        f.addSeparator()
        self._action(f, "Open &demo contest", self.w.open_demo, "Ctrl+D")
        self._action(f, "Open &session…", self.w.dialogs.open_session_dialog, "Ctrl+Shift+O")
        self._action(
            f, "&Save session", self.w.dialogs.save_session_action, QKeySequence.StandardKey.Save
        )
        self._action(
            f,
            "Save session &as…",
            self.w.dialogs.save_session_dialog,
            QKeySequence.StandardKey.SaveAs,
        )
        self._action(
            f,
            "&Close contest",
            self.w.dialogs.close_contest,
            QKeySequence.StandardKey.Close,
            "back to the welcome page",
        )
        self.recent_menu = f.addMenu("Recent")
        f.addSeparator()
        self._action(
            f,
            "S&hapes…",
            self.w.shapes_dialog,
            None,
            "the folders of the collection's and the queries' shapes (thumbnails, 3D view)",
        )
        self.export_action = self._action(
            f, "&Export this tab as CSV…", self.w.exports.export_tab_dialog, "Ctrl+E"
        )
        self._action(
            f,
            "Export &report…",
            self.w.exports.export_report_dialog,
            "Ctrl+Shift+E",
            "the report folder of shrec-eval --report, with the figures",
        )
        self._action(
            f,
            "Export &native files…",
            self.w.exports.export_native_dialog,
            None,
            "the evaluator's own output files (shrec-eval --native): boli, psbtable, shapenet17",
        )
        f.addSeparator()
        self._action(f, "&Quit", self.w.quit_action, QKeySequence.StandardKey.Quit)
        e = mb.addMenu("&Edit")
        self._build_undo(e)
        e.addSeparator()
        self._action(
            e, "&Copy selection (TSV)", self.w.copy_selection, QKeySequence.StandardKey.Copy
        )
        s = mb.addMenu("&Scoring")
        self._action(s, "&Score all runs", c.score, "F5")
        self.cancel_action = self._action(s, "&Cancel", c.cancel, "Esc")
        self._action(s, "&Options…", self.w.options_dialog, "Ctrl+,")
        s.addSeparator()
        self.remove_action = self._action(
            s, "&Remove selected runs", self.w.remove_selected_runs, "Del"
        )
        self.rename_action = self._action(
            s, "Re&name run…", self.w.rename_selected_run, "F2", "the name a run is shown under"
        )
        v = mb.addMenu("&View")
        group = QActionGroup(self.w)
        self.light_action = QAction("&Light", self.w, checkable=True)
        self.dark_action = QAction("&Dark", self.w, checkable=True)
        for a, dark in ((self.light_action, False), (self.dark_action, True)):
            group.addAction(a)
            v.addAction(a)
            a.triggered.connect(lambda _=False, d=dark: self.w.set_dark(d))
        v.addSeparator()
        self.sort_action = self._action(
            v,
            "&Sort by the current column",
            self.w.sort_current_table,
            "F9",
            "the column of the table's current cell, as a click on its head; again: the other way",
        )
        h = mb.addMenu("&Help")
        help_actions(self.w, h)  # the shortcuts (F1), measures, profiles, file formats
        h.addSeparator()
        self._action(h, "&About", self.w.about)
        self.rebuild_recent()

    def rebuild_recent(self) -> None:
        self.recent_menu.clear()
        items = self.w.prefs.recent()
        for p in items:
            a = self.recent_menu.addAction(p)
            a.triggered.connect(lambda _=False, path=p: self.w.dialogs.open_recent(path))
        self.recent_menu.setEnabled(bool(items))
        if self.w.showing_welcome():
            self.w.dialogs.show_recent()

    def _build_undo(self, menu) -> None:
        """Edit > Undo and Redo (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y): the
        controller's history (undo.py), their texts naming the edit."""
        history = self.w.controller.history
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
        history.applied.connect(self.w.status_label.setText)
