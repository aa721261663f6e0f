"""The Per query tab's table: one run (queries x measures) or one measure
(queries x runs, with each query's ranking of the runs)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QModelIndex, Qt
from shrec_eval.model.values import nullable
from shrec_eval.outputs.report import fmt
from shrec_eval.scoring.measures import measure_by_key

from .tables import COLUMN_ROLE, SORT_ROLE, TableModel, initial_order, natural_key


class PerQueryModel(TableModel):
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
        self._rows = self._columns = 0  # the table's size, once per change (see _cache)

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
        # Qt asks for the size at every cell it paints, sorts or measures
        self._rows = len(self.query_ids)
        self._columns = (
            self.first + (len(self.keys) if self.mode == "run" else 1 + len(self.entries))
            if self.entries
            else 0
        )
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
        return 0 if parent.isValid() else self._rows

    @property
    def first(self) -> int:
        """The first column of values: after the query and its class."""
        return 1 + (self.query_classes is not None)

    def columnCount(self, parent=QModelIndex()) -> int:
        # query, class, (measures | runs..., ranking)
        return 0 if parent.isValid() else self._columns

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
            return self._measures[j].label  # measure_by_key's, once per change
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
