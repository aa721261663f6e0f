"""Table models (Vorta's pattern: display strings for DisplayRole, native
values in a sort role, a proxy that compares them): the roles, the proxy,
the Summary, Data checks and p-value (Significance) tables.  The Per query
table is per_query.py, the Per class tables per_class.py."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QApplication, QStyle
from shrec_eval.model.values import nullable
from shrec_eval.option_schema import by_name
from shrec_eval.outputs.report import fmt
from shrec_eval.scoring.measures import measure_by_key
from shrec_eval.service import PROBLEMS

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
KEY_ROLE = Qt.ItemDataRole.UserRole + 2  # the run key of a row (removal goes by key)
#: a horizontal header's column id (a measure key, "run"...): what a sort
#: follows when columns come and go (CopyTable.sort_state)
COLUMN_ROLE = Qt.ItemDataRole.UserRole + 3
BEST = QColor(198, 239, 206)
BEST_DARK = QColor(40, 110, 60)
PROBLEM = QColor(250, 210, 205)
PROBLEM_DARK = QColor(120, 45, 40)


#: average -> its words (the Summary and the Options dialog say them): the
#: option schema's
AVERAGE_TEXT = {v: words.split(": ", 1)[1] for v, words in by_name("average").widget.items}


def problems(result) -> list:
    """The data checks of a run that ``shrec-eval check`` calls problems
    (unknown or repeated ids, missing queries...), not notes."""
    return [w for w in result.warnings if w.code in PROBLEMS] if result is not None else []


def problem_text(result) -> str:
    """One line per problem: code, count and what it means."""
    return "\n".join(f"{w.code} ({w.count}): {app_words(w)}" for w in problems(result))


def plural(n: int, word: str, words: str | None = None) -> str:
    """ "1 run", "4 runs" (``words``: the plural when not word + "s")."""
    return f"{n} {word if n == 1 else words or word + 's'}"


def natural_key(text: str) -> tuple:
    """Sort key that orders q9 before q10 (numbers inside ids compare as numbers)."""
    return tuple(
        (0, int(p), "") if p.isdigit() else (1, 0, p.lower()) for p in re.split(r"(\d+)", text) if p
    )


class SortProxy(QSortFilterProxyModel):
    """Sorts on SORT_ROLE; empty (undefined) values sort last either way."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        # row numbers are ranks in the current order, not the source's rows
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return section + 1
        return super().headerData(section, orientation, role)

    def lessThan(self, left, right) -> bool:
        a = left.data(SORT_ROLE)
        b = right.data(SORT_ROLE)
        asc = self.sortOrder() == Qt.SortOrder.AscendingOrder
        if a is None or b is None:
            if a is None and b is None:
                return False
            return (a is None) != asc  # None last in both orders
        if isinstance(a, str) != isinstance(b, str):
            return isinstance(a, str)
        return a < b


class TableModel(QAbstractTableModel):
    """What every table model of the tabs shares: the theme it colours its
    cells for (``dark``) and the brushes of the best value and of a problem."""

    dark = False

    def best_brush(self):
        return QBrush(BEST_DARK if self.dark else BEST)

    def problem_brush(self):
        return QBrush(PROBLEM_DARK if self.dark else PROBLEM)


class FixedColumns(TableModel):
    """A table whose columns are the class's ``HEADERS``."""

    HEADERS: tuple[str, ...] = ()

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None


def initial_order(higher_is_better: bool) -> int:
    """The order of a column's first click, best first: what the model gives
    for Qt.InitialSortOrderRole (as an int: QHeaderView reads it so)."""
    order = Qt.SortOrder.DescendingOrder if higher_is_better else Qt.SortOrder.AscendingOrder
    return int(order.value)


def competition_ranks(values: list, higher_is_better: bool) -> list:
    """1, 2, 2, 4...: each value's rank, best first (ties share the better
    rank); None (undefined, not scored) has no rank."""
    sign = -1.0 if higher_is_better else 1.0
    ordered = sorted(sign * v for v in values if v is not None)
    out = []
    for v in values:
        out.append(None if v is None else 1 + ordered.index(sign * v))
    return out


