"""Table models (Vorta's pattern: display strings for DisplayRole, native
values in a sort role, a proxy that compares them)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QApplication, QStyle
from shrec_eval.model.values import nullable
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


def problems(result) -> list:
    """The data checks of a run that ``shrec-eval check`` calls problems
    (unknown or repeated ids, missing queries...), not notes."""
    return [w for w in result.warnings if w.code in PROBLEMS] if result is not None else []


def problem_text(result) -> str:
    """One line per problem: code, count and what it means."""
    return "\n".join(f"{w.code} ({w.count}): {w.message}" for w in problems(result))


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


class _Base(QAbstractTableModel):
    dark = False

    def best_brush(self):
        return QBrush(BEST_DARK if self.dark else BEST)

    def problem_brush(self):
        return QBrush(PROBLEM_DARK if self.dark else PROBLEM)


class FixedColumns(_Base):
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


class SummaryModel(_Base):
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
        m = measure_by_key(self.keys[section - self.FIRST], self.ranks)
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


class PerQueryModel(_Base):
    """Per-query values: one run (queries x measures) or one measure
    (queries x runs, with each query's ranking of the runs)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.mode = "run"  # "run" or "measure"
        self.entries: list = []  # (run key, name, RunResult)
        self.run_index = 0
        self.measure = "adr"
        self.keys: list[str] = []
        self.ranks = (5, 10, 25, 50, 100)

    def configure(
        self, entries, *, mode=None, run_index=None, measure=None, keys=None, ranks=None
    ) -> None:
        self.beginResetModel()
        self.entries = [e for e in entries if e[2] is not None]
        if mode is not None:
            self.mode = mode
        if run_index is not None:
            self.run_index = run_index
        if measure is not None:
            self.measure = measure
        if keys is not None:
            self.keys = list(keys)
        if ranks is not None:
            self.ranks = tuple(ranks)
        self.run_index = min(self.run_index, max(len(self.entries) - 1, 0))
        self._cache()
        self.endResetModel()

    def _cache(self) -> None:
        """The columns as arrays, their measures, each row's best value and
        the per-query ranking of runs: computed once per change."""
        self._arrays, self._measures, self._best, self._rankings = [], [], None, []
        if not self.entries:
            return
        if self.mode == "run":
            res = self.entries[self.run_index][2]
            for k in self.keys:
                self._measures.append(measure_by_key(k, self.ranks))
                self._arrays.append(
                    res.column(k) if k in res.keys else np.full(len(res.query_ids), np.nan)
                )
            return
        m = measure_by_key(self.measure, self.ranks)
        self._measures = [m]
        cols = np.column_stack(
            [
                r.column(self.measure)
                if self.measure in r.keys
                else np.full(len(r.query_ids), np.nan)
                for _, _, r in self.entries
            ]
        )
        self._arrays = list(cols.T)
        with np.errstate(all="ignore"):
            filled = np.where(np.isnan(cols), -np.inf if m.higher_is_better else np.inf, cols)
        self._best = filled.max(axis=1) if m.higher_is_better else filled.min(axis=1)
        names = [n for _, n, _ in self.entries]
        sign = -1.0 if m.higher_is_better else 1.0
        for row in cols:
            order = sorted(
                range(len(names)),
                key=lambda j: (np.isnan(row[j]), sign * row[j] if not np.isnan(row[j]) else 0.0),
            )
            self._rankings.append([names[j] for j in order])

    @property
    def query_ids(self):
        return self.entries[0][2].query_ids if self.entries else ()

    @property
    def query_classes(self):
        """The class of each query (None without classes): the second column."""
        return self.entries[0][2].query_classes if self.entries else None

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.query_ids)

    @property
    def first(self) -> int:
        """The first column of values: after the query and its class."""
        return 1 + (self.query_classes is not None)

    def columnCount(self, parent=QModelIndex()) -> int:
        if parent.isValid() or not self.entries:
            return 0
        n = len(self.keys) if self.mode == "run" else 1 + len(self.entries)
        return self.first + n  # query, class, (measures | runs..., ranking)

    def _class_column(self, section: int) -> bool:
        return self.query_classes is not None and section == 1

    def _column_id(self, section: int) -> str:
        if section == 0:
            return "query"
        if self._class_column(section):
            return "class"
        j = section - self.first
        if self.mode == "run":
            return self.keys[j]
        return f"run:{self.entries[j][1]}" if j < len(self.entries) else "ranking"

    def _text_column(self, section: int) -> bool:
        """Query, class and the ranking of runs: text, left-aligned."""
        return section < self.first or (
            self.mode == "measure" and section - self.first == len(self.entries)
        )

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < self.columnCount():
            return None
        if role == COLUMN_ROLE:
            return self._column_id(section)
        if role == Qt.ItemDataRole.TextAlignmentRole:  # as the column's cells
            side = (
                Qt.AlignmentFlag.AlignLeft
                if self._text_column(section)
                else Qt.AlignmentFlag.AlignRight
            )
            # wrapped where the columns would not fit (PerQueryTab._fit_headers)
            return int(side | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap)
        if role == Qt.ItemDataRole.InitialSortOrderRole and not self._text_column(section):
            m = self._measures[section - self.first if self.mode == "run" else 0]
            return initial_order(m.higher_is_better)
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if section == 0:
            return "Query"
        if self._class_column(section):
            return "Class"
        j = section - self.first
        if self.mode == "run":
            return measure_by_key(self.keys[j], self.ranks).label
        if j < len(self.entries):
            return self.entries[j][1]
        return "Ranking of runs (best first)"

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not self.entries:
            return None
        row, col = index.row(), index.column()
        q = self.query_ids[row]
        if col == 0:
            if role == Qt.ItemDataRole.DisplayRole:
                return q
            if role == SORT_ROLE:
                return natural_key(q)
            return None
        if self._class_column(col):
            c = self.query_classes[row]
            return (
                c
                if role == Qt.ItemDataRole.DisplayRole
                else natural_key(c)
                if role == SORT_ROLE
                else None
            )
        j = col - self.first
        if self.mode == "run":
            m = self._measures[j]
            v = nullable(self._arrays[j][row])
            best = None
        elif j < len(self.entries):
            m = self._measures[0]
            v = nullable(self._arrays[j][row])
            best = nullable(self._best[row])
        else:
            ranking = self._rankings[row]
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                return " > ".join(ranking)  # in full as a tooltip where the column elides it
            if role == SORT_ROLE:
                return ranking[0] if ranking else None
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return fmt(v, m)
        if role == SORT_ROLE:
            return v
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and best is not None and v == best:
            return self.best_brush()
        return None

    def ranking(self, row: int) -> list[str]:
        """Run names for one query, best first (undefined last), as in the
        SHREC 2006 report's Table 2."""
        return list(self._rankings[row])


class WarningsModel(FixedColumns):
    """Every run's data checks."""

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
                # the run's file by its name (its full path is the Run column's tooltip)
                what = w.message.replace(source, Path(source).name) if source else w.message
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
            return str(v)
        if role == SORT_ROLE:
            return v if not isinstance(v, str) else v.lower()
        if role == Qt.ItemDataRole.ToolTipRole and index.column() >= 4:
            return str(v)
        if role == Qt.ItemDataRole.BackgroundRole and self.rows[index.row()][2] == "problem":
            return self.problem_brush()
        return None
