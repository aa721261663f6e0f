"""Table models (Vorta's pattern: display strings for DisplayRole, native
values in a sort role, a proxy that compares them)."""

from __future__ import annotations

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor

from core.measures import expand, measure_by_key
from core.report import fmt

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
BEST = QColor(198, 239, 206)
BEST_DARK = QColor(40, 110, 60)


def _value(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


class SortProxy(QSortFilterProxyModel):
    """Sorts on SORT_ROLE; empty (undefined) values sort last either way."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)

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


class SummaryModel(_Base):
    """Runs x measures (run means)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.entries: list = []   # (name, RunResult)
        self.keys: list[str] = []
        self.ranks = (5, 10, 25, 50, 100)

    def set_columns(self, keys, ranks) -> None:
        self.beginResetModel()
        self.keys = list(keys)
        self.ranks = tuple(ranks)
        self.endResetModel()

    def set_entries(self, entries) -> None:
        self.beginResetModel()
        self.entries = list(entries)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else 1 + len(self.keys)

    def _mean(self, row: int, key: str):
        res = self.entries[row][1]
        if res is None or key not in res.keys:
            return None
        return res.mean(key)

    def _best(self, key: str):
        m = measure_by_key(key, self.ranks)
        vals = [v for v in (self._mean(r, key) for r in range(len(self.entries))) if v is not None]
        if not vals:
            return None
        return max(vals) if m.higher_is_better else min(vals)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return "Run" if section == 0 else measure_by_key(self.keys[section - 1],
                                                            self.ranks).label
        if role == Qt.ItemDataRole.ToolTipRole and section:
            m = measure_by_key(self.keys[section - 1], self.ranks)
            return f"{m.key}: {m.definition}"
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        name, res = self.entries[row]
        if col == 0:
            if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
                return name if role == Qt.ItemDataRole.DisplayRole else name.lower()
            if role == Qt.ItemDataRole.ToolTipRole and res is not None:
                return f"{res.run_source}\n{res.run_format}"
            return None
        key = self.keys[col - 1]
        v = self._mean(row, key)
        if role == Qt.ItemDataRole.DisplayRole:
            return fmt(v, measure_by_key(key, self.ranks)) if res is not None else "…"
        if role == SORT_ROLE:
            return v
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole:
            b = self._best(key)
            if v is not None and b is not None and abs(v - b) <= 1e-12 * max(1, abs(b)):
                return self.best_brush()
        if role == Qt.ItemDataRole.ToolTipRole and res is not None:
            n = res.n_undefined(key)
            return f"{n} queries left out (undefined)" if n else None
        return None


class PerQueryModel(_Base):
    """Per-query values: one run (queries x measures) or one measure
    (queries x runs, with each query's ranking of the runs)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.mode = "run"          # "run" or "measure"
        self.entries: list = []    # (name, RunResult)
        self.run_index = 0
        self.measure = "adr"
        self.keys: list[str] = []
        self.ranks = (5, 10, 25, 50, 100)

    def configure(self, entries, *, mode=None, run_index=None, measure=None, keys=None,
                  ranks=None) -> None:
        self.beginResetModel()
        self.entries = [e for e in entries if e[1] is not None]
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
        self.endResetModel()

    @property
    def query_ids(self):
        return self.entries[0][1].query_ids if self.entries else ()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.query_ids)

    def columnCount(self, parent=QModelIndex()) -> int:
        if parent.isValid() or not self.entries:
            return 0
        if self.mode == "run":
            return 1 + len(self.keys)
        return 2 + len(self.entries)  # query, runs..., ranking of runs

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        if section == 0:
            return "Query"
        if self.mode == "run":
            return measure_by_key(self.keys[section - 1], self.ranks).label
        if section <= len(self.entries):
            return self.entries[section - 1][0]
        return "Ranking of runs (best first)"

    def _col(self, j: int):
        return self.entries[j][1].column(self.measure)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not self.entries:
            return None
        row, col = index.row(), index.column()
        q = self.query_ids[row]
        if col == 0:
            if role == Qt.ItemDataRole.DisplayRole:
                return q
            if role == SORT_ROLE:
                return q
            return None
        if self.mode == "run":
            key = self.keys[col - 1]
            res = self.entries[self.run_index][1]
            v = _value(res.column(key)[row]) if key in res.keys else None
            m = measure_by_key(key, self.ranks)
            best = None
        elif col <= len(self.entries):
            m = measure_by_key(self.measure, self.ranks)
            v = _value(self._col(col - 1)[row])
            vals = [x for x in (_value(self._col(j)[row]) for j in range(len(self.entries)))
                    if x is not None]
            best = (max(vals) if m.higher_is_better else min(vals)) if vals else None
        else:
            ranking = self.ranking(row)
            if role == Qt.ItemDataRole.DisplayRole:
                return " > ".join(ranking)
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
        m = measure_by_key(self.measure, self.ranks)
        vals = [(_value(self._col(j)[row]), name) for j, (name, _) in enumerate(self.entries)]
        sign = -1 if m.higher_is_better else 1
        return [n for v, n in sorted(vals, key=lambda t: (t[0] is None,
                                                          sign * t[0] if t[0] is not None
                                                          else 0.0))]


class WarningsModel(_Base):
    """Every run's data checks."""

    HEADERS = ("Run", "Check", "Count", "What", "Examples")

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.rows: list[tuple] = []

    def set_entries(self, entries, errors=None) -> None:
        self.beginResetModel()
        self.rows = []
        for name, res in entries:
            if res is None:
                continue
            for w in res.warnings:
                self.rows.append((name, w.code, w.count, w.message, ", ".join(w.examples)))
        for name, message in (errors or []):
            self.rows.append((name, "unreadable", 1, message, ""))
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        v = self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return str(v)
        if role == SORT_ROLE:
            return v if not isinstance(v, str) else v.lower()
        if role == Qt.ItemDataRole.ToolTipRole and index.column() >= 3:
            return str(v)
        return None


def all_keys(ranks) -> list[str]:
    return [m.key for m in expand(ranks)]