class SummaryModel(TableModel):
    """Runs x measures (run means), each run's rank by the ranking measure
    (``rank_key``: what ``shrec-eval evaluate`` ranks by) after its name."""

    #: the columns before the measures: the run and its rank
    RUN, RANK, FIRST = 0, 1, 2

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.entries: list = []  # (run key, name, RunResult or None while pending)
        self.keys: list[str] = []
        self.ranks = (5, 10, 25, 50, 100)
        self.current = None  # the options now chosen (effective): other results are stale
        self.rank_key: str | None = None
        self._rank_of: list = []

    def column(self, key: str) -> int:
        """The column of a measure shown."""
        return self.FIRST + self.keys.index(key)

    def set_rank_key(self, key: str | None) -> None:
        if key != self.rank_key:
            self.beginResetModel()
            self.rank_key = key
            self._cache()
            self.endResetModel()

    def set_columns(self, keys, ranks) -> None:
        self.beginResetModel()
        self.keys = list(keys)
        self.ranks = tuple(ranks)
        self._cache()
        self.endResetModel()

    def set_entries(self, entries, current=None) -> None:
        """``entries`` (run key, name, RunResult or None); ``current``: the
        effective options now chosen (results of others are shown greyed)."""
        self.beginResetModel()
        self.entries = list(entries)
        self.current = current
        self._cache()
        self.endResetModel()

    def stale(self, result) -> bool:
        """A result scored with other options than the ones now chosen."""
        return result is not None and self.current is not None and result.options != self.current

    def _cache(self) -> None:
        """Means, measures and the best value per column, computed once per
        change instead of once per painted cell."""
        self._measures = [measure_by_key(k, self.ranks) for k in self.keys]
        means = [r.means if r is not None else {} for _, _, r in self.entries]
        self._means = [[m.get(k) for k in self.keys] for m in means]
        self._bests = []
        for j, m in enumerate(self._measures):
            vals = [row[j] for row in self._means if row[j] is not None]
            self._bests.append((max(vals) if m.higher_is_better else min(vals)) if vals else None)
        self._rank_of = [None] * len(self.entries)
        if self.rank_key is not None:
            m = measure_by_key(self.rank_key, self.ranks)
            values = [
                r.means.get(self.rank_key) if r is not None else None for _, _, r in self.entries
            ]
            self._rank_of = competition_ranks(values, m.higher_is_better)

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self.FIRST + len(self.keys)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if section == self.RANK:
            if role == COLUMN_ROLE:
                return "rank"
            if role == Qt.ItemDataRole.DisplayRole:
                return "Rank"
            if role == Qt.ItemDataRole.ToolTipRole and self.rank_key is not None:
                m = measure_by_key(self.rank_key, self.ranks)
                return f"Rank by {m.label} [{m.key}], best first (ties share a rank)"
            if role == Qt.ItemDataRole.InitialSortOrderRole:
                return initial_order(False)  # rank 1 first
            return None
        if section == self.RUN:
            return {COLUMN_ROLE: "run", Qt.ItemDataRole.DisplayRole: "Run"}.get(role)
        m = self._measures[section - self.FIRST]  # the header is read at every paint
        if role == COLUMN_ROLE:
            return m.key
        if role == Qt.ItemDataRole.DisplayRole:
            return m.label
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{m.key}: {m.definition}"
        if role == Qt.ItemDataRole.InitialSortOrderRole:
            return initial_order(m.higher_is_better)
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        key, name, res = self.entries[row]
        if role == KEY_ROLE:
            return key
        if role == Qt.ItemDataRole.ForegroundRole and self.stale(res):
            return QBrush(QColor(128, 128, 128))
        if col == self.RANK:
            rank = self._rank_of[row]
            if role == Qt.ItemDataRole.DisplayRole:
                return "" if rank is None else str(rank)
            if role == SORT_ROLE:
                return rank
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if role == Qt.ItemDataRole.ToolTipRole and rank is not None:
                # the value ranked by, also when its measure is not a column
                m = measure_by_key(self.rank_key, self.ranks)
                return f"rank {rank} by {m.label} [{m.key}] = {fmt(res.means[m.key], m)}"
            return None
        if col == self.RUN:
            if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
                return name if role == Qt.ItemDataRole.DisplayRole else name.lower()
            flagged = problem_text(res)
            if role == Qt.ItemDataRole.ToolTipRole and res is not None:
                why = f"\nProblems (as shrec-eval check):\n{flagged}" if flagged else ""
                old = (
                    "\nStale: scored with other options; F5 scores with the new ones."
                    if self.stale(res)
                    else ""
                )
                return f"{res.run_source}\n{res.run_format}{why}{old}"
            if role == Qt.ItemDataRole.DecorationRole and flagged:
                return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
            if role == Qt.ItemDataRole.BackgroundRole and flagged:
                return self.problem_brush()
            return None
        j = col - self.FIRST
        v = self._means[row][j]
        if role == Qt.ItemDataRole.DisplayRole:
            return fmt(v, self._measures[j]) if res is not None else "…"
        if role == SORT_ROLE:
            return v
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole:
            b = self._bests[j]
            if v is not None and b is not None and abs(v - b) <= 1e-12 * max(1, abs(b)):
                return self.best_brush()
        if role == Qt.ItemDataRole.ToolTipRole and res is not None and self.keys[j] in res.keys:
            n = res.n_undefined(self.keys[j])
            return f"{n} queries left out (undefined)" if n else None
        return None


