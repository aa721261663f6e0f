"""The main window: open a contest, score it in the worker thread, tables,
curves, the ranked-list strip, data checks, sessions and exports."""

from __future__ import annotations

import csv
import io
import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import shrec_eval
from PySide6 import QtCore
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QColor, QIcon, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from shrec_eval.atomic import write_text
from shrec_eval.contest import Contest
from shrec_eval.errors import ContestFileError, ShrecEvalError
from shrec_eval.measures import FAMILIES, expand
from shrec_eval.options import EvalOptions, OptionsError
from shrec_eval.readers import RANKLIST_VARIANTS, sniff
from shrec_eval.report import HEADLINE, csv_text_cell, default_rank_key
from shrec_eval.resources import demo_manifest, resource_path
from shrec_eval.values import is_number, parse_ranks

from .models import PerQueryModel, SortProxy, SummaryModel, WarningsModel
from .plots import (
    CurvesWidget,
    RankedListWidget,
    colour_for,
    export_csv,
    export_png,
    export_svg,
    set_widget_theme,
)
from .significance import SignificanceWidget
from .worker import AssessmentSpec, Job, RunSpec, ScoringController

SESSION_VERSION = 1
MAX_RECENT = 10
ORG, APP = "shrec-eval", "shrec-gui"


def app_settings() -> QSettings:
    """The app's preferences (an INI file in the user's config folder; tests
    point QSettings' user path at a temporary folder)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORG, APP)


def app_icon() -> QIcon:
    icon = QIcon()
    for s in (16, 32, 48, 64, 128, 256):
        p = resource_path("icons", f"shrec-eval-{s}.png")
        if p.exists():
            icon.addFile(str(p))
    return icon


@dataclass
class RunEntry:
    spec: RunSpec
    colour: str
    result: object = None
    error: str | None = None  # the reader's message when the file could not be used

    @property
    def name(self) -> str:
        if self.result is not None:
            return self.result.run_name
        return self.spec.name or Path(self.spec.path).name


class CopyTable(QTableView):
    """A sortable table whose selection copies as TSV (Ctrl+C)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSortingEnabled(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAlternatingRowColors(True)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setStretchLastSection(True)
        self.verticalHeader().setDefaultSectionSize(22)
        self.verticalHeader().setVisible(True)  # row numbers = rank in the sorted order
        # sizing columns to their contents looks at a sample of rows, not all
        self.horizontalHeader().setResizeContentsPrecision(60)

    def keyPressEvent(self, event) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            QApplication.clipboard().setText(self.selection_tsv())
            return
        super().keyPressEvent(event)

    def selection_tsv(self) -> str:
        idx = self.selectedIndexes()
        if not idx:
            return ""
        rows = sorted({i.row() for i in idx})
        cols = sorted({i.column() for i in idx})
        m = self.model()
        header = [str(m.headerData(c, Qt.Orientation.Horizontal) or "") for c in cols]
        chosen = {(i.row(), i.column()) for i in idx}
        lines = ["\t".join(header)]
        for r in rows:
            lines.append(
                "\t".join(str(m.index(r, c).data() or "") if (r, c) in chosen else "" for c in cols)
            )
        return "\n".join(lines)

    def table_rows(self) -> list[list[str]]:
        m = self.model()
        head = [
            str(m.headerData(c, Qt.Orientation.Horizontal) or "") for c in range(m.columnCount())
        ]
        body = [
            [str(m.index(r, c).data() or "") for c in range(m.columnCount())]
            for r in range(m.rowCount())
        ]
        return [head] + body


class OptionsDialog(QDialog):
    """Engine options (re-score with F5 after changing them)."""

    def __init__(self, options: EvalOptions, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Scoring options")
        f = QFormLayout(self)
        self.ranks = QLineEdit(",".join(str(k) for k in options.ranks))
        self.curve = QSpinBox()
        self.curve.setRange(1, 100000)
        self.curve.setValue(options.curve_length)
        self.levels = QComboBox()
        self.levels.addItems(["21", "11"])
        self.levels.setCurrentText(str(options.pr_levels))
        self.interp = QComboBox()
        self.interp.addItem("max: P(r) = max precision at recall >= r", "max")
        self.interp.addItem("psb: psbPlot / SHREC MATLAB (20 levels, linear)", "psb")
        self.interp.setCurrentIndex(self.interp.findData(options.pr_interpolation))
        self.remove_self = QCheckBox("Remove a query from its own list (leave-one-out)")
        self.remove_self.setChecked(options.remove_self)
        self.cutoff = QCheckBox("Leave classes of at most 2 members out of the means (psbTable)")
        self.cutoff.setChecked(options.psb_class_cutoff)
        self.size = QSpinBox()
        self.size.setRange(0, 2_000_000_000)
        self.size.setSpecialValueText("from the assessment")
        self.size.setValue(options.collection_size or 0)
        f.addRow("Ranks K of the @K measures:", self.ranks)
        f.addRow("Curve length (ranks):", self.curve)
        f.addRow("Precision-recall levels:", self.levels)
        f.addRow("Interpolation:", self.interp)
        f.addRow(self.remove_self)
        f.addRow(self.cutoff)
        f.addRow("Collection size:", self.size)
        bb = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        f.addRow(bb)

    def options(self) -> EvalOptions:
        return EvalOptions(
            ranks=parse_ranks(self.ranks.text()),
            curve_length=self.curve.value(),
            pr_levels=int(self.levels.currentText()),
            pr_interpolation=self.interp.currentData(),
            remove_self=self.remove_self.isChecked(),
            psb_class_cutoff=self.cutoff.isChecked(),
            collection_size=self.size.value() or None,
        )


class ReaderDialog(QDialog):
    """Reader options a file needs: for a .cla the query .cla and graded
    relevance; for qrels the collection size; for rank lists the variant;
    for TREC runs the ordering."""

    def __init__(self, kind: str, path: str, parent=None, start_dir: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Reading {Path(path).name}")
        f = QFormLayout(self)
        self.kind = kind
        self.start_dir = start_dir
        if kind == "cla":
            self.queries = QLineEdit()
            self.queries.setPlaceholderText("none: every model is a query (leave-one-out)")
            browse = QPushButton("Browse…")
            browse.clicked.connect(self._browse)
            row = QHBoxLayout()
            row.addWidget(self.queries, 1)
            row.addWidget(browse)
            f.addRow("Query .cla:", row)
            self.graded = QCheckBox("Graded: same class 2, sister classes 1 (SHREC 2006)")
            f.addRow(self.graded)
        elif kind == "qrels":
            self.size = QSpinBox()
            self.size.setRange(0, 2_000_000_000)
            self.size.setSpecialValueText("the judged documents")
            f.addRow("Collection size:", self.size)
        elif kind == "ranklists":
            self.variant = QComboBox()
            self.variant.addItem("detect from the content", None)
            for v, text in RANKLIST_VARIANTS.items():
                self.variant.addItem(f"{v}: {text}", v)
            f.addRow("Rank-list variant:", self.variant)
        elif kind == "trec":
            self.trec_order = QCheckBox(
                "Sort as trec_eval does (score desc, docno desc) instead of file order"
            )
            f.addRow(self.trec_order)
        bb = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        bb.accepted.connect(self.accept)
        bb.rejected.connect(self.reject)
        f.addRow(bb)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Query classification",
            self.start_dir,
            "PSB classification (*.cla);;All files (*)",
        )
        if path:
            self.queries.setText(path)

    def values(self) -> dict:
        if self.kind == "cla":
            return {
                "queries": self.queries.text().strip() or None,
                "graded": self.graded.isChecked(),
            }
        if self.kind == "qrels":
            return {"collection_size": self.size.value() or None}
        if self.kind == "ranklists":
            return {"variant": self.variant.currentData()}
        if self.kind == "trec":
            return {"trec_order": self.trec_order.isChecked()}
        return {}


class MainWindow(QMainWindow):
    def __init__(self, settings: QSettings | None = None) -> None:
        super().__init__()
        self.settings = settings or app_settings()
        self.setWindowTitle("SHREC evaluation")
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self.options = EvalOptions()
        self.assessment_spec: AssessmentSpec | None = None
        self.assessment = None
        self.entries: dict[int, RunEntry] = {}
        self._next_key = 1
        self._pending: dict | None = None
        self._failures: list[str] = []
        self._queue_total = 0
        self._queue_done = 0
        self.session_path: str | None = None
        self.dark = False
        self.keys = [m.key for m in expand(self.options.ranks) if m.key in HEADLINE]
        self.errors: list[str] = []  # what the user was told (tests read it)
        self.quiet = False  # True: record problems without a dialog (smoke test)

        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(120)
        self._refresh_timer.timeout.connect(self._refresh)
        self._sized: dict = {}
        self.controller = ScoringController(self)
        w = self.controller.worker
        w.assessmentLoaded.connect(self._on_assessment_loaded)
        w.assessmentFailed.connect(self._on_assessment_failed)
        w.runStarted.connect(self._on_run_started)
        w.progress.connect(self._on_progress)
        w.runScored.connect(self._on_run_scored)
        w.runFailed.connect(self._on_run_failed)
        w.finished.connect(self._on_finished)
        # bound methods of this window (not lambdas): Qt then queues the call
        # to the GUI thread; a lambda would run in the worker's thread
        w.detailReady.connect(self._on_detail_ready)
        w.detailFailed.connect(self._on_detail_failed)
        w.comparisonReady.connect(self._on_comparison_ready)
        w.comparisonFailed.connect(self._on_comparison_failed)

        self._build_tabs()
        self._build_status()
        self._build_menus()
        self._restore()
        self._refresh()

    # -- construction ---------------------------------------------------------------
    def _build_tabs(self) -> None:
        self.tabs = QTabWidget()
        self.setCentralWidget(self.tabs)
        # Summary
        self.summary_model = SummaryModel(self)
        self.summary_model.set_columns(self.keys, self.options.ranks)
        self.summary_proxy = SortProxy(self)
        self.summary_proxy.setSourceModel(self.summary_model)
        self.summary_view = CopyTable()
        self.summary_view.setModel(self.summary_proxy)
        self.summary_view.sortByColumn(1, Qt.SortOrder.DescendingOrder)
        self.columns_button = QToolButton()
        self.columns_button.setText("Columns")
        self.columns_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.columns_menu = QMenu(self)
        self.columns_button.setMenu(self.columns_menu)
        self.assessment_label = QLabel(
            "Open an assessment (File > Open assessment, Ctrl+O), or drop files here."
        )
        self.assessment_label.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.assessment_label, 1)
        top.addWidget(self.columns_button)
        page = QWidget()
        lay = QVBoxLayout(page)
        lay.addLayout(top)
        lay.addWidget(self.summary_view, 1)
        self.tabs.addTab(page, "Summary")
        # Per query
        self.pq_model = PerQueryModel(self)
        self.pq_proxy = SortProxy(self)
        self.pq_proxy.setSourceModel(self.pq_model)
        self.pq_view = CopyTable()
        self.pq_view.setModel(self.pq_proxy)
        self.pq_mode = QComboBox()
        self.pq_mode.addItem("One run: queries x measures", "run")
        self.pq_mode.addItem("One measure: queries x runs, with each query's ranking", "measure")
        self.pq_choice = QComboBox()
        self.pq_choice.setMinimumContentsLength(16)
        self.pq_mode.currentIndexChanged.connect(self._refresh_per_query)
        self.pq_choice.currentIndexChanged.connect(self._pq_choice_changed)
        bar = QHBoxLayout()
        bar.addWidget(self.pq_mode)
        bar.addWidget(self.pq_choice, 1)
        page = QWidget()
        lay = QVBoxLayout(page)
        lay.addLayout(bar)
        lay.addWidget(self.pq_view, 1)
        self.tabs.addTab(page, "Per query")
        # Curves
        self.curves = CurvesWidget()
        self.curves.exportRequested.connect(self.export_plot_dialog)
        self.tabs.addTab(self.curves, "Curves")
        # Ranked list
        self.ranked = RankedListWidget()
        self.ranked.detailRequested.connect(self.controller.requestDetail)
        self.tabs.addTab(self.ranked, "Ranked list")
        # Warnings (added after the significance tab below)
        self.warn_model = WarningsModel(self)
        self.warn_proxy = SortProxy(self)
        self.warn_proxy.setSourceModel(self.warn_model)
        self.warn_view = CopyTable()
        self.warn_view.setModel(self.warn_proxy)
        self.tabs.addTab(self.warn_view, "Data checks")
        # Significance
        self.significance = SignificanceWidget(CopyTable)
        self.significance.computeRequested.connect(self._request_comparison)
        self.significance.exportRequested.connect(
            lambda which, fmt: self.export_plot_dialog(fmt, which)
        )
        self.significance.set_measures(self.options.ranks, "ap_trec_r")
        self.tabs.addTab(self.significance, "Significance")
        self._comparison_request = 0

    def _build_status(self) -> None:
        sb = self.statusBar()
        self.status_label = QLabel("Ready")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(260)
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel)
        sb.addWidget(self.status_label, 1)
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.cancel_button)

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
            f,
            "Add run &folder…",
            self.add_run_folder_dialog,
            "Ctrl+Shift+R",
            "a folder of rank-list files",
        )
        f.addSeparator()
        self._action(f, "Open &demo contest", self.open_demo, "Ctrl+D")
        self._action(f, "Open &session…", self.open_session_dialog, "Ctrl+Shift+O")
        self._action(f, "&Save session", self.save_session_action, QKeySequence.StandardKey.Save)
        self._action(
            f, "Save session &as…", self.save_session_dialog, QKeySequence.StandardKey.SaveAs
        )
        self.recent_menu = f.addMenu("Recent")
        f.addSeparator()
        self._action(f, "&Export table as CSV…", self.export_table_dialog, "Ctrl+E")
        f.addSeparator()
        self._action(f, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        e = mb.addMenu("&Edit")
        self._action(e, "&Copy selection (TSV)", self.copy_selection, QKeySequence.StandardKey.Copy)
        s = mb.addMenu("&Scoring")
        self._action(s, "&Score all runs", self.score, "F5")
        self.cancel_action = self._action(s, "&Cancel", self.cancel, "Esc")
        self._action(s, "&Options…", self.options_dialog, "Ctrl+,")
        s.addSeparator()
        self._action(s, "&Remove selected runs", self.remove_selected_runs, "Del")
        v = mb.addMenu("&View")
        group = QActionGroup(self)
        self.light_action = QAction("&Light", self, checkable=True)
        self.dark_action = QAction("&Dark", self, checkable=True)
        for a, dark in ((self.light_action, False), (self.dark_action, True)):
            group.addAction(a)
            v.addAction(a)
            a.triggered.connect(lambda _=False, d=dark: self.set_dark(d))
        h = mb.addMenu("&Help")
        self._action(h, "&About", self.about)
        self._rebuild_columns_menu()
        self._rebuild_recent()

    def _rebuild_columns_menu(self) -> None:
        self.columns_menu.clear()
        by_family: dict[str, list] = {}
        for m in expand(self.options.ranks):
            by_family.setdefault(m.family, []).append(m)
        for fam, ms in by_family.items():
            sub = self.columns_menu.addMenu(FAMILIES.get(fam, fam))
            for m in ms:
                a = QAction(f"{m.label}  [{m.key}]", self, checkable=True)
                a.setChecked(m.key in self.keys)
                a.toggled.connect(lambda on, k=m.key: self.toggle_column(k, on))
                sub.addAction(a)

    def toggle_column(self, key: str, on: bool) -> None:
        order = [m.key for m in expand(self.options.ranks)]
        keys = set(self.keys) | {key} if on else set(self.keys) - {key}
        self.keys = [k for k in order if k in keys]
        self.summary_model.set_columns(self.keys, self.options.ranks)
        self.settings.setValue("summary/columns", self.keys)

    # -- state and preferences ----------------------------------------------------------
    def _restore(self) -> None:
        geo = self.settings.value("window/geometry")
        if geo is not None:
            self.restoreGeometry(geo)
        else:
            self.resize(1200, 760)
        state = self.settings.value("window/state")
        if state is not None:
            self.restoreState(state)
        cols = self.settings.value("summary/columns")
        if isinstance(cols, list) and cols:
            known = [m.key for m in expand(self.options.ranks)]
            self.keys = [k for k in known if k in cols] or self.keys
            self.summary_model.set_columns(self.keys, self.options.ranks)
            self._rebuild_columns_menu()
        self.set_dark(self.settings.value("view/dark", False, type=bool))

    def last_folder(self) -> str:
        return str(self.settings.value("files/lastFolder", str(Path.home())))

    def _remember_folder(self, path: str) -> None:
        p = Path(path)
        self.settings.setValue("files/lastFolder", str(p if p.is_dir() else p.parent))

    def _remember_recent(self, path: str) -> None:
        items = [str(x) for x in (self.settings.value("files/recent", []) or [])]
        if isinstance(items, str):
            items = [items]
        path = str(Path(path).resolve())
        items = [path] + [x for x in items if x != path]
        self.settings.setValue("files/recent", items[:MAX_RECENT])
        self._rebuild_recent()

    def _rebuild_recent(self) -> None:
        self.recent_menu.clear()
        items = self.settings.value("files/recent", []) or []
        if isinstance(items, str):
            items = [items]
        for p in items:
            a = self.recent_menu.addAction(p)
            a.triggered.connect(lambda _=False, path=p: self.open_path(path))
        self.recent_menu.setEnabled(bool(items))

    def set_dark(self, dark: bool) -> None:
        self.dark = bool(dark)
        app = QApplication.instance()
        app.setStyle("Fusion")
        pal = QPalette()
        if self.dark:
            for role, colour in (
                (QPalette.ColorRole.Window, "#2b2b2b"),
                (QPalette.ColorRole.WindowText, "#e8e8e8"),
                (QPalette.ColorRole.Base, "#1f1f1f"),
                (QPalette.ColorRole.AlternateBase, "#2a2a2a"),
                (QPalette.ColorRole.Text, "#e8e8e8"),
                (QPalette.ColorRole.Button, "#353535"),
                (QPalette.ColorRole.ButtonText, "#e8e8e8"),
                (QPalette.ColorRole.Highlight, "#2f6fb2"),
                (QPalette.ColorRole.HighlightedText, "#ffffff"),
                (QPalette.ColorRole.ToolTipBase, "#353535"),
                (QPalette.ColorRole.ToolTipText, "#e8e8e8"),
            ):
                pal.setColor(role, QColor(colour))
        else:
            pal = app.style().standardPalette()
        app.setPalette(pal)
        for m in (self.summary_model, self.pq_model):
            m.dark = self.dark
        for pw in (
            self.curves.plot,
            self.ranked.plot,
            self.significance.means_plot,
            self.significance.h2h_plot,
        ):
            set_widget_theme(pw, self.dark)
        (self.dark_action if self.dark else self.light_action).setChecked(True)
        self.settings.setValue("view/dark", self.dark)
        self.summary_view.viewport().update()

    # -- opening files --------------------------------------------------------------------
    def _new_key(self) -> int:
        k = self._next_key
        self._next_key += 1
        return k

    def open_assessment(
        self,
        path: str,
        *,
        queries: str | None = None,
        graded: bool = False,
        collection_size: int | None = None,
        collection: str | None = None,
        format: str | None = None,
        normalize_ids: bool = True,
        runs: list[dict] | None = None,
        options: EvalOptions | None = None,
        session: dict | None = None,
    ) -> None:
        """Load an assessment in the worker; on success it replaces the
        current one (with ``options`` and ``session`` settings) and the runs
        are scored again; on failure nothing changes and a dialog quotes the
        reader."""
        spec = AssessmentSpec(
            str(path), queries, graded, collection_size, collection, format, normalize_ids
        )
        self._remember_folder(str(path))
        if runs is None:
            runs = [self._entry_dict(e) for e in self.entries.values()]
        specs = [
            RunSpec(
                self._new_key(),
                r["path"],
                r.get("name"),
                r.get("format"),
                r.get("variant"),
                bool(r.get("trec_order", False)),
            )
            for r in runs
        ]
        self._pending = {
            "specs": specs,
            "colours": [r.get("color") for r in runs],
            "options": options or self.options,
            "session": session,
        }
        self._start(
            Job(specs, options or self.options, spec), f"Reading {Path(path).name}…", supersede=True
        )

    def add_runs(
        self, paths, *, format=None, variant=None, trec_order=False, names=None, colours=None
    ) -> None:
        if self.assessment is None:
            self._tell(
                "No assessment",
                "Open the assessment (a .cla or qrels file) first; "
                "the runs are read against its collection.",
            )
            return
        specs = []
        for i, p in enumerate(paths):
            spec = RunSpec(
                self._new_key(), str(p), names[i] if names else None, format, variant, trec_order
            )
            colour = (colours[i] if colours and colours[i] else None) or colour_for(
                len(self.entries)
            )
            self.entries[spec.key] = RunEntry(spec, colour)
            specs.append(spec)
            self._remember_folder(str(p))
        self._refresh()
        self._start(Job(specs, self.options), f"Reading {len(specs)} run(s)…")

    def open_path(self, path: str) -> None:
        """Open a session/contest file, an assessment, or a run, told apart by content."""
        self.open_files([path])

    def open_files(self, paths) -> None:
        """Open files and folders (recent files, drag and drop, command line):
        a session, or an assessment first and then the runs."""
        paths = [str(p) for p in paths]
        kinds = {}
        for p in paths:
            try:
                kinds[p] = "session" if p.lower().endswith(".json") else sniff(p)
            except ContestFileError as exc:
                self._tell("Cannot open the file", str(exc))
                return
            if kinds[p] is None and not os.path.isdir(p):
                self._tell(
                    "Cannot open the file",
                    f"{p}: this is neither an assessment (.cla, "
                    "qrels) nor a run (matrix, TREC run, folder of rank lists).",
                )
                return
        sessions = [p for p in paths if kinds[p] == "session"]
        if sessions:
            self.open_session(sessions[0])
            return
        assessments = [p for p in paths if kinds[p] in ("cla", "qrels")]
        runs = [{"path": p} for p in paths if p not in assessments]
        if assessments:
            self.open_assessment(
                assessments[0], runs=[self._entry_dict(e) for e in self.entries.values()] + runs
            )
            self._remember_recent(assessments[0])
        elif runs:
            self.add_runs([r["path"] for r in runs])

    def _entry_dict(self, e: RunEntry) -> dict:
        return {
            "path": e.spec.path,
            "name": e.spec.name,
            "format": e.spec.format,
            "variant": e.spec.variant,
            "trec_order": e.spec.trec_order,
            "color": e.colour,
        }

    # -- scoring ---------------------------------------------------------------------------
    def _start(self, job: Job, text: str, *, supersede: bool = False) -> None:
        self._queue_total = max(len(job.runs), 1)
        self._queue_done = 0
        self.controller.start(job, supersede=supersede)
        self.status_label.setText(text)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)

    def score(self) -> None:
        """Score every run again (after changing options)."""
        if self.assessment is None:
            self._tell("Nothing to score", "Open an assessment and add runs first.")
            return
        specs = [e.spec for e in self.entries.values()]
        if not specs:
            self.status_label.setText("No run to score: add runs (Ctrl+R) or a folder.")
            return
        self._start(Job(specs, self.options), "Scoring…")

    def cancel(self) -> None:
        if self.controller.busy:
            self.controller.cancel()
            self.status_label.setText("Cancelling…")

    def _current(self, gen: int) -> bool:
        return gen == self.controller.generation

    def _on_assessment_loaded(self, gen, spec, assessment) -> None:
        if not self._current(gen) or self._pending is None:
            return
        pending, self._pending = self._pending, None
        self.assessment_spec = spec
        self.assessment = assessment
        if pending["options"] is not self.options:
            self._set_options(pending["options"])
        self.entries = {
            s.key: RunEntry(s, c or colour_for(i))
            for i, (s, c) in enumerate(zip(pending["specs"], pending["colours"]))
        }
        session = pending.get("session")
        if session is not None:  # a session or contest file: now it has opened
            self.session_path = session["path"]
            self.setWindowTitle(f"SHREC evaluation — {session['name']}")
            self._remember_recent(session["path"])
        self._refresh()

    def _on_assessment_failed(self, gen, spec, message) -> None:
        self._pending = None
        self._tell("Cannot open the assessment", message)

    def _on_run_started(self, gen, key, name) -> None:
        if self._current(gen):
            e = self.entries.get(key)
            label = e.name if e else name
            self.status_label.setText(
                f"Scoring {label} ({self._queue_done + 1} of {self._queue_total})"
            )

    def _on_progress(self, gen, key, done, total) -> None:
        if self._current(gen):
            frac = (self._queue_done + (done / total if total else 1)) / self._queue_total
            self.progress.setValue(int(1000 * frac))

    def _on_run_scored(self, gen, key, result, run) -> None:
        e = self.entries.get(key)
        if e is None:
            return
        taken = {o.name for k, o in self.entries.items() if k != key and o.result is not None}
        if result.run_name in taken:  # two runs of one name: tables and tests need distinct
            n = 2
            while f"{result.run_name} ({n})" in taken:
                n += 1
            result.run_name = f"{result.run_name} ({n})"
        e.result, e.error = result, None
        if self._current(gen):
            self._queue_done += 1
        self._refresh_soon()

    def _refresh_soon(self) -> None:
        """Results arriving close together are shown in one refresh."""
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def _on_detail_ready(self, key, query_id, detail) -> None:
        self.ranked.show_detail(key, query_id, detail)

    def _on_detail_failed(self, key, query_id, message) -> None:
        self.ranked.show_error(key, query_id, message)

    def _request_comparison(self, params: dict) -> None:
        """Compare the runs scored with the current options (a run still
        holding results of older options is left out until re-scored)."""
        results = [
            e.result
            for e in self.entries.values()
            if e.result is not None
            and e.result.options == self.options
            and params["measure"] in e.result.keys
        ]
        if len(results) < 2:
            self.significance.show_error(
                "At least two runs scored with the current options are needed (F5 scores them)."
            )
            return
        self._comparison_request += 1
        self.controller.compare(self._comparison_request, results, params)

    def _on_comparison_ready(self, request, comparison) -> None:
        if request == self._comparison_request:
            self.significance.set_comparison(comparison)

    def _on_comparison_failed(self, request, message) -> None:
        if request == self._comparison_request:
            self.significance.show_error(message)

    def _on_run_failed(self, gen, key, message) -> None:
        e = self.entries.get(key)
        if e is not None:  # kept (a session still lists it; F5 tries again)
            e.error, e.result = message, None
        if self._current(gen):
            self._queue_done += 1
        self._failures.append(message)
        self._refresh_soon()

    def _on_finished(self, gen, cancelled) -> None:
        if self._failures:  # one dialog for every run of the job that could not be read
            failures, self._failures = self._failures, []
            more = f"\n\n({len(failures) - 3} more in Data checks.)" if len(failures) > 3 else ""
            self._tell(
                "Cannot read a run" if len(failures) == 1 else f"Cannot read {len(failures)} runs",
                "\n\n".join(failures[:3]) + more + "\n\nThe other results are kept.",
            )
        if not self._current(gen):
            return
        if self._refresh_timer.isActive():  # show the last results now
            self._refresh_timer.stop()
            self._refresh()
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        current = sum(
            e.result is not None and e.result.options == self.options for e in self.entries.values()
        )
        failed = sum(e.error is not None for e in self.entries.values())
        self.status_label.setText(
            ("Cancelled; earlier results kept. " if cancelled else "")
            + f"{current} of {len(self.entries)} runs scored with the current options"
            + (f"; {failed} could not be read (see Data checks)." if failed else ".")
        )

    # -- views -------------------------------------------------------------------------------
    def scored_entries(self):
        """(name, result or None while pending) of the runs that could be read."""
        return [(e.name, e.result) for e in self.entries.values() if e.error is None]

    def _refresh(self) -> None:
        a = self.assessment
        if a is not None:
            self.assessment_label.setText(
                f"<b>{Path(a.source.split(' + ')[-1]).name}</b>: {a.kind}, {a.n_queries} "
                f"queries, collection of {a.collection_size}; {len(self.entries)} runs"
            )
        entries = self.scored_entries()
        self.summary_model.set_entries(entries)
        self._fit_columns(self.summary_view)
        self.warn_model.set_entries(
            entries, [(e.name, e.error) for e in self.entries.values() if e.error is not None]
        )
        self._fit_columns(self.warn_view)
        self.curves.set_entries(
            [(e.name, e.colour, e.result) for e in self.entries.values() if e.error is None]
        )
        self.ranked.set_entries(
            [(k, e.name, e.result) for k, e in self.entries.items()],
            a.top_grade if a is not None else 2,
        )
        self.significance.set_results(
            {
                e.name: e.result
                for e in self.entries.values()
                if e.result is not None and e.error is None
            }
        )
        self._refresh_per_query()

    def _refresh_per_query(self) -> None:
        mode = self.pq_mode.currentData()
        entries = [x for x in self.scored_entries() if x[1] is not None]
        self.pq_choice.blockSignals(True)
        cur = self.pq_choice.currentData()
        self.pq_choice.clear()
        if mode == "run":
            for name, _ in entries:
                self.pq_choice.addItem(name, name)
        else:
            for m in expand(self.options.ranks):
                self.pq_choice.addItem(f"{m.label} [{m.key}]", m.key)
        i = self.pq_choice.findData(cur)
        if i < 0 and mode == "measure":
            i = self.pq_choice.findData(self._default_rank_key())
        self.pq_choice.setCurrentIndex(max(i, 0))
        self.pq_choice.blockSignals(False)
        self._pq_choice_changed()

    def _default_rank_key(self) -> str:
        return default_rank_key(self.assessment)

    def _pq_choice_changed(self) -> None:
        mode = self.pq_mode.currentData()
        entries = [x for x in self.scored_entries() if x[1] is not None]
        choice = self.pq_choice.currentData()
        if mode == "run":
            names = [n for n, _ in entries]
            self.pq_model.configure(
                entries,
                mode="run",
                run_index=names.index(choice) if choice in names else 0,
                keys=self.keys,
                ranks=self.options.ranks,
            )
        else:
            self.pq_model.configure(
                entries,
                mode="measure",
                measure=choice or self._default_rank_key(),
                ranks=self.options.ranks,
            )
        self._fit_columns(self.pq_view)

    def _fit_columns(self, view: QTableView) -> None:
        """Size the columns to their contents when the table gains rows or
        columns (not on every refresh: it measures cells)."""
        m = view.model()
        shape = (m.rowCount() > 0, m.columnCount(), m.headerData(0, Qt.Orientation.Horizontal))
        if self._sized.get(id(view)) != shape:
            self._sized[id(view)] = shape
            view.resizeColumnsToContents()

    # -- dialogs and actions -----------------------------------------------------------------------
    def _tell(self, title: str, text: str) -> None:
        self.errors.append(text)
        if not self.quiet:
            QMessageBox.warning(self, title, text)

    def open_assessment_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open assessment",
            self.last_folder(),
            "Assessments (*.cla *.qrels *.txt);;All files (*)",
        )
        if not path:
            return
        try:
            kind = sniff(path)
        except ContestFileError as exc:
            self._tell("Cannot open the assessment", str(exc))
            return
        values = {}
        if kind in ("cla", "qrels"):
            d = ReaderDialog(kind, path, self, self.last_folder())
            if d.exec() != QDialog.DialogCode.Accepted:
                return
            values = d.values()
        self.open_assessment(path, **values)
        self._remember_recent(path)

    def add_runs_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self,
            "Add runs",
            self.last_folder(),
            "Runs (*.txt *.matrix *.trec *.run *.res);;All files (*)",
        )
        if not paths:
            return
        kinds = set()
        for p in paths:
            try:
                kinds.add(sniff(p))
            except ContestFileError:
                pass
        extra = {}
        if "trec" in kinds:
            d = ReaderDialog("trec", paths[0], self)
            if d.exec() != QDialog.DialogCode.Accepted:
                return
            extra = d.values()
        self.add_runs(paths, **extra)

    def add_run_folder_dialog(self) -> None:
        path = QFileDialog.getExistingDirectory(
            self, "Add a folder of rank lists", self.last_folder()
        )
        if not path:
            return
        d = ReaderDialog("ranklists", path, self)
        if d.exec() != QDialog.DialogCode.Accepted:
            return
        self.add_runs([path], format="ranklists", **d.values())

    def options_dialog(self) -> None:
        d = OptionsDialog(self.options, self)
        while d.exec() == QDialog.DialogCode.Accepted:
            try:
                opts = d.options()
            except OptionsError as exc:
                self._tell("Scoring options", str(exc))
                continue
            self._set_options(opts)
            self.score()
            return

    def _set_options(self, opts: EvalOptions) -> None:
        self.options = opts
        self.significance.set_measures(opts.ranks, "ap_trec_r")
        known = [m.key for m in expand(opts.ranks)]
        self.keys = [k for k in self.keys if k in known] or [k for k in known if k in HEADLINE]
        self.summary_model.set_columns(self.keys, opts.ranks)
        self._rebuild_columns_menu()

    def remove_selected_runs(self) -> None:
        rows = {
            self.summary_proxy.mapToSource(i).row()
            for i in self.summary_view.selectionModel().selectedIndexes()
        }
        keys = list(self.entries)
        for r in sorted(rows, reverse=True):
            if r < len(keys):
                self.entries.pop(keys[r], None)
                self.controller.requestForget.emit(keys[r])
        self._refresh()

    def copy_selection(self) -> None:
        view = self.focusWidget()
        if not isinstance(view, CopyTable):
            view = self.current_table()
        if view is not None:
            QApplication.clipboard().setText(view.selection_tsv())

    def current_table(self) -> CopyTable | None:
        return {0: self.summary_view, 1: self.pq_view, 4: self.warn_view}.get(
            self.tabs.currentIndex()
        )

    def export_table_dialog(self) -> None:
        view = self.current_table() or self.summary_view
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export table as CSV",
            os.path.join(self.last_folder(), "table.csv"),
            "CSV (*.csv)",
        )
        if path:
            self.export_table(view, path)

    def export_table(self, view: CopyTable, path: str) -> None:
        rows = view.table_rows()
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        for r in rows:
            w.writerow([csv_text_cell(c) if not is_number(c) else c for c in r])
        self._write(path, buf.getvalue())

    def _write(self, path: str, text: str) -> bool:
        try:
            write_text(path, text)
        except OSError as exc:
            self._tell("Cannot write the file", f"{path}: {exc.strerror or exc}")
            return False
        self._remember_folder(path)
        self.status_label.setText(f"Wrote {path}")
        return True

    def _plot_item(self, which: str):
        return self.curves.plot_item if which == "curves" else self.significance.plot_item(which)

    def export_plot_dialog(self, fmt: str, which: str = "curves") -> None:
        filters = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "csv": "CSV (*.csv)"}
        name = f"{self.curves.kind.currentData() if which == 'curves' else which}.{fmt}"
        path, _ = QFileDialog.getSaveFileName(
            self, "Export plot", os.path.join(self.last_folder(), name), filters[fmt]
        )
        if not path:
            return
        width = 1600
        if fmt == "png":
            width, ok = QInputDialog.getInt(
                self,
                "PNG width",
                "Width in pixels:",
                int(self.settings.value("export/width", 1600)),
                200,
                20000,
                100,
            )
            if not ok:
                return
            self.settings.setValue("export/width", width)
        self.export_plot(path, fmt, width, which)

    def export_plot(self, path: str, fmt: str, width: int = 1600, which: str = "curves") -> None:
        """A plot (the curves, or the significance tab's "means" and "h2h") as
        PNG (chosen width, white background), SVG, or CSV of its data;
        written atomically."""
        tmp = f"{path}.part.{fmt}"
        item = self._plot_item(which)
        try:
            if fmt == "png":
                export_png(item, tmp, width)
            elif fmt == "svg":
                export_svg(item, tmp)
            else:
                export_csv(item, tmp)
                _neutralise_csv(tmp)
            os.replace(tmp, path)
        except OSError as exc:
            self._tell("Cannot write the file", f"{path}: {exc.strerror or exc}")
            return
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        self._remember_folder(path)
        self.status_label.setText(f"Wrote {path}")

    # -- sessions --------------------------------------------------------------------------------
    def session_dict(self, base: str) -> dict:
        def rel(p):
            if p is None:
                return None
            try:
                return os.path.relpath(p, base)
            except ValueError:  # another drive (Windows)
                return str(p)

        a = self.assessment_spec
        return {
            "version": SESSION_VERSION,
            "name": "shrec-gui session",
            "assessment": {
                k: v
                for k, v in {
                    "path": rel(a.path),
                    "queries": rel(a.queries),
                    "graded": a.graded,
                    "collection_size": a.collection_size,
                    "collection": rel(a.collection),
                    "format": a.format,
                }.items()
                if v not in (None, False)
            }
            if a
            else None,
            "runs": [
                {
                    k: v
                    for k, v in {
                        "path": rel(e.spec.path),
                        "name": e.spec.name or (e.result.run_name if e.result else None),
                        "format": e.spec.format,
                        "variant": e.spec.variant,
                        "trec_order": e.spec.trec_order,
                        "color": e.colour,
                    }.items()
                    if v not in (None, False)
                }
                for e in self.entries.values()
            ],
            "options": self.options.to_dict(),
        }

    def save_session(self, path: str) -> bool:
        if self.assessment_spec is None:
            self._tell("Nothing to save", "Open an assessment first.")
            return False
        doc = self.session_dict(str(Path(path).resolve().parent))
        if self._write(path, json.dumps(doc, indent=2) + "\n"):
            self.session_path = path
            self._remember_recent(path)
            return True
        return False

    def open_session(self, path: str) -> None:
        try:
            contest = Contest.read(path)
        except ShrecEvalError as exc:
            self._tell("Cannot open the session", str(exc))
            return
        a = contest.assessment
        runs = [
            {k: v for k, v in dict(r.to_dict(), path=str(r.path)).items() if v is not None}
            for r in contest.runs
        ]
        self.open_assessment(
            str(a.path),
            queries=str(a.queries) if a.queries else None,
            graded=a.graded,
            collection_size=a.collection_size,
            collection=str(a.collection) if a.collection else None,
            format=a.format,
            normalize_ids=a.normalize_ids,
            runs=runs,
            options=contest.options,
            session={"path": str(path), "name": contest.name},
        )

    def open_demo(self) -> None:
        self.open_session(str(demo_manifest()))

    def open_session_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open session",
            self.last_folder(),
            "Sessions and contests (*.json);;All files (*)",
        )
        if path:
            self.open_session(path)

    def save_session_action(self) -> None:
        if self.session_path and not str(Path(self.session_path).resolve()).startswith(
            str(demo_manifest().parent.resolve())
        ):
            self.save_session(self.session_path)
        else:
            self.save_session_dialog()

    def save_session_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Save session",
            os.path.join(self.last_folder(), "session.json"),
            "Session (*.json)",
        )
        if path:
            self.save_session(path)

    # -- window ---------------------------------------------------------------------------------
    def about(self) -> None:
        QMessageBox.about(self, "About SHREC evaluation", about_text())

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.open_files(paths)

    def closeEvent(self, event) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()
        self.controller.shutdown()
        super().closeEvent(event)


def _neutralise_csv(path: str) -> None:
    """Text cells of a CSV (curve names come from participants' files) that
    a spreadsheet would run as a formula get a leading quote."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for r in rows:
        w.writerow([c if is_number(c) else csv_text_cell(c) for c in r])
    with open(path, "w", newline="", encoding="utf-8") as fh:
        fh.write(buf.getvalue())


def about_text() -> str:
    return (
        f"<h3>SHREC evaluation {shrec_eval.__version__}</h3>"
        "<p>Scores 3D shape retrieval contests (SHREC, Princeton Shape Benchmark): every "
        "measure of the SHREC 2006 and SHREC 2012 / PSB evaluations.</p>"
        f"<p>Python {platform.python_version()}, Qt {QtCore.qVersion()}, "
        f"PySide6 {_version('PySide6')}, numpy {np.__version__}, "
        f"pyqtgraph {pg.__version__}</p>"
    )


def _version(mod: str) -> str:
    try:
        return __import__(mod).__version__
    except (ImportError, AttributeError):
        return "?"


__all__ = ["MainWindow", "app_settings"]
