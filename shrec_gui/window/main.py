"""The main window: menus, the tabs and their wiring, the status bar, drag
and drop, and closing.  The contest lives in the ContestController
(state/controller.py), each tab in ``shrec_gui.tabs``; the window holds its
``menus`` (menu_bar.py), ``dialogs`` (the File menu's, through a DialogHost)
and ``exports`` (exports/actions.py, through an ExportHost)."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)
from shrec_eval.options import OptionsError
from shrec_eval.reading.formats.order import readable_by_id
from shrec_eval.resources import demo_manifest, resource_path
from shrec_eval.shapes.index import ShapesSource, shapes_folders

from ..exports.actions import ExportActions, ExportHost
from ..state.controller import ContestController
from ..state.view_state import capture as capture_view
from ..state.view_state import restore as restore_view
from ..widgets.job_progress import JobProgress
from ..widgets.reading_banner import ReadingBanner
from ..widgets.table_view import CopyTable
from ..widgets.welcome import WelcomePage
from .dialogs import OptionsDialog, about_text, ask_run_format
from .file_dialogs import DialogHost, FileDialogs
from .menu_bar import MenuBar
from .settings import Preferences, app_settings, apply_theme
from .shapes_dialog import ShapesDialog
from .tab_pages import MADE_AT_ONCE, TabOf, TabPages, window_tabs


def app_icon() -> QIcon:
    icon = QIcon()
    for s in (16, 32, 48, 64, 128, 256):
        p = resource_path("icons", f"shrec-eval-{s}.png")
        if p.exists():
            icon.addFile(str(p))
    return icon


class MainWindow(QMainWindow):
    # the tabs, made with the window or when first shown or read (window/tab_pages.py)
    summary = TabOf()
    per_query = TabOf()
    per_class = TabOf()
    curves = TabOf()
    ranked = TabOf()
    checks = TabOf()
    significance = TabOf()

    def __init__(self, settings: QSettings | None = None) -> None:
        super().__init__()
        self.prefs = Preferences(settings)
        self.setWindowTitle("SHREC evaluation")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.dark = False
        self.errors: list[str] = []  # what the user was told (tests read it)
        self.quiet = False  # True: record problems without a dialog (smoke test)
        self._closed = False  # set on close: no more catching up of tabs
        self.contest_name: str | None = None  # of the session opened or saved
        self.controller = c = ContestController(self)
        c.problem.connect(self._on_problem)
        c.fileUsed.connect(self._on_file_used)
        c.sessionOpened.connect(self._on_session_opened)
        c.assessmentOpened.connect(self._on_assessment_opened)
        c.closed.connect(self._on_closed)
        self._view_to_restore: dict | None = None  # a session's, once its runs are scored
        c.formatAsked.connect(self._on_format_asked)
        self.dialogs = FileDialogs(  # the File menu's dialogs
            DialogHost(
                parent=self,
                controller=c,
                prefs=self.prefs,
                quiet=lambda: self.quiet,
                welcome=lambda: self.welcome,
                view=lambda: capture_view(self),
                contest_name=lambda: self.contest_name,
                named=self.set_contest_name,
                recent_changed=lambda: self.menus.rebuild_recent(),
            )
        )
        self.exports = ExportActions(
            ExportHost(
                parent=self,
                controller=c,
                prefs=self.prefs,
                say=lambda text: self.status_label.setText(text),
                ask_save_path=lambda *args: self.dialogs.ask_save_path(*args),
                ask_output_folder=lambda *args: self.dialogs.ask_output_folder(*args),
                tabs=self.named_tabs,
                current_tab=self.current_tab,
            )
        )
        self._build_tabs()
        self._build_status()
        self.menus = MenuBar(self)  # the menu bar's actions
        self.prefs.restore_window(self)
        self.set_dark(self.prefs.dark())
        self._show_page()

    # -- construction -----------------------------------------------------------------
    def _build_tabs(self) -> None:
        c = self.controller
        self.tabs = QTabWidget()
        self.welcome = WelcomePage(app_icon())
        self.welcome.demoRequested.connect(self.open_demo)
        self.welcome.assessmentRequested.connect(self.dialogs.open_assessment_dialog)
        self.welcome.sessionRequested.connect(self.dialogs.open_session_dialog)
        self.welcome.recentActivated.connect(self.dialogs.open_recent)
        self.welcome.recentRemoved.connect(self.dialogs.forget_recent)
        self.pages = QStackedWidget()  # the welcome page until a contest is open, then the tabs
        # the contest's page: a banner for checks that change numbers, over the tabs
        self.banner = ReadingBanner(c)
        self.contest_page = QWidget()
        column = QVBoxLayout(self.contest_page)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.banner)
        column.addWidget(self.tabs, 1)
        self.pages.addWidget(self.welcome)
        self.pages.addWidget(self.contest_page)
        self._show(self.welcome)
        self.setCentralWidget(self.pages)
        c.changed.connect(self._show_page)
        self.tab_pages = TabPages(self.tabs, window_tabs(self), made=self._tab_made)
        for name in MADE_AT_ONCE:  # the others when shown or read
            self.tab_pages[name]
        self.controller.changed.connect(self._catch_up_later)
        self.controller.changed.connect(self.show_unsaved)

    def _tab_made(self, tab) -> None:
        """A tab made (first shown or read): the theme, the contest as it is."""
        tab.set_dark(self.dark)
        tab.refresh()

    def set_contest_name(self, name: str | None) -> None:
        """The contest's name (a session's, opened or saved), in the title."""
        self.contest_name = name
        self.set_title(name)

    def set_title(self, name: str | None) -> None:
        """The title: the app, the contest's name (its session, else its
        assessment file), and an asterisk while it has unsaved changes (Qt's
        ``[*]``: the window-modified mark of each platform)."""
        self.setWindowTitle(f"SHREC evaluation — {name}[*]" if name else "SHREC evaluation")
        self.show_unsaved()

    def shown_title(self) -> str:
        """The title as the window shows it (the ``[*]`` placeholder as "*"
        while there are unsaved changes, else nothing)."""
        return self.windowTitle().replace("[*]", "*" if self.isWindowModified() else "")

    def show_unsaved(self) -> None:
        """The title's unsaved mark: what the unsaved-changes question would ask about."""
        self.setWindowModified(self.controller.unsaved())

    def _catch_up_later(self) -> None:
        if not self.controller.busy and not self._closed:
            QTimer.singleShot(0, self.catch_up)

    def catch_up(self) -> None:
        """Refresh one hidden tab that missed changes, then let the event
        loop run before the next (no job running; never once the window has
        closed: its widgets may be going away)."""
        if self.controller.busy or self._closed:
            return
        for tab in self.tab_pages.made_tabs():  # one not made yet misses nothing
            if tab.missed_changes:
                tab.refresh_if_stale()
                QTimer.singleShot(0, self.catch_up)
                return

    def caught_up(self) -> bool:
        """Every tab shows the current runs and results."""
        return not any(tab.missed_changes for tab in self.tab_pages.made_tabs())

    def showing_welcome(self) -> bool:
        return self.pages.currentWidget() is self.welcome

    def _show_page(self) -> None:
        """The tabs while a contest is open (the tab shown catches up with
        what changed while hidden), else the welcome page with the recent files."""
        if self.controller.assessment_source is not None:
            if self.showing_welcome():
                self._show(self.contest_page)
                self.current_tab().refresh_if_stale()
        elif not self.showing_welcome():
            self._show(self.welcome)
            self.dialogs.show_recent()
            self.welcome.demo_button.setFocus()

    def _show(self, page) -> None:
        """Show a page; only its own minimum size bounds the window's (a
        hidden page's is ignored: the welcome page fits a narrow window)."""
        for w in (self.welcome, self.contest_page):
            policy = QSizePolicy.Policy.Preferred if w is page else QSizePolicy.Policy.Ignored
            w.setSizePolicy(policy, policy)
        self.pages.setCurrentWidget(page)

    def all_tabs(self) -> list:
        """Every tab (made now where it was not)."""
        return list(self.named_tabs().values())

    def named_tabs(self) -> TabPages:
        """The tabs by name (what the exports ask for), each made when read."""
        return self.tab_pages

    def current_tab(self):
        return self.tabs.currentWidget()

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.status_label = QLabel("Ready")
        # a long status is cut at the window's edge, not a reason for a wider window
        self.status_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.progress = JobProgress()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.controller.cancel)
        sb.addWidget(self.status_label, 1)
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.cancel_button)
        self.controller.status.connect(self.status_label.setText)
        self.controller.progress.connect(self._on_progress)

    def _on_progress(self, value: int) -> None:
        if value < 0 and self._view_to_restore is not None:  # the session's runs are scored
            view, self._view_to_restore = self._view_to_restore, None
            # the rest (the tab was shown at opening: a tab chosen since stays)
            restore_view(self, {k: v for k, v in view.items() if k != "tab"})
        self.progress.show_step(value)
        self.cancel_button.setVisible(value >= 0)

    def set_dark(self, dark: bool) -> None:
        self.dark = bool(dark)
        apply_theme(self.dark)
        for tab in self.tab_pages.made_tabs():  # the others when they are made
            tab.set_dark(self.dark)
        self.welcome.set_dark(self.dark)
        self.banner.set_dark(self.dark)
        (self.menus.dark_action if self.dark else self.menus.light_action).setChecked(True)
        self.prefs.set_dark(self.dark)

    # -- what the controller tells --------------------------------------------------
    def _on_problem(self, title: str, text: str) -> None:
        self._tell(title, text)

    def _tell(self, title: str, text: str) -> None:
        self.errors.append(text)
        if not self.quiet:
            QMessageBox.warning(self, title, text)

    def _on_format_asked(self, key: int, path: str, candidates) -> None:
        """A run fits several formats: ask which, and read it again so."""
        if self.quiet:
            self.errors.append(f"{path}: fits {', '.join(candidates)}")
            return
        fmt = ask_run_format(self, path, candidates)
        if fmt is not None:
            self.controller.choose_run_format(key, fmt)

    def _on_file_used(self, path: str, recent: bool) -> None:
        self.prefs.remember_folder(path)
        if recent:
            self.prefs.remember_recent(path)
            self.menus.rebuild_recent()

    def _on_session_opened(self, path: str, name: str) -> None:
        """A session opened: its view state now (the tab, columns, curve
        kind), and again once its runs are scored (the sorts by runs' columns,
        a run chosen)."""
        self.set_contest_name(name)
        view = self.controller.session_view
        restore_view(self, view)
        self._view_to_restore = view or None

    def _on_assessment_opened(self, path: str) -> None:
        """An assessment opened on its own: the title names it (no session)."""
        self.set_title(Path(path).name)
        self._view_to_restore = None

    def _on_closed(self) -> None:
        self._view_to_restore = None
        self.contest_name = None
        self.set_title(None)

    # -- opening ------------------------------------------------------------------------
    def open_files(self, paths, *, given=None, ordered=False) -> None:
        """Files and folders dropped (the assessment among them told by
        content) or ``ordered`` as on the command line (a session, or the
        assessment first and the runs after it, as shrec-eval takes them),
        read off the GUI thread; asked about unsaved changes before a session
        or an assessment replaces the contest.  ``given``: the command line's
        scoring options, over the contest's."""
        self.controller.open_files(
            paths,
            confirm=self.dialogs.confirm_discard,
            keep_runs=self.dialogs.ask_keep_runs,
            given=given,
            ordered=ordered,
        )

    def open_demo(self, *, given=None) -> None:
        if self.dialogs.confirm_discard():
            self.controller.open_session(str(demo_manifest()), given=given)

    def options_dialog(self) -> None:
        c = self.controller
        d = OptionsDialog(
            c.options,
            self,
            matrix_order=c.matrix_order() if c.assessment_source is not None else None,
            by_id=c.assessment is None or readable_by_id(c.assessment),
        )
        try:
            while d.exec() == QDialog.DialogCode.Accepted:
                try:
                    opts = d.options()
                except OptionsError as exc:
                    self._tell("Scoring options", str(exc))
                    continue
                c.change_options(opts, matrix_order=d.chosen_matrix_order())  # undoable
                return
        finally:
            d.deleteLater()  # one dialog per opening, not one kept per opening

    # -- runs, copy and export ----------------------------------------------------------
    def remove_selected_runs(self) -> None:
        """Del: the runs selected in the current tab (Summary or Data checks), by key;
        on the welcome page, the recent file selected."""
        if self.showing_welcome():
            self.welcome.remove_current()
            return
        self.controller.remove(self.current_tab().selected_run_keys())

    def rename_selected_run(self) -> None:
        """F2: a name for the run selected (undoable)."""
        c = self.controller
        keys = [] if self.showing_welcome() else self.current_tab().selected_run_keys()
        keys = [k for k in keys if k in c.entries]
        if not keys:
            self.status_label.setText("Select a run (Summary or Data checks) to rename it.")
            return
        e = c.entries[keys[0]]
        name, ok = QInputDialog.getText(
            self,
            "Rename run",
            f"New name for {e.name} (empty: the name its file gives):",
            text=e.name,
        )
        if ok:
            c.rename_run(e.key, name)

    def copy_selection(self) -> None:
        view = self.focusWidget()
        if not isinstance(view, CopyTable):
            view = self.current_tab().table()
        if view is not None:
            QApplication.clipboard().setText(view.selection_tsv())

    def sort_current_table(self) -> None:
        """F9: the table with the focus (else the current tab's) sorted by
        the column of its current cell, as a click on that column's head."""
        view = self.focusWidget()
        if not isinstance(view, CopyTable):
            view = None if self.showing_welcome() else self.current_tab().table()
        done = view.sort_by_current_column() if view is not None else None
        self.status_label.setText(
            f"{done}; F9 again: the other way."
            if done
            else "This table keeps its own order (not sorted by a column)."
            if view is not None
            else "No table to sort here."
        )

    def show_query(self, query_id: str) -> None:
        """A query picked (a Per query row, a head-to-head point): its curves
        and its ranked list."""
        self.curves.select_query(query_id)
        self.ranked.select_query(query_id)
        self.tabs.setCurrentWidget(self.curves)

    # -- window ---------------------------------------------------------------------------
    def shapes_dialog(self) -> None:
        """File > Shapes…: the shapes folders of the contest (saved in sessions)."""
        shapes = self.controller.shapes
        dialog = ShapesDialog(shapes.source, shapes.query_source, self)
        try:
            if not dialog.exec():
                return
            self.controller.set_shapes(*dialog.result_sources)  # undoable
            folders = [str(s.path) for s in dialog.result_sources if s is not None]
            self.status_label.setText(
                f"Shapes: {', '.join(folders)}"
                if folders
                else "No shapes folder: no thumbnails, no 3D view."
            )
        finally:
            dialog.deleteLater()

    def about(self) -> None:
        QMessageBox.about(self, "About SHREC evaluation", about_text())

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.open_dropped(paths)

    def open_dropped(self, paths) -> None:
        """Dropped files and folders: a folder of shapes (meshes or images,
        told apart on a file thread) becomes the contest's shapes folder (a
        second one the query shapes folder); the rest opens as files do."""
        if not any(os.path.isdir(p) for p in paths):
            self.open_files(paths)
            return

        def found(folders) -> None:
            if folders:
                sources = [ShapesSource(f) for f in folders[:2]]
                self.controller.set_shapes(*sources)  # undoable
                self.status_label.setText(f"Shapes: {', '.join(folders[:2])}")
            rest = [p for p in paths if p not in folders]
            if rest:
                self.open_files(rest)

        self.controller.run_task(shapes_folders, list(paths), done=found)

    def quit_action(self) -> None:
        if self.dialogs.confirm_discard():
            self.close()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.prefs.fit_placed_window(self)  # its frame known now

    def closeEvent(self, event) -> None:
        # the window's close button asks; close() from code (Quit, tests) has asked or won't
        if event.spontaneous() and not self.dialogs.confirm_discard():
            event.ignore()
            return
        self.prefs.save_window(self)
        self._closed = True
        self.controller.shutdown()
        super().closeEvent(event)


__all__ = ["MainWindow", "app_settings", "app_icon"]