#: a data check's advice in the app's words (its ``advice`` names a command-line option)
APP_ADVICE = {
    "matrix_order": " (Scoring > Options > Matrix rows and columns, or the banner's button)",
    "self_match": ", kept when Scoring > Options > Remove a query from its own list is off",
    "top_k": " (the run's Keep the first setting)",
}


def app_words(w) -> str:
    """A data check's message as the app says it: its own controls, never
    a command-line option."""
    return w.worded(APP_ADVICE.get(w.code, ""))


class WarningsModel(FixedColumns):
    """Every run's data checks; a check with another reading (it changes
    numbers: the banner over the tabs gives both figures) is a warning."""

    HEADERS = ("Run", "Check", "Kind", "Count", "What", "Examples")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[tuple] = []
        self.keys: list[int] = []  # the run key of each row

    def set_entries(self, entries, errors=None) -> None:
        """entries: (run key, name, RunResult or None); errors: (run key,
        name, the reader's message) of the runs that could not be read."""
        self.beginResetModel()
        self.rows, self.keys = [], []
        for key, name, res in entries:
            if res is None:
                continue
            source = str(res.run_source)
            for w in res.warnings:
                kind = "problem" if w.code in PROBLEMS else "note"
                if w.other is not None and kind == "note":
                    kind = "warning"
                # the run's file by its name (its full path is the Run column's tooltip)
                text = app_words(w)
                what = text.replace(source, Path(source).name) if source else text
                self.rows.append((name, w.code, kind, w.count, what, ", ".join(w.examples)))
                self.keys.append(key)
        for key, name, message in errors or []:
            self.rows.append((name, "unreadable", "problem", 1, message, ""))
            self.keys.append(key)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        v = self.rows[index.row()][index.column()]
        if role == KEY_ROLE:
            return self.keys[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 3 and v == 0 and self.rows[index.row()][2] == "warning":
                return ""  # a reading's figures, not cases: the banner gives them
            return str(v)
        if role == SORT_ROLE and index.column() == 2:  # problems, then warnings, then notes
            return ("note", "warning", "problem").index(v)
        if role == SORT_ROLE:
            return v if not isinstance(v, str) else v.lower()
        if role == Qt.ItemDataRole.ToolTipRole and index.column() >= 4:
            return str(v)
        if role == Qt.ItemDataRole.BackgroundRole and self.rows[index.row()][2] == "problem":
            return self.problem_brush()
        return None


class PValueModel(QAbstractTableModel):
    """Runs x runs corrected p-values of one test, coloured by significance."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.names: list[str] = []
        self.p = np.zeros((0, 0))
        self.alpha = 0.05

    def set_comparison(self, comparison, test: str | None) -> None:
        self.beginResetModel()
        if comparison is None or test not in comparison.tests:
            self.names, self.p = [], np.zeros((0, 0))
        else:
            order = [r.name for r in comparison.ranking()]
            index = [r.name for r in comparison.runs]
            full = comparison.matrix(test)
            perm = [index.index(n) for n in order]
            self.names = order
            self.p = full[np.ix_(perm, perm)]
            self.alpha = comparison.alpha
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.names)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.names)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and section < len(self.names):
            return self.names[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        v = self.p[r, c]
        if role == Qt.ItemDataRole.DisplayRole:
            if r == c:
                return "—"
            return "" if math.isnan(v) else (f"{v:.4f}" if v >= 1e-4 else "< 0.0001")
        if role == SORT_ROLE:
            return nullable(v)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.BackgroundRole and r != c and not math.isnan(v):
            if v < self.alpha:
                # deeper green for smaller p
                strength = min(1.0, -math.log10(max(v, 1e-12)) / 6)
                return QBrush(
                    QColor.fromRgbF(
                        0.55 - 0.35 * strength, 0.85 - 0.2 * strength, 0.55 - 0.35 * strength
                    )
                )
            return QBrush(QColor(235, 235, 235))
        if role == Qt.ItemDataRole.ForegroundRole and r != c and not math.isnan(v):
            return QBrush(QColor("black"))
        if role == Qt.ItemDataRole.ToolTipRole and r != c:
            return (
                f"{self.names[r]} vs {self.names[c]}: corrected p = {v:.6g}; "
                + ("significant" if v < self.alpha else "not significant")
                + f" at alpha = {self.alpha}"
            )
        return None
