"""The ranked lists of one query, one strip per run stacked and aligned by
rank (or one run's strip): each rank coloured by the item's grade, the run
names down the left, item id, class and grade of the item under the mouse.
The lists arrive ready-made from the worker (ranked_data.QueryLists); this
module only paints them and looks up the item under the mouse."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from .curves import export_buttons, numeric_axes, searchable_combo
from .plot_view import PlotView

#: the colour of a rank by grade: not relevant, relevant below the top grade, top grade
GRADE_COLOURS = {0: (225, 225, 225), 1: (140, 200, 120), 2: (20, 110, 50)}
ALL_RUNS = "All runs, stacked"
STRIP = 0.7  # a strip's height in a run's row (the rest is the gap between strips)
ROW_PX = 28  # on-screen height of a run's row
#: the least height of a run's row, in lines of its name: every run is named
#: (the plot scrolls where the tab is shorter than its rows)
ROW_LINES = 1.05
#: the plot's least height: a screen of 960 x 540 holds the tab with its
#: thumbnails, whatever the number of runs (the plot scrolls in it)
MIN_PLOT_PX = 140
#: the widest a run name is drawn down the left, in share of the plot's width;
#: a longer one is cut in the middle (whole in the tooltip over it)
NAME_SHARE = 0.4
INFO_LINES = 2  # lines of the per-run summary shown at least (the rest scrolls)
SHOWN_RANKS = 200  # ranks in view when a query is drawn (zoom and pan for the rest)
NOTHING = "Score a contest to see its ranked lists."


def grade_rgb(gains: np.ndarray, top_grade: int) -> np.ndarray:
    """An (n, 1, 3) image of a list: each rank's colour by its grade."""
    g = np.asarray(gains)
    rgb = np.empty((max(len(g), 1), 1, 3), dtype=np.ubyte)
    rgb[:] = GRADE_COLOURS[0]
    if len(g):
        rgb[g >= 1, 0] = GRADE_COLOURS[1]
        rgb[g >= max(top_grade, 1), 0] = GRADE_COLOURS[2]
    return rgb


def grade_key(top_grade: int) -> list[tuple[tuple, str]]:
    """(colour, words) of each colour a strip may show, for the assessment's
    top grade: SHREC's highly / marginally relevant, or one relevant colour
    (binary judgments), or the top grade against the grades below it."""
    if top_grade <= 1:
        return [(GRADE_COLOURS[2], "relevant"), (GRADE_COLOURS[0], "not relevant")]
    below = "marginally relevant" if top_grade == 2 else f"grades 1-{top_grade - 1}"
    top = "highly relevant" if top_grade == 2 else f"grade {top_grade}"
    return [(GRADE_COLOURS[2], top), (GRADE_COLOURS[1], below), (GRADE_COLOURS[0], "not relevant")]


def _label_colour(rgb) -> str:
    """A key colour as text colour; the strips' light grey a shade darker,
    or its square would vanish on a light window."""
    return "#bbbbbb" if tuple(rgb) == GRADE_COLOURS[0] else "#{:02x}{:02x}{:02x}".format(*rgb)


def relevant_counts(run, top_grade: int) -> str:
    """How many relevant items the query has, in the words of grade_key."""
    if top_grade <= 1:
        return f"{run.ch + run.cm} relevant items"
    if top_grade == 2:
        return f"{run.ch} highly and {run.cm} marginally relevant items"
    return f"{run.ch} relevant items of grade {top_grade} and {run.cm} of grades 1-{top_grade - 1}"


def describe(run, rank: int) -> str:
    """Run, rank, item id, class and grade of one place of a RunList."""
    grade = int(run.gains[rank - 1])
    cls = f", class {run.classes[rank - 1]}" if run.classes is not None else ""
    what = "not relevant" if grade <= 0 else f"relevant, grade {grade}"
    return f"{run.name}, rank {rank}: item {run.items[rank - 1]}{cls} ({what})"


