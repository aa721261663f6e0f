"""Summary tab: runs x measures (run means), with a menu of columns."""

from __future__ import annotations

from dataclasses import replace
from html import escape
from pathlib import Path

from PySide6.QtCore import QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)
from shrec_eval.scoring.measures import (
    ALIASES,
    FAMILIES,
    UnknownMeasureError,
    canonical,
    columns,
    is_registry_key,
    measure_by_key,
)
from shrec_eval.scoring.measures import resolve as resolve_measure

from ..models.tables import AVERAGE_TEXT, SortProxy, SummaryModel, plural, problems
from ..widgets.stay_open_menu import StayOpenMenu
from ..widgets.table_view import CopyTable
from . import Tab


class SummaryTab(QWidget, Tab):
    title = "Summary"
    columnsChanged = Signal(list)  # measure keys shown

    def __init__(self, controller, columns=(), parent=None) -> None:
        super().__init__(parent)
        self.controller = controller
        ranks = controller.options.ranks
        order = _order(controller.options)
        self.keys = [k for k in order if k in columns] or _headline(controller.options)
        self._options = controller.options  # whose default columns these may be
        self.model = SummaryModel(self)
        self.model.set_columns(self.keys, ranks)
        self.proxy = SortProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = CopyTable()
        self.view.setModel(self.proxy)
        # the Rank column ranks; row numbers would read as ranks in any order
        self.view.verticalHeader().setVisible(False)
        # a measure's column as wide as its values: the last one not stretched to the edge
        self.view.horizontalHeader().setStretchLastSection(False)
        self.view.sortByColumn(SummaryModel.RANK, Qt.SortOrder.AscendingOrder)
        self.view.resized.connect(lambda: self._fit(again=True))  # the headers for the new width
        self.columns_button = QToolButton()
        self.columns_button.setText("Columns")
        self.columns_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.columns_menu = QMenu(self)  # families, each a menu that stays open
        self.columns_button.setMenu(self.columns_menu)
        # find a measure by its key, label or another tool's name (map, P@10, NN)
        self.find_column = QLineEdit()
        self.find_column.setPlaceholderText(
            "Add column: key, label, map, P@10, NN, ndcg(discount=log2_from_1)@10..."
        )
        self.find_column.setClearButtonEnabled(True)
        fm = self.find_column.fontMetrics()
        self.find_column.setMinimumWidth(
            fm.horizontalAdvance(self.find_column.placeholderText()) + 40
        )
        self.find_column.setToolTip(
            "A measure's key, its label, its trec_eval / ir_measures / SHREC toolkit "
            "name, or a measure with parameters (ndcg(gain=exp2,ideal=retrieved)@10: "
            "Help > Measures); Enter adds its column"
        )
        # one completer for the box's lifetime, its names updated in place: Enter in
        # its popup runs the search inside the completer's own event handling, and a
        # completer replaced there was used after it was gone (a segfault)
        self._names = QStringListModel(self)
        completer = QCompleter(self._names, self.find_column)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.find_column.setCompleter(completer)
        self.find_column.returnPressed.connect(self._return_pressed)
        # a suggestion chosen (Enter on it, a click): its column, once the box
        # holds it (the box takes the suggestion after the completer says activated)
        completer.activated[str].connect(lambda _: QTimer.singleShot(0, self._find_column))
        self.assessment_label = QLabel(
            "Open an assessment (File > Open assessment, Ctrl+O), or drop files here."
        )
        self.assessment_label.setWordWrap(True)
        self.rank_label = QLabel("")  # what the table is ranked by, and flagged runs
        self.rank_label.setWordWrap(True)
        self._ranked_for = None  # the assessment the default ranking was applied for
        top = QHBoxLayout()
        top.addWidget(self.assessment_label, 1)
        top.addWidget(self.find_column)
        top.addWidget(self.columns_button)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.rank_label)
        lay.addWidget(self.view, 1)
        self._rebuild_columns_menu()
        controller.changed.connect(self.on_changed)
        controller.optionsChanged.connect(self.set_options)

    def refresh(self) -> None:
        c = self.controller
        a = c.assessment
        if a is not None:
            self.assessment_label.setText(
                f"<b>{Path(a.source.split(' + ')[-1]).name}</b>: {a.kind}, {a.n_queries} "
                f"queries, collection of {a.collection_size}; {plural(len(c.entries), 'run')}"
            )
        self.model.set_rank_key(self.rank_key())
        self.model.set_entries(
            [(e.key, e.name, e.result) for e in c.readable_entries()], c.current_options()
        )
        self._fit()
        self._show_ranking()

    def _fit(self, *, again: bool = False) -> None:
        """Columns sized to their contents when the table's shape changed
        (or ``again``: the table was resized), their headers wrapped when the
        measures would not fit the width otherwise."""
        shape = self.view._shape
        self.view.fit_columns()
        if again or shape != self.view._shape:
            self.view.fit_to_width()

    def rank_key(self) -> str | None:
        """The measure ``shrec-eval evaluate`` ranks these runs by (its default)."""
        c = self.controller
        return (
            None
            if c.assessment is None
            else c.shown_options().rules.table(c.assessment, c.shown_options())[1]
        )

    def _show_ranking(self) -> None:
        """Sort by the CLI's ranking measure once per assessment (the user's
        sort is kept after that), and say what it is and which runs are flagged."""
        c = self.controller
        key = self.rank_key()
        if key is None:
            self.rank_label.setText("")
            return
        shown = c.shown_options()  # what the numbers were scored with (stale until F5)
        m = measure_by_key(key, shown.ranks)
        if self._ranked_for is not c.assessment:
            self.view.sortByColumn(SummaryModel.RANK, Qt.SortOrder.AscendingOrder)
            self._ranked_for = c.assessment
        # a profile may rank by a measure it does not print (boli: ADR), as the CLI says
        where = "" if key in self.keys else " (not a column of this table: Columns adds it)"
        text = (
            f"Rank by <b>{m.label}</b> [{key}]{where}, "
            f"{'higher' if m.higher_is_better else 'lower'} is better: profile "
            f"<b>{shown.profile}</b>, {shown.average} mean ({AVERAGE_TEXT[shown.average]}), "
            f"matrices read <b>{c.matrix_order_words()}</b> (Scoring &gt; Options). "
            "A click on a column sorts by it, best first."
        )
        stale = c.stale_entries()
        if stale:
            n = len(stale)
            text = (
                f"<span style='color: grey'>{text}</span><br><b>Stale:</b> "
                f"{'these results were' if n > 1 else 'this result was'} scored with other "
                "options than the ones now chosen (greyed); F5 scores with the new options."
            )
        flagged = [(e.name, problems(e.result)) for e in c.readable_entries() if problems(e.result)]
        if flagged:
            text += " &nbsp;⚠ Runs with problems (as <tt>shrec-eval check</tt>): " + "; ".join(
                f"<b>{escape(n)}</b>: " + ", ".join(f"{w.code} ({w.count})" for w in ws)
                for n, ws in flagged
            )
        self.rank_label.setText(text)

    def _return_pressed(self) -> None:
        """Enter in the search box: the name typed, unless a suggestion is
        chosen in the popup (the box hears Enter before the completer puts
        that suggestion in it; ``activated`` then brings it)."""
        popup = self.find_column.completer().popup()
        if popup.isVisible() and popup.currentIndex().isValid():
            return
        self._find_column()

    def _find_column(self) -> None:
        """The measure the search box names gets its column."""
        text = self.find_column.text().strip()
        if not text:
            return
        options = self.controller.options
        by_label = {m.label: m.key for m in columns(options)}
        try:
            key = by_label.get(text) or resolve_measure(text, options.rules, options.ranks)
        except UnknownMeasureError as exc:
            self._not_found(str(exc))
            return
        if key not in _known(options):
            if is_registry_key(key):
                self._not_found(
                    f"{text} is {key}: add rank {key.split('@')[-1]} in Scoring > Options"
                )
                return
            # a measure with parameters: the options score it from now on (undoable)
            more = options.measures + (canonical(key),)
            self.controller.change_options(replace(options, measures=more))
        self.find_column.setStyleSheet("")
        self.find_column.clear()
        self.toggle_column(key, True)
        self._rebuild_columns_menu()

    def _not_found(self, message: str) -> None:
        """Say under the search box why a name gives no column (kept as its tooltip)."""
        box = self.find_column
        box.setToolTip(message)
        box.setStyleSheet("color: #c00000;")
        QToolTip.showText(box.mapToGlobal(box.rect().bottomLeft()), message, box)

    def set_options(self, options) -> None:
        """New options: the columns kept where the options still compute
        them; the previous profile's default columns (not chosen by the user)
        become the new profile's, as ``shrec-eval evaluate`` prints them."""
        if self.keys == _headline(self._options):
            self.keys = _headline(options)
        else:
            self.keys = [k for k in _order(options) if k in self.keys] or _headline(options)
        self._options = options
        sort = self.view.sort_state()
        self.model.set_columns(self.keys, options.ranks)
        self.view.restore_sort(sort)
        self._rebuild_columns_menu()

    def _rebuild_columns_menu(self) -> None:
        # the family submenus and their entries go with the old menu (clear()
        # leaves the submenus, children of the menu, alive: one more set per rebuild)
        for a in self.columns_menu.actions():
            if a.menu() is not None:
                a.menu().deleteLater()
        self.columns_menu.clear()
        by_family: dict[str, list] = {}
        options = self.controller.options
        self._update_completer(options)
        for m in columns(options):
            by_family.setdefault(m.family, []).append(m)
        for fam, ms in by_family.items():
            sub = StayOpenMenu(FAMILIES.get(fam, fam), self.columns_menu)
            self.columns_menu.addMenu(sub)
            for m in ms:
                a = QAction(f"{m.label}  [{m.key}]", sub, checkable=True)
                a.setChecked(m.key in self.keys)
                a.toggled.connect(lambda on, k=m.key: self.toggle_column(k, on))
                sub.addAction(a)

    def _update_completer(self, options) -> None:
        """The names the search box suggests: the measures the options
        compute, by key, label and other tools' names (the model changes only
        when they do: never under the popup when its Enter adds a column)."""
        names = []
        for m in columns(options):
            names += [m.key, m.label]
            for a in ALIASES:
                if a.key in (m.key, m.measure.key):
                    names.append(a.name.replace("{k}", str(m.k)))
        names = sorted(set(names), key=lambda n: (n.lower(), n))  # the same order every run
        if names != self._names.stringList():
            self._names.setStringList(names)

    def column_action(self, key: str) -> QAction | None:
        """The Columns menu's entry of a measure."""
        for sub in self.columns_menu.actions():
            for a in sub.menu().actions():
                if a.text().endswith(f"[{key}]"):
                    return a
        return None

    def toggle_column(self, key: str, on: bool) -> None:
        """Show or hide a measure's column; the table stays sorted by the
        column it was sorted by (wherever that column now is)."""
        self._show_columns(set(self.keys) | {key} if on else set(self.keys) - {key})

    def set_columns(self, keys) -> None:
        """Show the columns of ``keys`` (as a session has them; keys that the
        current ranks do not give are left out; none left: the headline ones)."""
        known = set(_known(self.controller.options))
        self._show_columns(set(keys) & known or set(_headline(self.controller.options)))
        self._rebuild_columns_menu()

    def _show_columns(self, keys: set) -> None:
        self.keys = [k for k in _order(self.controller.options) if k in keys]
        sort = self.view.sort_state()
        self.model.set_columns(self.keys, self.controller.options.ranks)
        if not self.view.restore_sort(sort):  # its column went: by rank
            self.view.sortByColumn(SummaryModel.RANK, Qt.SortOrder.AscendingOrder)
        self._fit()
        self._show_ranking()  # whether the measure ranked by is a column
        self.columnsChanged.emit(self.keys)

    def table(self) -> CopyTable:
        return self.view

    def selected_run_keys(self) -> list[int]:
        return self.view.selected_run_keys()

    def set_dark(self, dark: bool) -> None:
        self.model.dark = dark
        self.view.viewport().update()


def _known(options) -> list[str]:
    """The keys of the measures the options compute (the profile's, in
    registry order, then the measures with parameters they ask for)."""
    return [m.key for m in columns(options)]


def _headline(options) -> list[str]:
    """The profile's default columns, in the order ``shrec-eval evaluate``
    prints them (the profile's table: the command line's, the reports')."""
    known = set(_known(options))
    return [k for k in options.rules.table(None, options)[0] if k in known]


def _order(options) -> list[str]:
    """The order of the tab's columns: the profile's default ones as the
    command line prints them, then the others in registry order."""
    headline = _headline(options)
    return headline + [k for k in _known(options) if k not in headline]