def summary_line(run) -> str:
    """Where a run put the query's relevant items, in one line."""
    if run.error is not None:
        return f"{run.name}: {run.error}"
    hits = np.flatnonzero(np.asarray(run.gains) >= 1) + 1
    found = f"{len(hits)} of {run.ch + run.cm} relevant items in a list of {len(run)}"
    if len(hits) == 0:
        return f"{run.name}: {found}"
    half = hits[(len(hits) - 1) // 2]
    return (
        f"{run.name}: {found}; the first at rank {hits[0]}, half of them by rank {half}, "
        f"the last at rank {hits[-1]}"
    )


class RankedListsWidget(QWidget):
    """Runs picker (all, stacked, or one), searchable query picker, the
    strips, a read-out of the item under the mouse and a summary per run."""

    listsRequested = Signal(str)  # query id
    exportRequested = Signal(str)  # "figure"

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.run = QComboBox()
        self.run.addItem(ALL_RUNS, None)
        self.query = searchable_combo()
        self.query.setMinimumContentsLength(10)
        self.plot = PlotView()
        self.plot.setMouseEnabled(x=True, y=False)
        self.plot.setLabel("bottom", "Rank")
        numeric_axes(self.plot)
        # ranks start at 1: no zooming or panning to negative ranks
        self.plot.getPlotItem().vb.setLimits(xMin=0.5, yMin=0, yMax=1, minXRange=5)
        self.strips: list[pg.ImageItem] = []
        self._key_bars: list = []
        self.plot.getPlotItem().addLegend().setVisible(False)  # for figures (_set_grade_key)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Runs:"))
        bar.addWidget(self.run)
        bar.addWidget(QLabel("Query:"))
        bar.addWidget(self.query)
        bar.addStretch(1)
        self.key = QLabel()  # the colours' key
        self.readout = QLabel(" ")  # the item under the mouse (a long one is cut, never widens)
        self.readout.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row = QHBoxLayout()
        row.addWidget(self.key)
        row.addSpacing(12)
        row.addWidget(self.readout, 1)
        self.export_buttons = export_buttons(
            self.exportRequested.emit, csv=False, plots=(self.plot,)
        )
        for b in self.export_buttons:
            row.addWidget(b)
        self.info = QLabel(NOTHING)
        self.info.setWordWrap(True)
        self.info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # a line per run: scrolls past a few lines, so that runs never make
        # the tab (and the window) taller than the screen
        self.info_scroll = QScrollArea()
        self.info_scroll.setWidget(self.info)
        self.info_scroll.setWidgetResizable(True)
        self.info_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.info_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # every run's row a line tall at least, named: the plot scrolls in a
        # short window rather than leave runs unnamed
        self.plot_scroll = QScrollArea()
        self.plot_scroll.setWidget(self.plot)
        self.plot_scroll.setWidgetResizable(True)
        self.plot_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.plot_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.plot_scroll.setMinimumHeight(MIN_PLOT_PX)
        lay = QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(self.plot_scroll, 3)
        lay.addLayout(row)
        lay.addWidget(self.info_scroll, 1)  # what the rows leave (a few lines at least)
        lay.addStretch(0)
        self.top_grade = 0
        self._set_grade_key(2)
        self._qids: tuple = ()
        self._classes: dict = {}  # query id -> its class (contests with classes)
        self.lists = None  # the QueryLists drawn
        self.run.currentIndexChanged.connect(self.draw)
        self.query.currentIndexChanged.connect(self._ask)
        self._hover = pg.SignalProxy(
            self.plot.scene().sigMouseMoved, rateLimit=30, slot=lambda e: self.hover(e[0])
        )
        # deleted with its plot: without a parent, the proxy's connection to the
        # slot (which holds the plot) kept a closed window's plots and menus alive
        self._hover.setParent(self.plot)
        self.plot.getPlotItem().vb.sigResized.connect(lambda *_: self._thin_names())
        self._fit_height(1)

    def _set_grade_key(self, top_grade: int) -> None:
        """The colours' key for the assessment's top grade: a label below the
        plot, and the plot's (hidden) legend that figures show: one empty,
        pen-less bar per colour, whose legend sample is a square of it."""
        if top_grade == self.top_grade:
            return
        self.top_grade = top_grade
        key = grade_key(top_grade)
        self.key.setText(
            " &nbsp; ".join(
                f'<span style="color:{_label_colour(colour)}">&#9632;</span> {words}'
                for colour, words in key
            )
        )
        pi = self.plot.getPlotItem()
        for bar in self._key_bars:
            pi.legend.removeItem(bar)
            pi.removeItem(bar)
        self._key_bars = []
        for colour, words in key:
            bar = pg.BarGraphItem(x=[1], height=[0], width=0, brush=colour, pen=pg.mkPen(None))
            pi.addItem(bar)
            pi.legend.addItem(bar, words)
            self._key_bars.append(bar)

    # -- choosing --------------------------------------------------------------------------
    def set_entries(self, entries, top_grade: int) -> None:
        """entries: (run key, name, RunResult or None); asks for the lists
        of the query shown."""
        self._set_grade_key(top_grade)
        scored = [(k, n, r) for k, n, r in entries if r is not None]
        runs = [(k, n) for k, n, _ in scored]
        shown = [(self.run.itemData(i), self.run.itemText(i)) for i in range(1, self.run.count())]
        if shown != runs:
            cur = self.run.currentData()
            self.run.blockSignals(True)
            while self.run.count() > 1:
                self.run.removeItem(1)
            for k, n in runs:
                self.run.addItem(n, k)
            self.run.setCurrentIndex(max(self.run.findData(cur), 0))
            self.run.blockSignals(False)
        qids = tuple(scored[0][2].query_ids) if scored else ()
        if qids != self._qids:  # refill only when the queries change (one call)
            cur = self.current_query()
            self._qids = qids
            classes = scored[0][2].query_classes if scored else None
            self._classes = dict(zip(qids, classes)) if classes is not None else {}
            self.query.blockSignals(True)
            self.query.clear()
            self.query.addItems(list(qids))
            self.query.setCurrentIndex(qids.index(cur) if cur in qids else 0)
            self.query.blockSignals(False)
        if not scored and self.lists is not None:  # the contest was closed
            self.lists = None
            self.draw()
        self._ask()

    def current_query(self) -> str:
        """The query picked (not what is being typed into the picker)."""
        return self.query.itemText(self.query.currentIndex())

    def select_query(self, query_id: str) -> None:
        i = self.query.findText(query_id)
        if i >= 0:
            self.query.setCurrentIndex(i)

    def _ask(self) -> None:
        q = self.current_query()
        if q and self.run.count() > 1:
            self.listsRequested.emit(q)

    # -- drawing ---------------------------------------------------------------------------
    def shown_runs(self) -> list:
        """The RunLists drawn, top to bottom (all, or the one picked)."""
        if self.lists is None:
            return []
        key = self.run.currentData()
        return [r for r in self.lists.runs if key is None or r.key == key]

    def show_lists(self, lists) -> None:
        if lists.query_id != self.current_query():
            return  # an answer for a query no longer picked
        self.lists = lists
        self.draw()

    def _fit_height(self, n_rows: int) -> None:
        """The plot as tall as its rows need (ROW_PX a run), down to a line
        of text a run (ROW_LINES: every run named), scrolled where the
        window has less room (its view MIN_PLOT_PX at least, and no taller
        than the plot); the summary a few lines tall at least, no taller
        than its text."""
        pi = self.plot.getPlotItem()
        title = pi.layout.rowMaximumHeight(0)  # the title row (0 when it has none)
        extra = pi.getAxis("bottom").height() + title + 24
        h = ROW_PX * n_rows + extra
        least = int(self._name_metrics().height() * ROW_LINES * n_rows + extra)
        self.plot.setMinimumHeight(min(least, h))
        self.plot.setMaximumHeight(h)
        self.plot_scroll.setMaximumHeight(h)
        lines = self.info.text().count("\n") + 1
        line = self.info.fontMetrics().lineSpacing()
        self.info_scroll.setMinimumHeight(min(lines, INFO_LINES) * line + 4)
        self.info_scroll.setMaximumHeight(self.info.sizeHint().height() + 4)
        self._thin_names()

    def _name_metrics(self) -> QFontMetrics:
        left = self.plot.getPlotItem().getAxis("left")
        return QFontMetrics(left.style["tickFont"] or self.font())

    def shown_names(self) -> list[str]:
        """The run names down the left, top to bottom, as drawn: whole, or
        cut in the middle where wider than NAME_SHARE of the plot (the
        tooltip over the name gives it whole)."""
        fm = self._name_metrics()
        room = int(max(self.plot.width(), 400) * NAME_SHARE)
        return [
            r.name
            if fm.horizontalAdvance(r.name) <= room
            else fm.elidedText(r.name, Qt.TextElideMode.ElideMiddle, room)
            for r in self.shown_runs()
        ]

    def _thin_names(self) -> None:
        """Every run named down the left, on its row (the plot is a line of
        text a row at least, see _fit_height)."""
        names = self.shown_names()
        n = len(names)
        left = self.plot.getPlotItem().getAxis("left")
        left.setTicks([[(n - 1 - i + 0.5, name) for i, name in enumerate(names)], []])
        fm = self._name_metrics()
        left.setWidth(max((fm.horizontalAdvance(t) for t in names), default=20) + 16)

    def draw(self) -> None:
        """One strip per run shown; run i's strip at y in [n-1-i, n-i)."""
        runs = self.shown_runs()
        n = len(runs)
        pi = self.plot.getPlotItem()
        while len(self.strips) < n:
            self.strips.append(pg.ImageItem())
            pi.addItem(self.strips[-1])
        while len(self.strips) > n:
            pi.removeItem(self.strips.pop())
        for i, (strip, run) in enumerate(zip(self.strips, runs)):
            strip.setImage(grade_rgb(run.gains, self.top_grade), levels=(0, 255))
            y0 = n - 1 - i + (1 - STRIP) / 2
            strip.setRect(0.5, y0, max(len(run), 1), STRIP)
            strip.setVisible(len(run) > 0)
        q = self.lists.query_id if self.lists is not None else None
        q_class = f" (class {self._classes[q]})" if q in self._classes else ""
        pi.setTitle(f"Ranked lists of query {q}{q_class}" if q else None)
        longest = max((len(r) for r in runs), default=0)
        vb = pi.vb
        vb.setLimits(xMax=max(longest, 5) + 0.5, yMin=0, yMax=max(n, 1))
        self.plot.setXRange(0.5, min(max(longest, 5), SHOWN_RANKS) + 0.5, padding=0)
        self.plot.setYRange(0, max(n, 1), padding=0)
        self.readout.setText(" ")
        if self.lists is None:
            self.info.setText(NOTHING)
        else:
            d = next((r for r in runs if r.error is None), None)
            head = f"Query {q}{q_class}"
            if d is not None:
                head += f": {relevant_counts(d, self.top_grade)}"
            self.info.setText("\n".join([head + "."] + [summary_line(r) for r in runs]))
        self._fit_height(max(n, 1))

    def name_at(self, scene_pos) -> str | None:
        """The whole name of the run whose name (down the left) is under a
        scene position, or None."""
        runs = self.shown_runs()
        pi = self.plot.getPlotItem()
        if not runs or not pi.getAxis("left").sceneBoundingRect().contains(scene_pos):
            return None
        i = len(runs) - 1 - int(np.floor(pi.vb.mapSceneToView(scene_pos).y()))
        return runs[i].name if 0 <= i < len(runs) else None

    def item_at(self, scene_pos):
        """(RunList, rank) of the strip place under a scene position, or None."""
        runs = self.shown_runs()
        vb = self.plot.getPlotItem().vb
        if not runs or not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        row = int(np.floor(p.y()))
        i = len(runs) - 1 - row
        if not 0 <= i < len(runs) or abs(p.y() - row - 0.5) > STRIP / 2:
            return None  # in a gap between strips
        rank = int(round(p.x()))
        return (runs[i], rank) if 1 <= rank <= len(runs[i]) else None

    def hover(self, scene_pos) -> None:
        """Run, rank, item id, class and grade of the item under the mouse."""
        hit = self.item_at(scene_pos)
        text = " " if hit is None else describe(*hit)
        self.readout.setText(text)
        self.plot.setToolTip(text.strip() or self.name_at(scene_pos) or "")
